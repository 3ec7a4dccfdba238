"""Deploy the bot as a cPanel host runs it (Apache + Passenger + cron + MariaDB) and prove it works.

Run as root from the repository: `sh tests/deploy/run_deploy_test.sh` (see docs/DEPLOY_CPANEL.md).
Prints one JSON report on stdout; exits 0 when every check passed. Everything it
creates (the folder, the Apache server, the simulator, the database and its user)
is removed at the end, pass or fail, unless --keep is given.
"""
from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import requests

from app.simulator.updates import message_update
from tests.deploy import passenger
from tests.deploy.apache import Apache
from tests.deploy.scenario import (
    ADMIN_ID,
    MAIN_CHANNEL_ID,
    Cron,
    Sql,
    Telegram,
    check_at_most_once,
    check_exactly_once,
    write_cron_config,
)
from tests.deploy.stack import (
    DeployError,
    Layout,
    Simulator,
    build_venv,
    create_database,
    drop_database,
    flask,
    hand_to_account,
    install_app,
)
from tests.ports import free_port

TOKEN = "123456:DEPLOY-token-abcdefghijklmnop"


class Deployment:
    """One throwaway account: its files, database, web server and the simulated Telegram."""

    def __init__(self, root: Path, users: int):
        self.layout = Layout(root)
        self.users = list(range(500_001, 500_001 + users))
        self.blocked = set(self.users[::20])
        self.receivers = {ADMIN_ID} | set(self.users) - self.blocked
        self.report: dict = {"ok": False, "phases": {}}
        self.seen_pids: set[int] = set()
        self.db = self.sim = self.apache = self.sql = self.tg = self.cron = None
        self.secret = secrets.token_urlsafe(24)
        self.pump_token = secrets.token_urlsafe(24)
        self._t0 = time.monotonic()

    def note(self, phase: str, **values) -> None:
        """Add facts to the report and show progress on stderr."""
        self.report["phases"].setdefault(phase, {}).update(values)
        print(f"[{time.monotonic() - self._t0:6.1f}s] {phase}: {json.dumps(values, default=str)}",
              file=sys.stderr, flush=True)

    def app_env(self) -> dict:
        """The variables the operator types into "Setup Python App"."""
        return {"DATABASE_URL": self.db.url, "TELEGRAM_BOT_TOKEN": TOKEN, "TELEGRAM_API_BASE_URL": self.sim.base_url,
                "WEBHOOK_SECRET": self.secret, "PUMP_TOKEN": self.pump_token, "ADMIN_IDS": str(ADMIN_ID),
                "MAIN_CHANNEL_ID": str(MAIN_CHANNEL_ID)}

    def flask(self, *args) -> str:
        return flask(self.layout, self.app_env(), *args, log=self.layout.root / "flask.log").stdout.strip()

    def url(self, path: str) -> str:
        prefix = "" if self.apache.mount == "/" else self.apache.mount
        return f"{self.apache.base_url}{prefix}{path}"

    def processes(self) -> list[dict]:
        procs = passenger.processes(self.layout)
        self.seen_pids.update(p["pid"] for p in procs)
        return procs

    def point_everything_at(self, mount: str) -> None:
        """Serve the app at mount, then aim the webhook and the cron config at it."""
        self.apache.write_config(mount, self.app_env())
        if self.apache.pid() is None:
            self.apache.start()
        else:
            self.apache.graceful()
        health = requests.get(self.url("/healthz"), timeout=30)
        if health.status_code != 200 or health.json().get("ok") is not True:
            raise DeployError(f"{self.url('/healthz')} answered {health.status_code}: {health.text[:300]}")
        self.flask("telegram", "set-webhook", self.url("/telegram/webhook"), "--allow-http")
        write_cron_config(self.layout, self.url("/internal/pump"), self.pump_token)

    # ------------------------------------------------------------ phases

    def build(self) -> None:
        """Upload, venv, database, migrations, settings, Apache, webhook: the operator's first hour."""
        started = time.monotonic()
        root = self.layout.root
        if root.exists():
            raise DeployError(f"{root} exists (a run left it?); remove it or pass --root")
        root.mkdir(parents=True)
        files = install_app(self.layout)
        build_venv(self.layout, root / "build.log")
        hand_to_account(self.layout)
        self.db = create_database()
        self.sql = Sql(self.db)
        self.sim = Simulator(TOKEN, root / "simulator.log")
        self.tg = Telegram(self.sim.base_url)
        self.cron = Cron(self.layout)
        self.flask("db", "upgrade")
        # Short cron pumps so one broadcast takes several runs; one short pump inside the confirm tap.
        for key, value in (("cron_pump_seconds", 3), ("webhook_pump_calls", 1), ("webhook_pump_seconds", 1)):
            self.flask("settings", "set", key, str(value))
        self.apache = Apache(self.layout, free_port())
        self.point_everything_at("/")
        self.note("build", files=files, seconds=round(time.monotonic() - started, 1), root=str(root),
                  database=self.db.name, apache=self.apache.base_url, python=str(self.layout.python),
                  webhook=self.tg.sim.webhook()["url"], cron_line=self.cron.command)

    def several_processes(self) -> None:
        """A burst of /start updates: Passenger runs several processes, all as the account user."""
        seconds = self.tg.start_users(self.users + [ADMIN_ID])
        procs = self.processes()
        served = {p["pid"]: p["processed"] for p in procs if p["processed"] > 0}
        owners = sorted({passenger.owner(p["pid"]) for p in procs})
        self.note("several_processes", starts=len(self.users) + 1, seconds=round(seconds, 1), served=served,
                  owners=owners, pids_in_error_log=len(passenger.logging_pids(self.layout)),
                  http_429_so_far=self.tg.sim.stats()["429_total"],
                  welcomed=len({d["chat_id"] for d in self.tg.sim.deliveries("sendMessage")}))
        if len(served) < 2:
            raise DeployError(f"expected requests served by 2+ processes, passenger-status shows {procs}")
        if owners != [self.layout.user]:
            raise DeployError(f"app processes run as {owners}, expected {self.layout.user}")
        users = self.sql.rows("SELECT COUNT(*) AS n FROM users")[0]["n"]
        if users != len(self.users) + 1:
            raise DeployError(f"{users} users stored after {len(self.users) + 1} /start updates")

    def broadcast_at_root(self) -> None:
        """Idle processes are stopped; the admin broadcasts; cron drives the job to the end."""
        stopped = passenger.wait_until_idle_killed(self.layout)
        self.tg.sim.block(*self.blocked)
        draft = self.tg.broadcast_wizard("Update Pack deployment test: broadcast A")  # starts on a cold process
        job = self.sql.job()
        gap: dict = {}

        def idle_gap(run_index: int) -> None:
            if run_index == 0:  # once: Passenger stops every process between two cron runs
                gap["pids_before"] = sorted(p["pid"] for p in self.processes())
                gap["all_stopped_in"] = round(passenger.wait_until_idle_killed(self.layout), 1)

        runs = self.cron.until_completed(self.sql, job["id"], between=idle_gap)
        gap["pids_after"] = sorted(p["pid"] for p in self.processes())
        result = check_exactly_once(self.tg, self.sql, job["id"], draft, self.receivers, self.blocked)
        self.note("idle_kill", after_burst_all_stopped_in=round(stopped, 1), between_cron_runs=gap)
        self.note("broadcast_root", sent_in_confirm_tap=job["sent_count"], cron_runs=len(runs),
                  runs=[[r["seconds"], r["sent"]] for r in runs], result=result,
                  http_429_so_far=self.tg.sim.stats()["429_total"])

    def budget_across_processes(self) -> None:
        """A /start burst through several processes while cron sends a broadcast: one bot-wide budget, no 429.

        At the default cap (29/s) against the simulator's 30/s: the budget in
        MariaDB is the only thing between Passenger's processes (and the cron
        pump) and Telegram's limit, so any 429 or call made during a
        retry_after would be the budget failing.
        """
        before = self.tg.sim.stats()
        self.flask("settings", "set", "cron_pump_seconds", "20")
        draft = self.tg.broadcast_wizard("Update Pack deployment test: broadcast D during a /start burst")
        job_id = self.sql.job()["id"]
        newcomers = list(range(700_001, 700_001 + 120))
        runs: list[dict] = []
        failures: list[BaseException] = []

        def cron_until_done() -> None:
            try:
                runs.extend(self.cron.until_completed(self.sql, job_id))
            except BaseException as exc:  # noqa: BLE001 - re-raised below, on the main thread
                failures.append(exc)

        pumping = threading.Thread(target=cron_until_done)
        pumping.start()
        time.sleep(1.5)  # the cron pump is sending the broadcast at full speed
        seconds = self.tg.start_users(newcomers, workers=12)
        served = {p["pid"]: p["processed"] for p in self.processes() if p["processed"] > 0}
        pumping.join(180)
        self.flask("settings", "set", "cron_pump_seconds", "3")
        if failures:
            raise failures[0]
        if pumping.is_alive():
            raise DeployError("the broadcast during the /start burst did not finish within 180 s")
        # Users who blocked the bot were marked by broadcast A: they are no longer in an audience.
        result = check_exactly_once(self.tg, self.sql, job_id, draft, self.receivers, set())
        welcomes = Counter(d["chat_id"] for d in self.tg.sim.deliveries("sendMessage") if d["chat_id"] in newcomers)
        after = self.tg.sim.stats()
        flood = {key: after[key] - before[key] for key in ("429_total", "calls_during_retry_after")}
        self.note("budget_across_processes", starts=len(newcomers), burst_seconds=round(seconds, 1),
                  processes_serving=len(served), cron_runs=len(runs), result=result, **flood,
                  busiest_second_all=after["busiest_second_all"])
        if len(served) < 2:
            raise DeployError(f"the burst was served by {len(served)} process(es); the budget needs 2+ to be tested")
        if flood != {"429_total": 0, "calls_during_retry_after": 0}:
            raise DeployError(f"processes sharing the budget still flooded Telegram: {flood}")
        if sorted(uid for uid in newcomers if welcomes[uid] != 1):
            raise DeployError(f"newcomers not welcomed exactly once: {[u for u in newcomers if welcomes[u] != 1][:10]}")
        self.receivers |= set(newcomers)

    def pump_cut_off(self) -> None:
        """Kill the process serving a long pump, as a host's time limit would; the next pumps resume."""
        # The job waits for the pump; pumps may run 20 s (the endpoint refuses ?seconds= above this).
        self.flask("settings", "set", "webhook_pump_calls", "0")
        self.flask("settings", "set", "cron_pump_seconds", "20")
        draft = self.tg.broadcast_wizard("Update Pack deployment test: broadcast B")
        job_id = self.sql.job()["id"]
        answer: dict = {}

        def long_pump() -> None:
            try:
                r = requests.post(self.url("/internal/pump?seconds=20"), timeout=60,
                                  headers={"Authorization": f"Bearer {self.pump_token}"})
                answer["status"] = r.status_code
            except requests.RequestException as exc:
                answer["error"] = type(exc).__name__

        thread = threading.Thread(target=long_pump)
        started = time.monotonic()
        thread.start()
        time.sleep(2.0)
        if not thread.is_alive():
            raise DeployError(f"the long pump ended before it could be cut off: {answer}")
        pid = passenger.busy_pid(self.layout)
        self.seen_pids.add(pid)
        os.kill(pid, signal.SIGKILL)
        killed_after = time.monotonic() - started
        thread.join(30)
        time.sleep(0.5)
        job = self.sql.job(job_id)
        in_flight = sum(1 for s in self.sql.item_statuses(job_id).values() if s == "sending")
        copies_at_kill = sum(self.tg.copies_of(draft).values())
        self.cron.run_once()  # the lease is still live: this run must not send
        held = self.sql.job(job_id)
        if held["sent_count"] != job["sent_count"] or sum(self.tg.copies_of(draft).values()) != copies_at_kill:
            raise DeployError(f"a pump sent while the dead pump's lease was live: {job} -> {held}")
        aged = self.sql.age_lease(job_id)
        runs = self.cron.until_completed(self.sql, job_id)
        result = check_at_most_once(self.tg, self.sql, job_id, draft, self.receivers)
        self.flask("settings", "set", "cron_pump_seconds", "3")
        self.note("pump_cut_off", killed_pid=pid, killed_after=round(killed_after, 1), client_saw=answer,
                  at_kill={"status": job["status"], "sent": job["sent_count"], "in_flight": in_flight,
                           "lease_live": job["lease_token"] is not None},
                  run_while_lease_live={"sent": held["sent_count"]}, lease_aged_in_sql=aged == 1,
                  cron_runs_after=len(runs), result=result)

    def sub_path(self) -> None:
        """Mount the app under /bot; webhook and pump there; a new user joins; one more broadcast."""
        self.point_everything_at("/bot")
        root_answer = requests.get(f"{self.apache.base_url}/healthz", timeout=10).status_code
        newcomers = list(range(600_001, 600_011))
        self.tg.start_users(newcomers)
        draft = self.tg.broadcast_wizard("Update Pack deployment test: broadcast C under /bot")
        job_id = self.sql.job()["id"]
        runs = self.cron.until_completed(self.sql, job_id)
        receivers = self.receivers | set(newcomers)
        result = check_exactly_once(self.tg, self.sql, job_id, draft, receivers, set())
        self.note("sub_path", webhook=self.tg.sim.webhook()["url"], pump_url=self.url("/internal/pump"),
                  root_healthz_status=root_answer, cron_runs=len(runs), result=result)
        if root_answer != 404:
            raise DeployError(f"/healthz outside /bot answered {root_answer}; the app should live only under /bot")
        self.receivers = receivers

    def cron_missing(self) -> None:
        """Cron gone for a while: traffic moves the job, one alert, /healthz?cron=1 503; cron back: it completes."""
        draft = self.tg.broadcast_wizard("Update Pack deployment test: broadcast E while cron is missing")
        job_id = self.sql.job()["id"]
        self.sql.age_waiting(job_id, 10)  # cron_alert_minutes is 3: late now, instead of in 3 minutes
        late_health = requests.get(self.url("/healthz?cron=1"), timeout=10)
        newcomers, answers = list(range(800_001, 800_004)), []
        for uid in newcomers:  # a /start every 2 s is all the traffic there is
            started = time.monotonic()
            self.tg.post(message_update(uid, "/start", first_name=f"U{uid}"))
            answers.append(round(time.monotonic() - started, 3))
            time.sleep(max(0.0, 2.0 - (time.monotonic() - started)))
        moved = self.sql.job(job_id)
        alerts = self.cron_alerts()
        runs = self.cron.until_completed(self.sql, job_id)
        result = check_exactly_once(self.tg, self.sql, job_id, draft, self.receivers, set())
        self.tg.post(message_update(newcomers[0], "/start", first_name="again"))
        health = requests.get(self.url("/healthz?cron=1"), timeout=10)
        pumps = self.sql.pump_runs()
        self.note("cron_missing", healthz_while_late=late_health.status_code, sent_without_cron=moved["sent_count"],
                  start_answers_s=answers, alerts_while_late=len(alerts), alerts_after=len(self.cron_alerts()),
                  cron_runs=len(runs), healthz_after=health.status_code, result=result,
                  fallback={k: pumps["fallback"][k] for k in ("runs", "processed_total", "ms_total")})
        if late_health.status_code != 503 or health.status_code != 200:
            raise DeployError(f"/healthz?cron=1 answered {late_health.status_code} late, {health.status_code} after")
        if moved["sent_count"] == 0:
            raise DeployError("with cron missing, the /start traffic did not move the broadcast")
        if len(alerts) != 1 or len(self.cron_alerts()) != 1:
            raise DeployError(f"expected one cron alert to the admin, got {len(alerts)} then {len(self.cron_alerts())}")
        self.receivers |= set(newcomers)

    def cron_alerts(self) -> list[dict]:
        """Return the cron alerts the admin received."""
        return [d for d in self.tg.sim.deliveries("sendMessage", ADMIN_ID) if "/internal/pump" in (d.get("text") or "")]

    def logs_clean(self) -> None:
        """No secret in any log the host keeps: Apache's error and access logs, the cron log."""
        secrets_ = {"bot token": TOKEN, "webhook secret": self.secret, "pump token": self.pump_token,
                    "database password": self.db.password, "database URL": self.db.url}
        logs = [self.layout.error_log, self.layout.server_dir / "logs" / "access.log", self.layout.cron_log]
        leaks = [f"{name} in {log.name}" for log in logs if log.exists()
                 for name, value in secrets_.items() if value in log.read_text(errors="replace")]
        sizes = {log.name: log.stat().st_size for log in logs if log.exists()}
        # Passenger's wsgi-loader.py calls logging.basicConfig() before the app loads; the app must
        # replace that handler, or every record is printed again without the app's redaction.
        unredacted_copies = passenger.loader_handler_lines(self.layout)
        stats = self.tg.sim.stats()
        self.note("logs_clean", checked=sizes, leaks=leaks, app_lines_via_passenger_handler=unredacted_copies)
        self.note("telegram", calls_total=stats["calls_total"], deliveries=stats["deliveries"],
                  http_429={key: stats[key] for key in ("429_global", "429_per_chat", "429_total")},
                  busiest_second=stats["busiest_second"])
        if leaks:
            raise DeployError("secrets in logs: " + ", ".join(leaks))
        if unredacted_copies:
            raise DeployError(f"{unredacted_copies} app log lines went through Passenger's own (unredacted) handler")

    # ------------------------------------------------------------ cleanup

    def teardown(self) -> None:
        """Stop and remove everything this run created; each step runs even if another fails."""
        steps = [
            ("apache", lambda: self.apache and self.apache.stop(self.seen_pids)),
            ("simulator", lambda: self.sim and self.sim.stop()),
            ("sql", lambda: self.sql and self.sql.close()),
            ("database", lambda: self.db and drop_database(self.db)),
            ("files", lambda: shutil.rmtree(self.layout.root, ignore_errors=True)),
        ]
        for name, step in steps:
            try:
                step()
            except Exception as exc:  # keep cleaning: a half-stopped server must not keep the database
                print(f"cleanup of {name} failed: {exc}", file=sys.stderr)


