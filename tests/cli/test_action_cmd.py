"""`flask broadcast unsend | edit` on the real database, against the simulator; the jobs run with `broadcast pump`."""
from app.services import audit
from app.services.broadcast.jobs import control
from app.services.broadcast.sending.drain import pump
from app.texts import t
from tests.broadcast.helpers import create_text_job, create_users, engine_settings, reload
from tests.cli.proc import run_flask
from tests.factories import create_user


def finished(simulator, n: int = 4) -> tuple[int, list[int]]:
    """Send a text broadcast to n users; return its id and the users."""
    simulator.configure(per_chat_limits=False)
    users = create_users(n)
    job = create_text_job(settings=engine_settings())
    assert pump(job.id, 20, settings=engine_settings()).stop == "done"
    return job.id, users


def copies(simulator, users) -> dict[int, str]:
    """Return {user: text} of the bot's messages left in the users' chats."""
    return {m["chat_id"]: m["text"] for m in simulator.bot_messages() if m["chat_id"] in set(users)}


def test_unsend_prints_the_deletion_jobs_id_and_its_pump_deletes_every_copy(runner, simulator, database_url):
    job_id, users = finished(simulator)
    result = runner.invoke(args=["broadcast", "unsend", str(job_id)])
    assert result.exit_code == 0, result.output
    new_id = int(result.stdout)
    assert result.stdout == f"{new_id}\n"
    assert (reload(new_id).kind, reload(new_id).source_job_id) == ("unsend", job_id)
    pumped = run_flask(database_url, simulator, "broadcast", "pump", "--job", str(new_id), "--seconds", "20")
    assert pumped.returncode == 0, pumped.stderr
    assert copies(simulator, users) == {}
    status = run_flask(database_url, simulator, "broadcast", "status", str(new_id))
    assert '"kind": "unsend"' in status.stdout and '"sent": 4' in status.stdout and '"gone": 0' in status.stdout
    assert [(e["actor"], e["action"]) for e in audit.entries(job_id)][-1] == ("cli", "unsent")


def test_edit_prints_the_edit_jobs_id_and_every_copy_reads_the_new_text(runner, simulator):
    job_id, users = finished(simulator)
    result = runner.invoke(args=["broadcast", "edit", str(job_id), "--text", "<b>نو</b> شد"])
    assert result.exit_code == 0, result.output
    new_id = int(result.stdout)
    assert pump(new_id, 20, settings=engine_settings()).stop == "done"
    assert set(copies(simulator, users).values()) == {"نو شد"} and len(copies(simulator, users)) == 4
    assert [(e["actor"], e["action"]) for e in audit.entries(job_id)][-1] == ("cli", "edited")


def test_unsend_and_edit_refuse_what_they_cannot_do(runner, simulator):
    create_users(2)
    running = create_text_job()
    refused = runner.invoke(args=["broadcast", "unsend", str(running.id)])
    assert refused.exit_code == 1 and f"job {running.id} is running" in refused.stderr
    missing = runner.invoke(args=["broadcast", "unsend", "424242"])
    assert missing.exit_code == 1 and "no broadcast job 424242" in missing.stderr
    broken = runner.invoke(args=["broadcast", "edit", str(running.id), "--text", "<b>half"])
    assert broken.exit_code == 2 and "broken HTML" in broken.stderr
    assert reload(running.id).status == "running"


def test_edit_with_first_name_greets_each_recipient_by_their_own_name(runner, simulator, database_url):
    simulator.configure(per_chat_limits=False)
    names = {7301: ("<b>Ali</b>", "en"), 7302: ("", "fa"), 7303: ("Sara", "en")}
    for user_id, (first_name, lang) in names.items():
        create_user(user_id, first_name=first_name, language_code=lang)
    created = runner.invoke(args=["broadcast", "create", "--audience", "all", "--text", "Hello {first_name}"])
    assert created.exit_code == 0, created.output
    job_id = int(created.stdout)
    assert runner.invoke(args=["broadcast", "pump", "--job", str(job_id), "--seconds", "10"]).exit_code == 0
    result = runner.invoke(args=["broadcast", "edit", str(job_id), "--text", "Hi {first_name}!"])
    assert result.exit_code == 0, result.output
    edit_id = int(result.stdout)
    pumped = run_flask(database_url, simulator, "broadcast", "pump", "--job", str(edit_id), "--seconds", "20")
    assert pumped.returncode == 0, pumped.stderr
    # What each user reads now, and the HTML each edit carried (a name's tags escaped, not obeyed).
    fallback = t("greeting_fallback", "fa")
    assert copies(simulator, names) == {7301: "Hi <b>Ali</b>!", 7302: f"Hi {fallback}!", 7303: "Hi Sara!"}
    assert {u: [d["text"] for d in simulator.deliveries("editMessageText", u)] for u in names} == {
        7301: ["Hi &lt;b&gt;Ali&lt;/b&gt;!"], 7302: [f"Hi {fallback}!"], 7303: ["Hi Sara!"]}
    assert reload(edit_id).sent_count == 3


def test_edit_parses_the_text_like_telegram_before_creating_any_job(runner, simulator, database_url):
    job_id, users = finished(simulator)
    bare = runner.invoke(args=["broadcast", "edit", str(job_id), "--text", "Tom & Jerry"])
    assert (bare.exit_code, bare.stdout) == (2, "")
    [line] = bare.stderr.splitlines()
    assert 'Character "&" must be escaped as "&amp;"' in line
    assert [job.id for job in control.list_jobs()] == [job_id]  # no edit job: nothing would pause on Telegram's refusal
    escaped = runner.invoke(args=["broadcast", "edit", str(job_id), "--text", "Tom &amp; Jerry"])
    assert escaped.exit_code == 0, escaped.output
    pumped = run_flask(database_url, simulator, "broadcast", "pump", "--job", escaped.stdout.strip(), "--seconds", "20")
    assert pumped.returncode == 0, pumped.stderr
    assert copies(simulator, users) == dict.fromkeys(users, "Tom & Jerry")
