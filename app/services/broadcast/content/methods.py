"""The Bot API method and parameters that deliver, delete or edit a job's content."""
from __future__ import annotations

from app.models.broadcast import (
    ACTION_KINDS,
    CONTENT_ALBUM,
    CONTENT_COPY,
    CONTENT_TEXT,
    KIND_PIN,
    KIND_UNPIN,
    KIND_UNSEND,
    BroadcastJob,
)
from app.services.audience import key_press, tap
from app.services.broadcast.content import ab_content, keyboard, variants
from app.services.broadcast.jobs.content_columns import album_ids
from app.services.broadcast.reporting import unsubscribes
from app.texts import LANGS, t

# The opt-out button's callback data under copies sent before it was signed (app.bot.subscription handles them):
# the fixed "u.stop", then the job's bare id ("u.out:42"). Both still opt the presser out, never counted; copies
# now carry reporting/unsubscribes.callback_data.
OPTOUT_DATA = "u.stop"
OPTOUT_JOB_PREFIX = "u.out"
# An album's keyboard message, sent to the same chat right after its parts (pump/deliver): not a Bot API parameter.
FOLLOW = "_follow"


def url_button(text: str | None, url: str | None) -> dict | None:
    """Return the inline keyboard of a broadcast's link button, or None when it has none."""
    if not text or not url:
        return None
    return {"inline_keyboard": [[{"text": text, "url": url}]]}


def with_tap(markup: dict | None, job: BroadcastJob) -> dict | None:
    """Return markup with the job's tap button as a row of its own (an edit's presses count for its source)."""
    if not job.tap_text:
        return markup
    sender = job.source_job_id if job.kind in ACTION_KINDS else job.id
    rows = (markup or {}).get("inline_keyboard", [])
    return {"inline_keyboard": [*rows, [{"text": job.tap_text, "callback_data": tap.callback_data(sender)}]]}


def with_keyboard(markup: dict | None, job: BroadcastJob, kb: dict | None = None) -> dict | None:
    """Return markup with the job's keyboard rows (or kb's) after it (an edit's presses count for its source)."""
    kb = kb or keyboard.load(job.keyboard)
    if not kb:
        return markup
    sender = job.source_job_id if job.kind in ACTION_KINDS else job.id
    rows = (markup or {}).get("inline_keyboard", [])
    return {"inline_keyboard": [*rows, *keyboard.markup_rows(kb, lambda pos: key_press.callback_data(sender, pos))]}


def job_markup(job: BroadcastJob) -> dict | None:
    """Return every button under a job's copy: the link, the tap button, the keyboard, then the opt-out row."""
    return with_optout(with_keyboard(with_tap(url_button(job.button_text, job.button_url), job), job), job)


def with_optout(markup: dict | None, job: BroadcastJob) -> dict | None:
    """Return markup with the opt-out button as its last row when the job carries one.

    One set of parameters serves every recipient, so the label carries both languages. The button
    names the broadcast it counts for, signed: an edit's copies keep their broadcast's id.
    """
    if not job.optout_button:
        return markup
    label = " · ".join(t("btn_optout", lang) for lang in LANGS)
    rows = (markup or {}).get("inline_keyboard", [])
    data = unsubscribes.callback_data(job.source_job_id or job.id)
    return {"inline_keyboard": [*rows, [{"text": label, "callback_data": data}]]}


def message_params(job: BroadcastJob, paid: bool) -> tuple[str, dict]:
    """Return the Bot API method and parameters that deliver the job's content."""
    if job.content_type == CONTENT_ALBUM:
        # copyMessages takes neither a button nor allow_paid_broadcast (albums are never paid),
        # but the silent and protect options apply to every part.
        album = {"from_chat_id": job.from_chat_id, "message_ids": album_ids(job)}
        if markup := with_keyboard(None, job):  # so a keyboard follows in a message of its own
            album[FOLLOW] = {"text": keyboard.note_of(keyboard.load(job.keyboard)), "reply_markup": markup,
                             **send_options(job)}
        return "copyMessages", {**album, **send_options(job)}
    params: dict = {}
    if markup := job_markup(job):
        params["reply_markup"] = markup
    if paid:
        params["allow_paid_broadcast"] = True
    params.update(send_options(job))
    if job.content_type == CONTENT_COPY:
        params.update(from_chat_id=job.from_chat_id, message_id=job.source_message_id)
        return "copyMessage", params
    params.update(text=job.text, parse_mode=job.parse_mode or "HTML", link_preview_options={"is_disabled": True})
    return "sendMessage", params