def _interrupt(signum, frame):
    """Turn SIGTERM (a CI timeout, pytest giving up) into an exception, so the cleanup still runs."""
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default="/srv/update_pack_deploy", help="throwaway folder (must not exist)")
    parser.add_argument("--users", type=int, default=240, help="users who /start the bot")
    parser.add_argument("--keep", action="store_true", help="leave everything running for a look (no cleanup)")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        print("run as root: it installs an Apache server, switches users and creates a MariaDB user",
              file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _interrupt)
    deployment = Deployment(Path(args.root), args.users)
    started = time.monotonic()
    try:
        for phase in (deployment.build, deployment.several_processes, deployment.broadcast_at_root,
                      deployment.budget_across_processes, deployment.pump_cut_off, deployment.sub_path,
                      deployment.cron_missing, deployment.logs_clean):
            phase()
        deployment.report["ok"] = True
    except (Exception, KeyboardInterrupt) as exc:
        deployment.report["error"] = f"{type(exc).__name__}: {exc}"
        if deployment.apache is not None and deployment.layout.error_log.exists():
            tail = deployment.layout.error_log.read_text(errors="replace").splitlines()[-40:]
            deployment.report["apache_error_log_tail"] = tail
    finally:
        deployment.report["seconds"] = round(time.monotonic() - started, 1)
        if not args.keep:
            deployment.teardown()
    print(json.dumps(deployment.report, indent=2, default=str))
    return 0 if deployment.report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
