"""sendMessage, copyMessage, sendPhoto and sendDocument."""

from __future__ import annotations

import base64

from app.simulator.content import caption_content, message_object, text_content
from app.simulator.errors import bad_request
from app.simulator.markup import get_markup
from app.simulator.params import Upload, get_bool, get_chat_id, get_int, get_str
from app.simulator.results import Produce
from app.simulator.state import SimState


def send_message(state: SimState, params: dict) -> Produce:
    """Send a text message; result is the Message."""
    chat_id = get_chat_id(params)
    content = text_content(params)
    markup = get_markup(params)
    paid = get_bool(params, "allow_paid_broadcast")
    options = send_options(params)

    def commit(now: float) -> dict:
        state.check_recipient(chat_id)
        state.take_rate(chat_id, paid, False, now)
        msg = state.new_message(chat_id, text=content.plain, entities=content.entities,
                                reply_markup=markup)
        state.record(now, "sendMessage", msg, ("text", content.raw), text=content.raw,
                     reply_markup=markup, paid=paid, parse_mode=content.parse_mode, **options)
        return message_object(state, msg)

    return Produce(commit)


def copy_message(state: SimState, params: dict) -> Produce:
    """Copy an existing message; result is only {"message_id": N} as in Telegram."""
    chat_id = get_chat_id(params)
    from_chat_id = get_chat_id(params, "from_chat_id")
    source_id = get_int(params, "message_id")
    caption = caption_content(params)
    markup = get_markup(params)
    paid = get_bool(params, "allow_paid_broadcast")
    options = send_options(params)

    def commit(now: float) -> dict:
        state.check_recipient(chat_id)
        state.check_chat(from_chat_id)
        source = state.find_message(from_chat_id, source_id)
        if source is None and state.cfg["strict_copy"]:
            raise bad_request("message to copy not found")
        state.take_rate(chat_id, paid, False, now)
        fields = copied_fields(source, caption, markup)
        msg = state.new_message(chat_id, **fields)
        state.record(now, "copyMessage", msg, ("copy", from_chat_id, source_id),
                     text=msg.text, caption=msg.caption, from_chat_id=from_chat_id,
                     source_message_id=source_id, reply_markup=markup, paid=paid,
                     parse_mode=caption.parse_mode if caption else None, **options)
        return {"message_id": msg.message_id}

    return Produce(commit)


def send_options(params: dict) -> dict:
    """Return the delivery options recorded per delivery: silent and protected messages."""
    return {"disable_notification": get_bool(params, "disable_notification"),
            "protect_content": get_bool(params, "protect_content")}


def copied_fields(source, caption, markup) -> dict:
    """Return the content of a copy: the source's, with caption/markup overrides."""
    fields = {"reply_markup": markup}
    if source is not None:
        fields.update(text=source.text, entities=source.entities, photo=source.photo,
                      caption=source.caption, caption_entities=source.caption_entities)
    if caption is not None and (source is None or source.text is None):
        fields.update(caption=caption.plain, caption_entities=caption.entities)
    return fields


def send_photo(state: SimState, params: dict) -> Produce:
    """Send a photo by file id, URL or upload (its bytes kept in the delivery record); result is the Message."""
    chat_id = get_chat_id(params)
    photo = get_str(params, "photo")
    if not photo:
        raise bad_request("there is no photo in the request")
    caption = caption_content(params)
    markup = get_markup(params)
    paid = get_bool(params, "allow_paid_broadcast")
    options = send_options(params)

    def commit(now: float) -> dict:
        state.check_recipient(chat_id)
        state.take_rate(chat_id, paid, False, now)
        msg = state.new_message(chat_id, photo=photo, reply_markup=markup,
                                caption=caption.plain if caption else None,
                                caption_entities=caption.entities if caption else ())
        state.record(now, "sendPhoto", msg, ("photo", photo, caption and caption.raw),
                     caption=caption.raw if caption else None, reply_markup=markup,
                     paid=paid, parse_mode=caption.parse_mode if caption else None, **options,
                     photo_base64=base64.b64encode(photo.data).decode() if isinstance(photo, Upload) else None)
        return message_object(state, msg)

    return Produce(commit)


def send_document(state: SimState, params: dict) -> Produce:
    """Send a document (an upload or a file id); the delivery record keeps an upload's name and bytes."""
    chat_id = get_chat_id(params)
    document = params.get("document")
    if not document:
        raise bad_request("there is no document in the request")
    upload = document if isinstance(document, Upload) else None
    caption = caption_content(params)
    markup = get_markup(params)
    options = send_options(params)
    file = {"file_id": str(document), "file_unique_id": str(document)[-8:],
            "file_name": upload.filename if upload else None, "file_size": len(upload.data) if upload else None}

    def commit(now: float) -> dict:
        state.check_recipient(chat_id)
        state.take_rate(chat_id, False, False, now)
        msg = state.new_message(chat_id, document={k: v for k, v in file.items() if v is not None},
                                reply_markup=markup, caption=caption.plain if caption else None,
                                caption_entities=caption.entities if caption else ())
        state.record(now, "sendDocument", msg, ("document", str(document)),
                     caption=caption.raw if caption else None, reply_markup=markup,
                     parse_mode=caption.parse_mode if caption else None, document_name=file["file_name"],
                     document_base64=base64.b64encode(upload.data).decode() if upload else None, **options)
        return message_object(state, msg)

    return Produce(commit)
