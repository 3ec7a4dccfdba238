"""A keyboard in the results picture: each counted button's bar and numbers are its counters, the busiest first."""
from __future__ import annotations

import io
from datetime import timedelta

import numpy as np
import pytest
from matplotlib import image
from matplotlib.colors import to_rgb
from matplotlib.text import Text
from sqlalchemy import update

from app.extensions import db
from app.models import BroadcastJob, BroadcastJobItem
from app.models.broadcast_button import BroadcastButton
from app.repository.db_clock import db_utcnow
from app.services.broadcast.ab import split
from app.services.broadcast.content import keyboard
from app.services.broadcast.reporting import ab_chart, key_chart
from app.services.broadcast.reporting.chart import KEY_AB_BARS, KEY_BARS, figure, render_png
from app.services.broadcast.reporting.chart_style import number
from app.services.broadcast.reporting.results import compute
from app.texts import t
from tests.broadcast.helpers import create_users, engine_settings
from tests.broadcast.keyed_job import KB, big_keyboard, counters_of, keyed_job

COLOURS = {"url": key_chart.CLICKS, "tap": key_chart.TAP, "menu": key_chart.MENU, "first": key_chart.FIRST}


def key_bars(png: bytes) -> list[tuple[str, int, int, int]]:
    """Find the keyboard panel's bars, top to bottom: (kind, width, first clicks' width, height) in pixels."""
    pixels = image.imread(io.BytesIO(png), format="png")[:, :, :3]
    masks = {kind: np.all(np.abs(pixels - np.array(to_rgb(c))) < 0.01, axis=2) for kind, c in COLOURS.items()}
    bar_rows = np.flatnonzero(np.any([m.any(axis=1) for m in masks.values()], axis=0))
    runs: list[list[int]] = []
    for row in bar_rows:
        if runs and row == runs[-1][-1] + 1:
            runs[-1].append(int(row))
        else:
            runs.append([int(row)])
    found = []
    for rows in runs:
        kind = max(("url", "tap", "menu"), key=lambda k: masks[k][rows].sum())
        whole = masks[kind][rows].sum(axis=1) + (masks["first"][rows].sum(axis=1) if kind == "url" else 0)
        found.append((kind, int(whole.max()), int(masks["first"][rows].sum(axis=1).max()), len(rows)))
    return found


def expected(job_id: int, kb: dict) -> list[tuple[str, int, int]]:
    """Return the counted buttons from the database's counters, busiest first: (kind, count, first clicks)."""
    counted = counters_of(job_id)
    rows = []
    for pos, b in keyboard.buttons(kb):
        clicks, first, presses = counted[pos]
        if b["kind"] != "copy":
            rows.append((pos, b["kind"], clicks if b["kind"] == "url" else presses, first if b["kind"] == "url" else 0))
    rows.sort(key=lambda r: (-r[2], r[0]))
    return [(kind, n, first) for _, kind, n, first in rows]


def assert_bars_are_the_counters(png: bytes, want: list[tuple[str, int, int]]) -> None:
    """Each bar is its button's kind, its length its count, a url bar's dark part its first clicks (±2 px)."""
    found = key_bars(png)
    assert [kind for kind, *_ in found] == [kind for kind, *_ in want]
    scale = found[0][1] / want[0][1]  # pixels per click or press, from the busiest bar
    for (kind, width, first, _), (_, n, n_first) in zip(found, want, strict=True):
        assert abs(width - n * scale) <= 2, (kind, width, n, scale)
        assert abs(first - n_first * scale) <= 2, (kind, first, n_first, scale)


@pytest.mark.parametrize("lang", ["fa", "en"])
def test_each_buttons_bar_is_its_counters_busiest_first(app, lang):
    job_id = keyed_job()
    png = render_png(compute(job_id), lang)
    assert image.imread(io.BytesIO(png), format="png").shape[:2] == (1250, 1000)  # still one unscaled photo
    want = expected(job_id, KB)
    assert want == [("menu", 12, 0), ("url", 9, 4), ("tap", 6, 0), ("url", 3, 2)]  # the copy button counts nothing
    assert_bars_are_the_counters(png, want)


def texts_of(job_id: int, lang: str) -> list[str]:
    """Return every text drawn in the picture."""
    return [text.get_text() for text in figure(compute(job_id), lang).findobj(Text)]


@pytest.mark.parametrize("lang, lines", [
    ("en", ["“Hours” (menu): 12 presses", "“Shop” (link): 9 clicks, 4 first clicks", "“VIP” (tag): 6 presses",
            "“Blog” (link): 3 clicks, 2 first clicks"]),
    ("fa", ["«Hours» (منو): ۱۲ بار زده شد", "«Shop» (لینک): ۹ کلیک، ۴ کلیک اول", "«VIP» (برچسب): ۶ بار زده شد",
            "«Blog» (لینک): ۳ کلیک، ۲ کلیک اول"]),
])
def test_each_bar_names_its_button_its_kind_and_its_numbers(app, lang, lines):
    drawn = [text.lstrip("\u200e\u200f") for text in texts_of(keyed_job(), lang)]
    assert [text for text in drawn if text in lines] == lines  # in this order, the busiest at the top
    assert t("chart_keys_title", lang) in drawn
    assert not any(text.startswith("+") for text in drawn), "every counted button is shown: nothing more to say"


