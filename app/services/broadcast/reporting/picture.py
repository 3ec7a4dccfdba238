"""Make a results picture off the caller's thread and send it as a photo, after the messages it follows.

A webhook request or a pump only queues the work and returns: one thread per
process computes the numbers and has a short-lived child process draw them
(reporting.drawing: a web worker never loads matplotlib; one picture at a
time, so two admins' taps never draw in parallel on a two-core host), then
hands the photo to the process's late outbox, which sends it at low priority
(a free bot-wide slot: replies and broadcast sends go first) and flushes it at
the process's exit. With RESULTS_PICTURE off, or without matplotlib (an
optional extra), the chats get the numbers as one line of text instead.
"""
from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future, wait

from flask import current_app

from app.services.broadcast.reporting import drawing
from app.services.broadcast.reporting.drawing import PicturesMissing, render_png
from app.services.broadcast.reporting.numbers_line import numbers_line
from app.services.broadcast.reporting.results import NoResults, compute
from app.texts import t

log = logging.getLogger(__name__)
# Pictures waiting or being drawn, at most: a flood of taps is refused, not queued for minutes.
MAX_WAITING = 20
# The picture follows the summary: it waits this long at most for the summary's send to be answered.
AFTER_SECONDS = 15.0

_lock = threading.Lock()
_waiting: set[tuple[int, int]] = set()
_idle = threading.Condition(_lock)
# The picture thread lives while pictures wait and ends when none does: an idle web worker keeps no thread
# for it (NPROC counts threads). Not a daemon: a command's exit waits for its pictures, then flushes them.
_tasks: deque[Callable[[], None]] = deque()
_runner: threading.Thread | None = None


def queue(job_id: int, chats: dict[int, str], *, after: Iterable[Future] = (), tell_failure: bool = False) -> bool:
    """Queue job_id's picture for each chat (in its language); False when one is already on its way or too many wait.

    after: sends the photo must follow (the summary); tell_failure: a chat that
    asked for it hears when it cannot be drawn (the summary's picture fails quietly).
    """
    keys = {(job_id, chat) for chat in chats}
    with _lock:
        if not keys or keys & _waiting or len(_waiting) + len(keys) > MAX_WAITING:
            return False
        _waiting.update(keys)
        app = current_app._get_current_object()
        _tasks.append(lambda: _run(app, job_id, dict(chats), list(after), tell_failure, keys))
        _start_runner()
    return True


def _start_runner() -> None:
    """Start the picture thread unless it runs (caller holds the lock)."""
    global _runner
    if _runner is None:
        _runner = threading.Thread(target=_drain, name="results-picture")
        _runner.start()


def _drain() -> None:
    """Run the queued pictures one at a time; end the thread when none is left."""
    global _runner
    while True:
        with _lock:
            if not _tasks:
                _runner = None
                return
            task = _tasks.popleft()
        task()


def idle(timeout: float) -> bool:
    """Wait until no picture is waiting or being drawn (tests, a command about to exit); False on timeout."""
    with _idle:
        return _idle.wait_for(lambda: not _waiting, timeout=timeout)


def _run(app, job_id: int, chats: dict[int, str], after: list[Future], tell_failure: bool, keys: set) -> None:
    """Draw and send, in the app's context; a failure is logged (and told when asked), never raised."""
    try:
        with app.app_context():
            _deliver(job_id, chats, after, tell_failure)
    except Exception:
        log.exception("results picture of job %s could not be sent", job_id)
    finally:
        with _idle:
            _waiting.difference_update(keys)
            _idle.notify_all()


def drawable() -> bool:
    """Tell whether this app draws pictures: RESULTS_PICTURE is on and matplotlib is installed."""
    return bool(current_app.config.get("RESULTS_PICTURE", True)) and drawing.available()


def _deliver(job_id: int, chats: dict[int, str], after: list[Future], tell_failure: bool) -> None:
    """Compute the numbers once, draw once per language, then queue one photo per chat on the late outbox."""
    from app.services.settings import load_settings
    from app.services.telegram_factory import get_client, late_outbox

    outbox = late_outbox(get_client(load_settings()))
    pictures = None
    try:
        results = compute(job_id)
        if drawable():
            pictures = {lang: render_png(results, lang) for lang in set(chats.values())}
    except NoResults as exc:
        log.info("no results picture of job %s: %s", job_id, exc)
        return
    except PicturesMissing:
        log.warning("results picture of job %s: matplotlib is not installed (requirements-pictures.txt)", job_id)
    except Exception:
        log.exception("results picture of job %s failed", job_id)
        if tell_failure:
            for chat, lang in chats.items():
                outbox.send(chat, t("chart_failed", lang, id=job_id))
        return
    wait(after, timeout=AFTER_SECONDS)
    for chat, lang in chats.items():
        if pictures is None:  # the numbers as text, with how to add pictures when they are on but not installed
            hint = bool(current_app.config.get("RESULTS_PICTURE", True))
            outbox.send(chat, numbers_line(results, lang, hint=hint))
        else:
            outbox.photo(chat, pictures[lang], caption=t("chart_caption", lang, id=job_id), priority="low")
