"""Telegram's side and the operator's side of the deployment: updates, the cron line, the checks."""
from __future__ import annotations

import os
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from app.simulator.control import SimulatorControl
from app.simulator.updates import callback_update, message_update
from tests.deploy.stack import REPO, Database, DeployError, Layout, account_env, admin_connection, as_account, run

ADMIN_ID = 4242
MAIN_CHANNEL_ID = -1001234567890


class Telegram:
    """Updates into the webhook exactly as Telegram sends them: the simulator POSTs them, secret header and all."""

    def __init__(self, sim_url: str):
        self.sim_url = sim_url
        self.sim = SimulatorControl(sim_url).wait_ready()
        self._local = threading.local()

    def _control(self) -> SimulatorControl:
        if not hasattr(self._local, "control"):
            self._local.control = SimulatorControl(self.sim_url)
        return self._local.control

    def post(self, update: dict) -> dict:
        """Deliver one update; anything but 200 "handled" is a failure."""
        status, body = self._control().post_update(update)
        if status != 200 or not isinstance(body, dict) or body.get("outcome") != "handled":
            kind = next(k for k in update if k != "update_id")
            raise DeployError(f"webhook answered {status} {body!r} to a {kind} update")
        return body

    def start_users(self, user_ids: list[int], workers: int = 8) -> float:
        """Send /start from each user, several at once (as Telegram does); return the seconds taken."""
        started = time.monotonic()
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(lambda uid: self.post(message_update(uid, "/start", first_name=f"U{uid}")), user_ids))
        return time.monotonic() - started

    def last_message_id(self, chat_id: int) -> int:
        """Return the id of the bot's last message in a chat (the one whose buttons get tapped)."""
        sent = self.sim.deliveries("sendMessage", chat_id)
        if not sent:
            raise DeployError(f"the bot sent nothing to {chat_id}")
        return sent[-1]["message_id"]

    def tap(self, action: str) -> None:
        """Press the button for action ("w.aud:all") under the bot's last message to the admin.

        Wizard buttons carry their draft's token after the action, so the data is read off the button.
        """
        sent = self.sim.deliveries("sendMessage", ADMIN_ID)
        if not sent:
            raise DeployError(f"the bot sent nothing to {ADMIN_ID}")
        rows = (sent[-1].get("reply_markup") or {}).get("inline_keyboard", [])
        data = [b["callback_data"] for row in rows for b in row
                if b.get("callback_data", "").startswith(action + ":") or b.get("callback_data") == action]
        if not data:
            raise DeployError(f"the bot's last message offers no {action!r} button")
        self.post(callback_update(ADMIN_ID, data[0], ADMIN_ID, sent[-1]["message_id"]))

    def broadcast_wizard(self, text: str) -> int:
        """Walk the admin's wizard to a confirmed broadcast; return the draft's message id."""
        self.post(message_update(ADMIN_ID, "/broadcast", first_name="Admin"))
        draft = message_update(ADMIN_ID, text, first_name="Admin")
        self.post(draft)
        for data in ("w.no_button", "w.aud:all", "w.confirm"):
            self.tap(data)
        return draft["message"]["message_id"]

    def copies_of(self, draft_id: int) -> Counter:
        """Count the copies of the admin's draft each chat received."""
        return Counter(d["chat_id"] for d in self.sim.deliveries("copyMessage")
                       if d.get("from_chat_id") == ADMIN_ID and d.get("source_message_id") == draft_id)


class Sql:
    """Read-only looks (and one ageing UPDATE) at the app's database, as an operator's phpMyAdmin."""

    def __init__(self, db: Database):
        import pymysql.cursors

        self.conn = admin_connection(db.host, db.port)
        self.conn.select_db(db.name)
        self.cursor_class = pymysql.cursors.DictCursor

    def rows(self, sql: str, *args) -> list[dict]:
        with self.conn.cursor(self.cursor_class) as cur:
            cur.execute(sql, args)
            return list(cur.fetchall())

    def job(self, job_id: int | None = None) -> dict:
        """Return a job row (the newest if no id is given)."""
        if job_id is None:
            rows = self.rows("SELECT * FROM broadcast_jobs ORDER BY id DESC LIMIT 1")
        else:
            rows = self.rows("SELECT * FROM broadcast_jobs WHERE id = %s", job_id)
        if not rows:
            raise DeployError("no broadcast job in the database")
        return rows[0]

    def item_statuses(self, job_id: int) -> dict[int, str]:
        return {r["user_id"]: r["status"] for r in self.rows(
            "SELECT user_id, status FROM broadcast_job_items WHERE job_id = %s", job_id)}

    def age_lease(self, job_id: int) -> int:
        """Expire a dead pump's lease now instead of waiting out its 30 s."""
        with self.conn.cursor() as cur:
            return cur.execute("UPDATE broadcast_jobs SET lease_expires_at = '2000-01-01 00:00:00' "
                               "WHERE id = %s AND lease_token IS NOT NULL", (job_id,))

    def age_waiting(self, job_id: int, minutes: int) -> int:
        """Make cron's last run and the job's wait minutes old, instead of waiting them out."""
        with self.conn.cursor() as cur:
            cur.execute("UPDATE cron_watch SET last_cron_at = UTC_TIMESTAMP(6) - INTERVAL %s MINUTE", (minutes,))
            return cur.execute("UPDATE broadcast_jobs SET created_at = UTC_TIMESTAMP() - INTERVAL %s MINUTE, "
                               "started_at = UTC_TIMESTAMP() - INTERVAL %s MINUTE WHERE id = %s",
                               (minutes, minutes, job_id))

    def pump_runs(self) -> dict[str, dict]:
        """Return the recorded pump runs by source."""
        return {r["source"]: r for r in self.rows("SELECT * FROM pump_runs")}

    def close(self) -> None:
        self.conn.close()