def drawn_texts(ax) -> list[Text]:
    """Return an axes' texts as drawn: its own, its title and axis labels, and the tick labels within its limits."""
    # A panel's title stands on its reading side (chart_style.style): matplotlib keeps one Text per side.
    texts = [*ax.texts, ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label]
    for ticks, labels, limits in ((ax.get_xticks(), ax.get_xticklabels(), ax.get_xlim()),
                                  (ax.get_yticks(), ax.get_yticklabels(), ax.get_ylim())):
        low, high = sorted(limits)
        texts += [label for at, label in zip(ticks, labels, strict=True) if low <= at <= high]
    return [text for text in texts if text.get_visible() and text.get_text().strip("\u200e\u200f")]


def legible(fig, lang: str) -> None:
    """Assert the keyboard panel's texts stay inside the picture, and no text covers another panel's or its own."""
    fig.canvas.draw()  # lays out every label as the PNG has it
    renderer = fig.canvas.get_renderer()
    groups = [drawn_texts(ax) for ax in fig.axes] + [[text for text in fig.texts if text.get_text()]]
    [panel] = [group for group in groups if any(text.get_text() == t("chart_keys_title", lang) for text in group)]
    boxes = [[(text.get_text(), text.get_window_extent(renderer)) for text in group] for group in groups]
    for text, box in boxes[groups.index(panel)]:
        assert 0 <= box.x0 and box.x1 <= fig.bbox.width and 0 <= box.y0 and box.y1 <= fig.bbox.height, (text, box)
    for n, group in enumerate(boxes):
        others = [pair for m, other in enumerate(boxes) if m > n for pair in other]
        if groups[n] is panel:  # within the keyboard's panel too: each line clear of the next and of the ticks
            others += group
        for text, box in group:
            covered = [other for other, b in others if box.overlaps(b) and (other, b) != (text, box)]
            assert not covered, (text, covered)


def big_job() -> tuple[int, dict]:
    """A broadcast with the largest keyboard: 100 buttons of 64-character labels, every count different."""
    kb = big_keyboard()
    kinds = dict(keyboard.buttons(kb))
    counters = {pos: (pos * 3, pos, 0) if kinds[pos]["kind"] == "url" else (0, 0, pos * 2) for pos in kinds}
    return keyed_job(kb, counters, delivered=60), kb


@pytest.mark.parametrize("lang", ["fa", "en"])
def test_a_hundred_buttons_show_the_busiest_and_say_how_many_more(app, lang):
    job_id, kb = big_job()
    results = compute(job_id)
    png = render_png(results, lang)
    assert image.imread(io.BytesIO(png), format="png").shape[:2] == (1250, 1000)
    want = expected(job_id, kb)
    assert len(want) == 75  # 25 of the 100 are copy buttons
    assert_bars_are_the_counters(png, want[:KEY_BARS])
    assert min(height for *_, height in key_bars(png)) >= 12, "each bar stays a readable row"
    fig = figure(results, lang)
    drawn = [text.get_text().lstrip("\u200e\u200f") for text in fig.findobj(Text)]
    assert t("chart_keys_more", lang, n=number(75 - KEY_BARS, lang)) in drawn
    # The busiest is #100, a link of 300 clicks: its 64-character label is cut to 32 with an ellipsis.
    label = dict(keyboard.buttons(kb))[100]["text"]
    top = t("key_stat_url", lang, text=label[:31].rstrip() + "…", kind=t("key_kind_url", lang),
            clicks=number(300, lang), first=number(100, lang))
    assert top in drawn
    legible(fig, lang)


@pytest.fixture
def tracked(app):
    """The app with PUBLIC_URL set: an A/B test by CTR is allowed."""
    app.config["PUBLIC_URL"] = "https://bot.example.com"
    yield app
    app.config["PUBLIC_URL"] = None


@pytest.mark.parametrize("lang", ["fa", "en"])
def test_an_ab_test_with_a_keyboard_shows_both_panels(tracked, lang):
    create_users(100)
    kb = big_keyboard()
    job = split.create_test(audience="all", texts=["الف", "ب"], share=50, wait=timedelta(hours=2), button_text=None,
                            button_url=None, created_by=1001, settings=engine_settings(), kb=kb)
    now = db_utcnow()
    db.session.execute(update(BroadcastJobItem).where(BroadcastJobItem.job_id == job.id).values(
        status="sent", sent_at=now))
    db.session.execute(update(BroadcastJobItem).where(BroadcastJobItem.job_id == job.id,
                                                      BroadcastJobItem.user_id % 4 == 0).values(clicked_at=now))
    for pos in range(1, 101):
        db.session.execute(update(BroadcastButton).where(BroadcastButton.job_id == job.id,
                                                         BroadcastButton.position == pos)
                           .values(clicks=pos, first_clicks=0, presses=pos))
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job.id).values(
        status="completed", sent_count=50, started_at=now, finished_at=now))
    db.session.commit()
    results = compute(job.id)
    png = render_png(results, lang)
    assert image.imread(io.BytesIO(png), format="png").shape[:2] == (1250, 1000)
    assert_bars_are_the_counters(png, expected(job.id, kb)[:KEY_AB_BARS])
    pixels = image.imread(io.BytesIO(png), format="png")[:, :, :3]
    versions = np.all(np.abs(pixels - np.array(to_rgb(ab_chart.OTHER))) < 0.01, axis=2).any(axis=1).sum()
    assert versions > 20, "the versions' bars are drawn too"
    legible(figure(results, lang), lang)
