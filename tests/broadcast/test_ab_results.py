"""An A/B test in the results picture and `broadcast report --json`: the versions' numbers are the ledger's."""
from __future__ import annotations

import io
import json
import math
from datetime import timedelta

import numpy as np
import pytest
from matplotlib import image
from matplotlib.colors import to_rgb
from matplotlib.text import Text
from sqlalchemy import func, select, update

from app.extensions import db
from app.models import BroadcastJob, BroadcastJobItem
from app.repository.db_clock import db_utcnow
from app.services.broadcast.ab import split, winner
from app.services.broadcast.reporting import ab_chart
from app.services.broadcast.reporting.chart import figure, render_png
from app.services.broadcast.reporting.results import compute
from app.texts import t
from tests.broadcast.helpers import create_users, engine_settings

I = BroadcastJobItem  # noqa: E741
CLICKS = {"A": 6, "B": 24, "C": 8}  # of 60, 60 and 50 delivered: CTR 10 %, 40 %, 16 %


@pytest.fixture
def tracked(app):
    """The app with PUBLIC_URL set: an A/B test by CTR is allowed."""
    app.config["PUBLIC_URL"] = "https://bot.example.com"
    yield app
    app.config["PUBLIC_URL"] = None


def finished_test(clicks=CLICKS, failed=10) -> int:
    """Create a 3-version test of 60 % of 300 users (60 each), fail `failed` of C's copies, deliver the rest and
    record these unique clicks per version."""
    create_users(300)
    job = split.create_test(audience="all", texts=["نسخه الف", "نسخه ب", "نسخه ج"], share=60,
                            wait=timedelta(hours=2), button_text="ببین", button_url="https://example.com/o",
                            created_by=1001, settings=engine_settings())
    now = db_utcnow()
    db.session.execute(update(I).where(I.job_id == job.id).values(status="sent", sent_at=now))
    lost = db.session.execute(select(I.id).where(I.job_id == job.id, I.variant == "C").order_by(I.id.desc())
                              .limit(failed)).scalars().all()
    db.session.execute(update(I).where(I.id.in_(lost)).values(status="failed", sent_at=None))
    for letter, n in clicks.items():
        ids = db.session.execute(select(I.id).where(I.job_id == job.id, I.variant == letter)
                                 .order_by(I.id).limit(n)).scalars().all()
        db.session.execute(update(I).where(I.id.in_(ids)).values(clicked_at=now + timedelta(minutes=3)))
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job.id).values(
        status="completed", sent_count=180 - failed, failed_count=failed, started_at=now, finished_at=now))
    db.session.commit()
    return job.id


def ledger(job_id: int) -> dict[str, tuple[int, int]]:
    """Return {letter: (delivered, unique clicks)} straight from the items."""
    rows = db.session.execute(select(I.variant, func.count(), func.count(I.clicked_at))
                              .where(I.job_id == job_id, I.status == "sent").group_by(I.variant)).all()
    db.session.commit()
    return {letter: (n, c) for letter, n, c in rows}


def z_test_p(c1, n1, c2, n2) -> float:
    """The pooled two-proportion z-test's two-sided p-value, written out here independently."""
    p = (c1 + c2) / (n1 + n2)
    z = (c1 / n1 - c2 / n2) / math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
    return math.erfc(abs(z) / math.sqrt(2))


def test_the_json_has_each_versions_numbers_from_the_ledger(tracked, runner):
    job_id = finished_test()
    result = runner.invoke(args=["broadcast", "report", str(job_id), "--json"])
    assert result.exit_code == 0, result.output
    ab = json.loads(result.stdout)["ab"]
    counted = ledger(job_id)
    assert counted == {"A": (60, 6), "B": (60, 24), "C": (50, 8)}
    assert [(v["version"], v["delivered"], v["clicks"], v["ctr"]) for v in ab["versions"]] == [
        (letter, n, c, round(c / n, 4)) for letter, (n, c) in sorted(counted.items())]
    assert ab["test"]["name"].startswith("two-proportion z-test")
    assert [v["recipients"] for v in ab["versions"]] == [60, 60, 60]
    assert ab["test"]["p_value"] == round(z_test_p(24, 60, 8, 50), 4) == 0.0058
    assert (ab["leader"], ab["test"]["significant"], ab["share_percent"]) == ("B", True, 60)
    # The same numbers as `broadcast ab --json`: one function computes both.
    assert ab == json.loads(runner.invoke(args=["broadcast", "ab", str(job_id), "--json"]).stdout)
    assert json.loads(result.stdout)["ab_of"] is None