# ---------------------------------------------------------------- cron, as the crontab line runs it

def crontab_command() -> str:
    """Return the command of the active line in cron/crontab.example (what goes after the five stars)."""
    lines = [line for line in (REPO / "cron" / "crontab.example").read_text().splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    if len(lines) != 1:
        raise DeployError(f"cron/crontab.example should have one active line, has {len(lines)}")
    return lines[0].split(None, 5)[5]


def write_cron_config(layout: Layout, pump_url: str, pump_token: str) -> None:
    """Write ~/.update_pack_pump.conf as the operator does: two lines, chmod 600, the account's."""
    path = layout.cron_conf
    path.write_text(f"URL={pump_url}\nTOKEN={pump_token}\n")
    os.chmod(path, 0o600)
    run(["chown", f"{layout.user}:{layout.group}", path])


class Cron:
    """Runs the crontab line as cron would: /bin/sh -c, as the account, in $HOME, cron's environment."""

    def __init__(self, layout: Layout):
        self.layout = layout
        self.command = crontab_command()
        self.runs: list[dict] = []

    def run_once(self) -> dict:
        log = self.layout.cron_log
        before = log.stat().st_size if log.exists() else 0
        started = time.monotonic()
        proc = as_account(self.layout, ["/bin/sh", "-c", self.command], account_env(self.layout),
                          cwd=self.layout.home, check=False, timeout=70)
        output = log.read_text(errors="replace")[before:] if log.exists() else ""
        result = {"rc": proc.returncode, "seconds": round(time.monotonic() - started, 2), "log": output.strip()}
        self.runs.append(result)
        # -q: a healthy run writes nothing; anything in the log is a failure line.
        if proc.returncode != 0 or output.strip():
            raise DeployError(f"cron run failed: rc={proc.returncode} log={output.strip()[-500:]!r}")
        return result

    def until_completed(self, sql: Sql, job_id: int, max_runs: int = 30, between=None) -> list[dict]:
        """Run the line until the job completes; between(i) runs after each unfinished run."""
        runs = []
        for i in range(max_runs):
            result = self.run_once()
            job = sql.job(job_id)
            runs.append({**result, "status": job["status"], "sent": job["sent_count"]})
            if job["status"] == "completed":
                return runs
            if job["status"] not in ("queued", "running"):
                raise DeployError(f"job {job_id} went {job['status']}: {job['pause_reason']}")
            if between is not None:
                between(i)
        raise DeployError(f"job {job_id} not completed after {max_runs} cron runs: {sql.job(job_id)}")


# ---------------------------------------------------------------- the checks

def check_exactly_once(tg: Telegram, sql: Sql, job_id: int, draft_id: int, receivers: set[int],
                       blocked: set[int]) -> dict:
    """Every receiver got the draft once (the admin twice: preview + broadcast); blocked users none."""
    job = sql.job(job_id)
    copies = tg.copies_of(draft_id)
    expected = Counter({uid: 1 for uid in receivers})
    expected[ADMIN_ID] += 1  # the preview
    problems = []
    if copies != expected:
        extra = {uid: n for uid, n in copies.items() if n != expected.get(uid)}
        missing = sorted(uid for uid in expected if uid not in copies)
        problems.append(f"deliveries differ: wrong counts {dict(list(extra.items())[:10])}, "
                        f"missing {missing[:10]} ({len(missing)})")
    if blocked & set(copies):
        problems.append(f"blocked users got copies: {sorted(blocked & set(copies))[:10]}")
    want = {"status": "completed", "total_count": len(receivers) + len(blocked), "sent_count": len(receivers),
            "skipped_count": len(blocked), "failed_count": 0, "unknown_count": 0}
    got = {key: job[key] for key in want}
    if got != want:
        problems.append(f"job counters {got} != {want}")
    if problems:
        raise DeployError(f"job {job_id}: " + "; ".join(problems))
    return {"job": job_id, **got, "deliveries": sum(copies.values())}


def check_at_most_once(tg: Telegram, sql: Sql, job_id: int, draft_id: int, receivers: set[int]) -> dict:
    """After a killed pump: sent items once, items lost in flight (unknown) at most once, no one twice."""
    job = sql.job(job_id)
    copies = tg.copies_of(draft_id)
    copies[ADMIN_ID] -= 1  # the preview
    items = sql.item_statuses(job_id)
    problems = []
    if job["status"] != "completed" or set(items) != receivers:
        problems.append(f"status {job['status']}, items for {len(items)} users, expected {len(receivers)}")
    twice = {uid: n for uid, n in copies.items() if n > 1}
    if twice:
        problems.append(f"users got the broadcast twice: {twice}")
    wrong = [uid for uid, status in items.items() if status == "sent" and copies.get(uid) != 1]
    if wrong:
        problems.append(f"items marked sent without exactly one delivery: {wrong[:10]}")
    unknown = [uid for uid, status in items.items() if status == "unknown"]
    others = Counter(status for status in items.values() if status not in ("sent", "unknown"))
    if others:
        problems.append(f"unexpected item states {dict(others)}")
    if problems:
        raise DeployError(f"job {job_id}: " + "; ".join(problems))
    return {"job": job_id, "status": job["status"], "total_count": job["total_count"],
            "sent_count": job["sent_count"], "unknown_count": job["unknown_count"],
            "unknown_delivered": sum(1 for uid in unknown if copies.get(uid) == 1),
            "unknown_not_delivered": sum(1 for uid in unknown if not copies.get(uid)),
            "deliveries": sum(n for n in copies.values() if n > 0)}
