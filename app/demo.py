"""The demo: the whole product on the embedded default, against the simulated Bot API.

python -m app.demo [--users N] — SQLite in the instance folder, the simulated
Bot API on loopback with realistic latency and limits, users registered
through the real webhook (some blocked), a broadcast started through the
admin wizard, drained by pumps as cron would, and a summary checked against
the simulator's own delivery record.
"""
from __future__ import annotations

import argparse
import base64
import logging
import os
import random
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import requests
from werkzeug.serving import make_server

from app.simulator import SimulatorServer
from app.simulator import updates as U

TOKEN = "424242:DEMO-token-not-a-real-one"
SECRET = "demo-webhook-secret"
PUMP_TOKEN = "demo-pump-token"
PICTURES_EXTRA = "requirements-pictures.txt"  # named in the numbers' line the admin gets without matplotlib
ADMIN = 1001
CHANNEL = -1001000000001
FIRST_USER = 7_000_000_000
# Telegram's bot-wide limit, enforced by the simulator and named in the story.
TELEGRAM_RATE = 30
# /start updates posted at once, as Telegram delivers to a busy bot's webhook.
REGISTER_THREADS = 8
# A pump call answers after its tick plus its last writes; still silent this much later, it is stuck.
PUMP_ANSWER_SLACK = 30
DEFAULT_DB = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "instance", "demo.sqlite3")
TEXT = "📢 <b>نسخه‌ی جدید آپدیت پک منتشر شد!</b>\nبرای دریافت روی دکمه بزنید. 🎉"


def say(text: str) -> None:
    """Print one line of the demo's story."""
    print(text, flush=True)


def bar(done: int, total: int, width: int = 30) -> str:
    """Render a terminal progress bar."""
    filled = int(width * done / total) if total else width
    return "█" * filled + "░" * (width - filled)


class Progress:
    """One progress line: redrawn in place on a terminal; elsewhere (a pipe, a CI log) plain lines, throttled.

    `\r` only makes sense to a terminal: in a file or a log each redraw would pile up on one line.
    """

    def __init__(self, stream=None, every: float = 2.0, clock=time.monotonic):
        self.stream = stream if stream is not None else sys.stdout
        self.tty = self.stream.isatty()
        self.every = every
        self.clock = clock
        self.last: float | None = None
        self.pending = ""

    def update(self, line: str) -> None:
        """Show line now on a terminal; elsewhere at most one line per `every` seconds."""
        if self.tty:
            print(f"\r{line}", end="", file=self.stream, flush=True)
            return
        now = self.clock()
        if self.last is None or now - self.last >= self.every:
            print(line, file=self.stream, flush=True)
            self.last, self.pending = now, ""
        else:
            self.pending = line

    def end(self) -> None:
        """Finish the line: a terminal's newline, or the last update the throttle held back."""
        if self.tty:
            print(file=self.stream, flush=True)
        elif self.pending:
            print(self.pending, file=self.stream, flush=True)
        self.pending = ""


def start_app(sim: SimulatorServer, db_path: str):
    """Create the app on a fresh SQLite file, migrate it, and serve it on loopback."""
    from flask_migrate import upgrade

    from app import create_app

    if os.path.exists(db_path):
        os.remove(db_path)
    app = create_app({
        "SQLALCHEMY_DATABASE_URI": "sqlite:///" + db_path, "TELEGRAM_BOT_TOKEN": TOKEN,
        "TELEGRAM_API_BASE_URL": sim.base_url, "WEBHOOK_SECRET": SECRET, "PUMP_TOKEN": PUMP_TOKEN,
        "ADMIN_IDS": frozenset({ADMIN}), "MAIN_CHANNEL_ID": CHANNEL,
        "LOG_LEVEL": os.environ.get("LOG_LEVEL", "WARNING"),
    })
    with app.app_context():
        upgrade()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no access line per request
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return app, server, f"http://127.0.0.1:{server.server_port}"


