"""`broadcast list` lists the admins' own jobs, as /jobs does; `--automated` the chains' steps and recurring ones."""
import json

from app.services import audit
from app.services.broadcast.jobs import creation
from tests.bot.test_automated_jobs import chain_jobs, occurrence_job
from tests.broadcast.helpers import engine_settings
from tests.conftest import ADMIN_ID
from tests.factories import create_user

HINT = "automated jobs (drip-chain steps, recurring occurrences): broadcast list --automated"


def _ids(runner, *extra) -> list[int]:
    result = runner.invoke(args=["broadcast", "list", "--json", *extra])
    assert result.exit_code == 0, result.output
    return [row["id"] for row in json.loads(result.stdout)]


def test_the_admins_own_jobs_are_listed_apart_from_the_automated_ones(app, runner):
    create_user(7001)
    own = creation.create_job(audience="all", created_by=ADMIN_ID, content={"type": "text", "text": "خبر"},
                              settings=engine_settings(), actor=audit.admin_actor(ADMIN_ID)).id
    steps = chain_jobs(3)
    _series, occurrence = occurrence_job()
    assert _ids(runner) == [own]
    assert _ids(runner, "--automated") == sorted([*steps, occurrence], reverse=True)
    assert _ids(runner, "--automated", "--limit", "2") == sorted([*steps, occurrence], reverse=True)[:2]
    table = runner.invoke(args=["broadcast", "list"]).stdout.splitlines()
    assert table[-1] == HINT and sum(line.split()[0] == str(own) for line in table[1:-1]) == 1
    assert not any(line.split()[0] in {str(j) for j in steps} for line in table[1:-1])


def test_only_automated_jobs_say_where_they_are(app, runner):
    chain_jobs(1)
    assert runner.invoke(args=["broadcast", "list"]).stdout.splitlines() == ["no broadcast jobs", HINT]
    assert runner.invoke(args=["broadcast", "list", "--automated"]).stdout.splitlines()[0].split()[0] == "ID"


def test_without_automated_jobs_the_list_says_nothing_of_them(app, runner):
    assert runner.invoke(args=["broadcast", "list", "--automated"]).stdout == "no automated jobs\n"
    assert runner.invoke(args=["broadcast", "list"]).stdout == "no broadcast jobs\n"
