"""Buttons under a job's progress message: continue, cancel, pause, resume.

Each answers the button first and leaves slow work (pumps) to after commit;
double taps and replays are harmless because every engine call is a guarded
state transition.
"""
from __future__ import annotations

from collections.abc import Callable

from app.bot import history
from app.bot.buttons import button
from app.bot.context import BotContext
from app.models.broadcast import TERMINAL
from app.services import audit
from app.services.broadcast.jobs import control
from app.services.broadcast.reporting import progress
from app.services.broadcast.sending import runner


@button("w.continue")
def on_continue(ctx: BotContext, job_id: int) -> None:
    """Run a few more bounded pumps (a lease miss only shows the counters)."""
    if not _job_is_open(ctx, job_id):
        return
    ctx.answer("cb_working")
    ctx.after_commit(lambda: runner.run_interactive(
        job_id, settings=ctx.settings, outbox=ctx.outbox, chat_id=ctx.chat_id, lang=ctx.lang))


@button("w.cancel_job")
def on_cancel_job(ctx: BotContext, job_id: int) -> None:
    """Cancel now; in-flight sends finish, no new batch is claimed."""
    _control(ctx, job_id, lambda: control.cancel_job(job_id, actor=_actor(ctx)), "cb_cancelled")


@button("w.pause")
def on_pause(ctx: BotContext, job_id: int) -> None:
    """Pause the job; the next queued job may run meanwhile."""
    _control(ctx, job_id, lambda: control.pause_job(job_id, ctx.text("reason_admin"), actor=_actor(ctx)), "cb_paused")


@button("w.resume")
def on_resume(ctx: BotContext, job_id: int) -> None:
    """Resume a paused job (running, or queued behind another)."""
    _control(ctx, job_id, lambda: control.resume_job(job_id, actor=_actor(ctx)) is not None, "cb_resumed")


def _actor(ctx: BotContext) -> str:
    """Return the audit actor of the admin pressing the button."""
    return audit.admin_actor(ctx.user_id)


def _job_is_open(ctx: BotContext, job_id: int) -> bool:
    """Answer and return False for an unknown or ended job."""
    job = control.get_job(job_id)
    if job is None:
        ctx.answer("cb_unknown_job")
        return False
    if job.status in TERMINAL:
        ctx.answer("cb_finished")
        return False
    return True


def _control(ctx: BotContext, job_id: int, change: Callable[[], bool], done_key: str) -> None:
    """After commit: apply the change, answer, and re-render the progress message."""
    if not _job_is_open(ctx, job_id):
        return

    def run() -> None:
        changed = change()
        job = control.get_job(job_id)
        ended = not changed and job is not None and job.status in TERMINAL
        ctx.end_transaction()
        ctx.answer("cb_finished" if ended else done_key)
        progress.refresh_progress(job_id, outbox=ctx.outbox, lang=ctx.lang)
        history.rerender(ctx, job_id)  # pressed under a job view: show its new state and audit entry

    ctx.after_commit(run)