def register_users(sim: SimulatorServer, n: int) -> list[int]:
    """Deliver /start for n users through the real webhook, 8 at a time."""
    ids = list(range(FIRST_USER, FIRST_USER + n))
    names = ["علی", "Sara", "رضا", "مریم 🌸", "John", "زهرا", "Mohammad", "نگار ✨"]
    done = 0
    lock = threading.Lock()
    progress = Progress()

    def start(uid: int) -> None:
        nonlocal done
        lang = "en" if uid % 5 == 0 else "fa"
        status, _ = sim.post_update(U.message_update(uid, "/start", first_name=names[uid % len(names)],
                                                     language_code=lang))
        if status != 200:
            raise RuntimeError(f"webhook answered {status} for /start of {uid}")
        with lock:
            done += 1
            if done % 50 == 0 or done == n:
                progress.update(f"  registering  {bar(done, n)} {done}/{n}")

    with ThreadPoolExecutor(REGISTER_THREADS) as pool:
        list(pool.map(start, ids))
    progress.end()
    return ids


def shape_audience(sim: SimulatorServer, ids: list[int], rng: random.Random) -> tuple[set, set]:
    """Some users block the bot (half of them tell us), some join the channel."""
    blocked = set(rng.sample(ids, max(1, len(ids) // 25)))
    told = set(list(blocked)[: len(blocked) // 2])
    for uid in blocked:
        sim.block(uid)
    for uid in told:
        sim.post_update(U.my_chat_member_update(uid, "member", "kicked"))
    for uid in rng.sample(ids, len(ids) // 3):
        sim.post_update(U.chat_member_update(CHANNEL, uid, "left", "member"))
    return blocked, told


def last_bot_button(sim: SimulatorServer, action: str) -> tuple[int, str]:
    """Return (message id, callback data) of the newest button to the admin for action ("w.aud:all").

    Wizard buttons carry their draft's token after the action, so the data is read off the button.
    """
    for d in reversed(sim.deliveries(chat_id=ADMIN)):
        for row in (d.get("reply_markup") or {}).get("inline_keyboard", []):
            for button in row:
                if button.get("callback_data", "").startswith(action + ":"):
                    return d["message_id"], button["callback_data"]
    raise RuntimeError(f"the bot never offered {action!r}; deliveries: {sim.deliveries(chat_id=ADMIN)[-3:]}")


def run_wizard(sim: SimulatorServer) -> int:
    """Drive the admin wizard as Telegram would; return the delivery count before confirm."""
    def send(update):
        status, body = sim.post_update(update)
        if status != 200:
            raise RuntimeError(f"webhook answered {status}: {body}")

    send(U.message_update(ADMIN, "/start", first_name="Admin"))
    send(U.message_update(ADMIN, "/broadcast", first_name="Admin"))
    send(U.message_update(ADMIN, TEXT, first_name="Admin"))
    send(U.message_update(ADMIN, "دانلود | https://example.com/update-pack", first_name="Admin"))
    audience_on, audience = last_bot_button(sim, "w.aud:all")
    send(U.callback_update(ADMIN, audience, ADMIN, audience_on))
    say("   admin confirms; the request answers the tap at once and runs a few bounded pumps…")
    confirm_on, confirm = last_bot_button(sim, "w.confirm")
    mark = len(sim.deliveries())
    send(U.callback_update(ADMIN, confirm, ADMIN, confirm_on))
    return mark


def job_status(app):
    """Return the newest job's status (a JobView)."""
    from app.services.broadcast.jobs import control
    from app.services.broadcast.jobs.status import job_status as status_of

    with app.app_context():
        job = control.list_jobs(1)[0]
        return status_of(job)


def drain_like_cron(app, base: str, tick: int):
    """Call /internal/pump as the cPanel cron line would, showing progress, until the job ends."""
    progress = Progress()
    while True:
        st = job_status(app)
        done = st.total - st.pending
        progress.update(f"  cron pumping {bar(done, st.total)} {done}/{st.total}  sent={st.sent} "
                        f"skipped={st.skipped} rate={st.rate}/s eta={st.eta}s   ")
        if st.status not in ("running", "queued"):
            progress.end()
            return st
        r = requests.get(f"{base}/internal/pump", params={"seconds": tick},
                         headers={"Authorization": f"Bearer {PUMP_TOKEN}"}, timeout=tick + PUMP_ANSWER_SLACK)
        r.raise_for_status()


def wait_for_picture(sim: SimulatorServer, seconds: float = 60.0) -> dict | None:
    """Wait for the results picture the admin gets after the summary (drawn off the request); None if it never came.

    Without matplotlib (requirements-pictures.txt) the admin gets the numbers as one line of text instead.
    """
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        got = sim.deliveries("sendPhoto", ADMIN) + [d for d in sim.deliveries("sendMessage", ADMIN)
                                                    if PICTURES_EXTRA in (d.get("text") or "")]
        if got:
            return got[-1]
        time.sleep(0.2)
    return None


def save_picture(photo: dict, folder: str) -> str:
    """Write the picture the admin got as demo_results.png in folder (beside the database) and return its path."""
    path = os.path.join(folder, "demo_results.png")
    with open(path, "wb") as out:
        out.write(base64.b64decode(photo["photo_base64"]))
    return path


def report_picture(sim: SimulatorServer, folder: str) -> bool:
    """Say what the admin got after the summary (the picture, saved to be opened, or the numbers as text)."""
    photo = wait_for_picture(sim)
    if photo is None:
        say("6. ❌ the results picture never reached the admin")
        return False
    if photo["method"] != "sendPhoto":
        say(f"6. The admin got the results as text (no matplotlib): {photo['text']}")
        return True
    path = save_picture(photo, folder)
    say(f"6. The admin got the results picture after the summary ({os.path.getsize(path) // 1024} KB PNG, "
        f"saved as {path}; docs/RESULTS.md)")
    return True


def main(argv: list[str] | None = None) -> int:
    """Run the demo and return 0 when the counts match the simulator's record."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=2000, help="simulated users (default 2000)")
    parser.add_argument("--latency-ms", type=int, default=60, help="simulated Bot API latency")
    parser.add_argument("--tick", type=int, default=5, help="seconds per pump call (cron: cron_pump_seconds, 57)")
    parser.add_argument("--database", default=DEFAULT_DB, help="the SQLite file, recreated (default %(default)s)")
    args = parser.parse_args(argv)
    if not 1 <= args.users <= 200_000:
        parser.error("--users must be between 1 and 200000")
    rng = random.Random(2026)
    sim = SimulatorServer(token=TOKEN, latency_ms=args.latency_ms, latency_jitter_ms=args.latency_ms // 3,
                          global_rate=TELEGRAM_RATE, webhook_timeout=60).start()
    db_path = os.path.abspath(args.database)
    os.makedirs(os.path.dirname(db_path), exist_ok=True)
    app, server, base = start_app(sim, db_path)
    try:
        requests.post(f"{sim.base_url}/bot{TOKEN}/setWebhook", json={
            "url": f"{base}/telegram/webhook", "secret_token": SECRET}, timeout=5).raise_for_status()
        say(f"Update Pack bot demo — app at {base}, simulated Bot API at {sim.base_url} "
            f"({args.latency_ms} ms latency, {TELEGRAM_RATE} msg/s limit), database {db_path}")
        say(f"1. {args.users} users send /start through the real webhook (the bot answers each one):")
        ids = register_users(sim, args.users)
        blocked, told = shape_audience(sim, ids, rng)
        say(f"2. {len(blocked)} users block the bot ({len(told)} of them tell us via my_chat_member); "
            f"a third join the channel.")
        say("3. The admin runs the broadcast wizard: /broadcast → message → button → audience → confirm")
        t0 = time.monotonic()
        sim_mark = run_wizard(sim)
        say(f"4. Cron calls /internal/pump every tick ({args.tick} s here; 57 s on cPanel):")
        st = drain_like_cron(app, base, args.tick)
        took = time.monotonic() - t0
        # The broadcast copies the admin's message; the admin is a user too.
        chats = [d["chat_id"] for d in sim.deliveries()[sim_mark:] if d["method"] == "copyMessage"]
        expected = len(ids) - len(blocked) + 1
        say(f"5. Summary of job #{st.id}: status={st.status} total={st.total} sent={st.sent} "
            f"skipped={st.skipped} failed={st.failed} unknown={st.unknown} in {took:.1f} s")
        say(f"   simulator delivered {len(chats)} copies to {len(set(chats))} users "
            f"(expected {expected}: every user who has not blocked the bot, the admin included, exactly once)")
        ok = st.status == "completed" and st.sent == len(chats) == len(set(chats)) == expected
        say("   ✅ counts match the simulator's own record" if ok else "   ❌ counts do NOT match")
        return 0 if ok and report_picture(sim, os.path.dirname(db_path)) else 1
    finally:
        server.shutdown()
        sim.stop()


if __name__ == "__main__":
    sys.exit(main())
