"""The keyboard's one validation place: each Telegram limit on both sides, the CLI's and the wizard's forms alike."""
from __future__ import annotations

import pytest

from app.services.broadcast.content import keyboard
from app.services.broadcast.content.keyboard import KeyboardError, check, parse_cli, parse_text


def url(text="Go", target="https://example.com"):
    return {"kind": "url", "text": text, "url": target}


def refused(kb) -> KeyboardError:
    with pytest.raises(KeyboardError) as caught:
        check(kb)
    return caught.value


def test_a_multi_row_keyboard_of_every_kind_is_kept_in_order():
    kb = parse_cli(["url:Shop|https://example.com/shop?a=1|b", "copy:Code|SALE 20", "---",
                    "tap:I'm in|VIP|Noted!", "menu:Hours|9 to 17", "---", "tap:Later|later"])
    assert kb == {"rows": [
        [{"kind": "url", "text": "Shop", "url": "https://example.com/shop?a=1|b"},
         {"kind": "copy", "text": "Code", "copy": "SALE 20"}],
        [{"kind": "tap", "text": "I'm in", "tag": "vip", "answer": "Noted!"},
         {"kind": "menu", "text": "Hours", "answer": "9 to 17"}],
        [{"kind": "tap", "text": "Later", "tag": "later"}]]}
    assert [pos for pos, _ in keyboard.buttons(kb)] == [1, 2, 3, 4, 5]
    assert keyboard.url_positions(kb) == [1]
    rows = keyboard.markup_rows(kb, lambda pos: f"b.key:1.{pos}.AAAAAAAA")
    assert rows[0][1] == {"text": "Code", "copy_text": {"text": "SALE 20"}}
    assert rows[1] == [{"text": "I'm in", "callback_data": "b.key:1.3.AAAAAAAA"},
                       {"text": "Hours", "callback_data": "b.key:1.4.AAAAAAAA"}]


def test_the_wizard_text_writes_the_same_keyboard_as_the_cli():
    text = ("Shop - https://example.com/shop | Code - copy:SALE 20\n"
            "I'm in - tag:VIP:Noted! | Hours - menu:9 to 17\n\nnote: Tap below")
    assert keyboard.looks_like_builder(text)
    assert parse_text(text) == parse_cli(["url:Shop|https://example.com/shop", "copy:Code|SALE 20", "---",
                                          "tap:I'm in|VIP|Noted!", "menu:Hours|9 to 17", "note: Tap below"])
    assert parse_text("A - b - https://x.org")["rows"] == [[url("A - b", "https://x.org")]], "first known target"
    assert not keyboard.looks_like_builder("Visit | https://example.com"), "the single-button form stays"


def test_label_limits_both_sides():
    assert check({"rows": [[url("x" * 64)]]})
    assert refused({"rows": [[url("x" * 65)]]}).key == "key_err_label"
    assert refused({"rows": [[url("   ")]]}).key == "key_err_label"


def test_row_and_total_limits_both_sides():
    assert check({"rows": [[url()] * 8]})
    error = refused({"rows": [[url()], [url()] * 9]})
    assert (error.key, error.row, error.button) == ("key_err_row_full", 2, 9)
    assert check({"rows": [[url()] * 8] * 12 + [[url()] * 4]})  # 100 buttons
    assert refused({"rows": [[url()] * 8] * 12 + [[url()] * 5]}).key == "key_err_too_many"
    assert refused({"rows": []}).key == "key_err_none"


def test_an_empty_row_is_named():
    with pytest.raises(KeyboardError, match="row 2 is empty"):
        parse_cli(["url:A|https://a.org", "---", "---", "url:B|https://b.org"])
    with pytest.raises(KeyboardError, match="row 2 is empty"):
        parse_cli(["url:A|https://a.org", "---"])


def test_copy_text_limits_both_sides():
    assert check({"rows": [[{"kind": "copy", "text": "c", "copy": "x" * 256}]]})
    assert refused({"rows": [[{"kind": "copy", "text": "c", "copy": "x" * 257}]]}).key == "key_err_copy"
    assert refused({"rows": [[{"kind": "copy", "text": "c", "copy": ""}]]}).key == "key_err_copy"


def test_answer_limits_both_sides_and_a_menu_needs_one():
    assert check({"rows": [[{"kind": "menu", "text": "m", "answer": "x" * 200}]]})
    assert refused({"rows": [[{"kind": "menu", "text": "m", "answer": "x" * 201}]]}).key == "key_err_answer"
    assert refused({"rows": [[{"kind": "menu", "text": "m", "answer": " "}]]}).key == "key_err_answer"
    assert check({"rows": [[{"kind": "tap", "text": "t", "tag": "a", "answer": "x" * 200}]]})
    assert refused({"rows": [[{"kind": "tap", "text": "t", "tag": "a", "answer": "x" * 201}]]}).key == "key_err_answer"
    assert refused({"rows": [[{"kind": "tap", "text": "t", "tag": "a b"}]]}).key == "key_err_tag"


@pytest.mark.parametrize("target, problem", [("http://intranet", "btn_err_url_host"), ("ftp://x.org", "btn_err_url"),
                                             ("https://x.org/" + "a" * 500, "btn_err_url_long")])
def test_urls_are_checked_by_the_one_url_check(target, problem):
    error = refused({"rows": [[url(), url("B", target)]]})
    assert (error.key, error.row, error.button, error.values["problem"]) == ("key_err_url", 1, 2, problem)


def test_a_refusal_names_row_and_button_in_both_languages():
    with pytest.raises(KeyboardError) as caught:
        parse_text("A - https://a.org\nB - https://b.org | C - copy:" + "x" * 300)
    assert str(caught.value).startswith("row 2, button 2: the text to copy is 300 characters")
    assert caught.value.text("fa").startswith("ردیف 2، دکمهٔ 2: ")
    with pytest.raises(KeyboardError, match="row 1, button 2: the button's form is not understood"):
        parse_cli(["url:A|https://a.org", "link:B|https://b.org"])


def test_callback_data_of_a_real_job_fits_64_bytes(app):
    from app.services.audience import key_press
    data = key_press.callback_data(2**62, 100)
    assert len(data.encode()) <= 64 and key_press.parse_signed(data.split(":", 1)[1])[:2] == (2**62, 100)


def test_the_single_link_and_tap_buttons_become_the_first_rows():
    kb = keyboard.fold({"rows": [[url("B")]]}, "A", "https://a.org", {"text": "T", "tag": "t", "answer": None})
    assert kb["rows"] == [[url("A", "https://a.org")], [{"kind": "tap", "text": "T", "tag": "t"}], [url("B")]]