def send_options(job: BroadcastJob) -> dict:
    """Return the job's silent and protect options as Bot API parameters (only those that are on)."""
    options: dict = {}
    if job.silent:
        options["disable_notification"] = True
    if job.protect:
        options["protect_content"] = True
    return options


def action_params(job: BroadcastJob) -> tuple[str, dict]:
    """Return the method and parameters (less each copy's message_id) of an action job.

    Unsend: deleteMessage, or deleteMessages over an album's recorded part
    ids (one counted call). Edit: editMessageText for text broadcasts and
    copies (a media copy falls back to its caption, see Pump.act), the caption
    of an album's first part; the source's buttons are kept (an album's
    keyboard message is left as it is).
    Pin / unpin: the copy's first message (an album's first part), the pin
    silent when the pin job is (its admin's choice).
    """
    if job.kind == KIND_PIN:
        return "pinChatMessage", {"disable_notification": bool(job.silent)}
    if job.kind == KIND_UNPIN:
        return "unpinChatMessage", {}
    if job.kind == KIND_UNSEND:
        return ("deleteMessages", {}) if job.content_type == CONTENT_ALBUM else ("deleteMessage", {})
    params: dict = {"parse_mode": job.parse_mode or "HTML"}
    markup = job_markup(job)
    if job.content_type != CONTENT_ALBUM and markup:
        params["reply_markup"] = markup
    if job.content_type == CONTENT_ALBUM:
        return "editMessageCaption", {**params, "caption": job.text}
    if job.content_type == CONTENT_TEXT:
        params["link_preview_options"] = {"is_disabled": True}
    return "editMessageText", {**params, "text": job.text}


def with_text(method: str, params: dict, text: str) -> dict:
    """Return a send's or edit's parameters carrying another text: a language variant's (text, or caption)."""
    if method in ("sendMessage", "editMessageText"):
        return {**params, "text": text}
    if method == "editMessageCaption":
        return {**params, "caption": text}
    if method == "copyMessage":
        # The variant replaces the copied media message's caption (HTML, like every text the bot writes).
        return {**params, "caption": text, "parse_mode": "HTML"}
    return params  # deletes carry no text


def by_variant(job: BroadcastJob, method: str, params: dict) -> dict[str | None, tuple[str, dict]]:
    """Return the method and parameters per language variant (None: the default content) of a send or action.

    An A/B test's send gives a version with its own buttons or media its own
    call (content/ab_content.py); every other version differs by its text.
    """
    out: dict[str | None, tuple[str, dict]] = {None: (method, params)}
    own = ab_content.of(job) if job.kind not in ACTION_KINDS else {}
    for code, text in variants.of(job).items():
        if own:  # an A/B test whose versions differ by more than text: each version builds its own call
            out[code] = version_call(job, text, own.get(code, {}), params)
        else:
            out[code] = (method, with_text(method, params, text))
    return out


# The parameters that say what a copy is; the rest (buttons, silent, protect, paid) every version shares.
_CONTENT = ("text", "parse_mode", "link_preview_options", "from_chat_id", "message_id", "caption")


def version_call(job: BroadcastJob, text: str, spec: dict, params: dict) -> tuple[str, dict]:
    """Return an A/B version's own call: its text or copied message, under its own buttons or the job's."""
    options = {key: value for key, value in params.items() if key not in _CONTENT}
    if ab_content.KEYBOARD in spec:
        options.pop("reply_markup", None)
        if markup := with_optout(with_keyboard(None, job, spec[ab_content.KEYBOARD]), job):
            options["reply_markup"] = markup
    if ab_content.COPY in spec:
        return "copyMessage", {**options, "from_chat_id": job.from_chat_id, "message_id": spec[ab_content.COPY]}
    return "sendMessage", {**options, "text": text, "parse_mode": "HTML", "link_preview_options": {"is_disabled": True}}


def target_params(method: str, params: dict, message_id: int, part_ids: list[int] | None) -> dict:
    """Return an action's parameters for one copy: exactly the ids recorded for it.

    An album's parts need not have consecutive ids (copyMessages skips a part
    it cannot copy): its unsend deletes the recorded ones. An album recorded
    before part ids were kept deletes only its first part's copy, the one id
    proven ours; the next ids in that chat may be someone else's messages.
    """
    if method == "deleteMessages":
        return {**params, "message_ids": list(part_ids or [message_id])}
    return {**params, "message_id": message_id}