def bars(png: bytes) -> list[tuple[str, int]]:
    """Find the A/B panel's bars in the decoded picture, top to bottom: (which colour, width in pixels)."""
    pixels = image.imread(io.BytesIO(png), format="png")[:, :, :3]
    found = []
    for name, colour in (("winner", ab_chart.WINNER), ("other", ab_chart.OTHER)):
        mask = np.all(np.abs(pixels - np.array(to_rgb(colour))) < 0.01, axis=2)
        for row in np.flatnonzero(mask.any(axis=1)):
            found.append((int(row), name, int(mask[row].sum())))
    found.sort()
    runs: list[list[tuple[int, str, int]]] = []
    for row, name, width in found:
        if runs and row == runs[-1][-1][0] + 1 and name == runs[-1][-1][1]:
            runs[-1].append((row, name, width))
        else:
            runs.append([(row, name, width)])
    return [(run[len(run) // 2][1], run[len(run) // 2][2]) for run in runs]


@pytest.mark.parametrize("lang", ["fa", "en"])
def test_the_pictures_bars_are_each_versions_ctr(tracked, lang):
    job_id = finished_test()
    png = render_png(compute(job_id), lang)
    assert image.imread(io.BytesIO(png), format="png").shape[:2] == (1250, 1000)  # still one unscaled photo
    found = bars(png)
    assert [name for name, _ in found] == ["other", "winner", "other"]  # A, B (the winner), C from the top
    widths = [width for _, width in found]
    # CTR 10 %, 40 %, 16 % (not the clicks' 6 : 24 : 8): the bars stand 1 : 4 : 1.6, a pixel or two of rounding.
    assert widths[0] > 30 and abs(widths[1] - 4 * widths[0]) <= 4 and abs(widths[1] - 2.5 * widths[2]) <= 4


def texts_of(job_id: int, lang: str) -> list[str]:
    """Return every text drawn in the picture."""
    return [text.get_text() for text in figure(compute(job_id), lang).findobj(Text)]


@pytest.mark.parametrize("lang", ["fa", "en"])
def test_the_panel_names_the_test_its_p_value_and_the_winner(tracked, lang):
    drawn = texts_of(finished_test(), lang)
    assert t("chart_ab_test", lang, p=t("ab_p", lang, p="0.0058")) + "\n" + t("chart_ab_winner", lang, v="B") in drawn
    bar = t("chart_ab_bar", lang, ctr="40.0%", clicks="24", delivered="60")
    if lang == "fa":
        bar = t("chart_ab_bar", lang, ctr="۴۰٫۰٪", clicks="۲۴", delivered="۶۰")
    assert bar in drawn


def test_without_a_clear_leader_the_panel_says_so(tracked):
    job_id = finished_test({"A": 10, "B": 12, "C": 11})
    drawn = texts_of(job_id, "en")
    p = round(z_test_p(12, 60, 11, 50), 4)
    assert (t("chart_ab_test", "en", p=t("ab_p_weak", "en", p=f"{p:.4f}")) + "\n"
            + t("chart_ab_no_winner", "en")) in drawn
    assert [name for name, _ in bars(render_png(compute(job_id), "en"))] == ["other"] * 3  # no bar is the winner's


def test_the_winner_jobs_picture_names_its_test(tracked):
    test_id = finished_test({"A": 6, "B": 12, "C": 12}, failed=0)  # a tie at the top: an admin picks
    assert [name for name, _ in bars(render_png(compute(test_id), "en"))] == ["other"] * 3
    made = winner.pick(test_id, "C", actor="test", settings=engine_settings())
    db.session.execute(update(I).where(I.job_id == made).values(status="sent", sent_at=db_utcnow()))
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == made).values(status="completed", sent_count=120))
    db.session.commit()
    results = compute(made)
    assert (results.ab, results.ab_of) == (None, {"test": test_id, "version": "C"})
    title = t("chart_title", "en", id=made, status=t("status_completed", "en"))
    assert f"{title} · {t('chart_ab_of', 'en', test=test_id, v='C')}" in texts_of(made, "en")
    assert bars(render_png(results, "en")) == []  # a winner job is no test: no versions panel
    # The test's own panel now names the chosen version as the winner.
    assert [name for name, _ in bars(render_png(compute(test_id), "en"))] == ["other", "other", "winner"]


@pytest.mark.parametrize(("lang", "shown"), [("en", "#1062"), ("fa", "#۱۰۶۲")])
def test_ids_are_drawn_as_the_bot_writes_them_without_a_thousands_separator(tracked, lang, shown):
    # Ids pass 1,000 on any real bot (and on MariaDB within one test run): "#1,062" names no broadcast.
    from dataclasses import replace

    results = replace(compute(finished_test()), job_id=1062, ab_of={"test": 1062, "version": "B"})
    title = next(text for text in texts_of_results(results, lang) if shown in text)
    assert title.count(shown) == 2 and "," not in title and "٬" not in title


def texts_of_results(results, lang: str) -> list[str]:
    """Return every text drawn in the picture of these results."""
    return [text.get_text() for text in figure(results, lang).findobj(Text)]
