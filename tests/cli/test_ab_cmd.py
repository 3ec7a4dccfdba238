"""`broadcast create --ab`, `broadcast ab` and `broadcast ab-pick` on the real database: refusals, the view, a pick."""
import json

import pytest

from tests.broadcast.helpers import create_users, reload

BUTTON = ["--button-text", "ببین", "--button-url", "https://example.com/offer"]


@pytest.fixture
def tracked(app):
    """The app with PUBLIC_URL set: clicks are tracked."""
    app.config["PUBLIC_URL"] = "https://bot.example.com"
    yield app
    app.config["PUBLIC_URL"] = None


def create(runner, *args):
    """Run `broadcast create --audience all` with args."""
    return runner.invoke(args=["broadcast", "create", "--audience", "all", *args])


@pytest.mark.parametrize("args,message", [
    (["--ab", "one"], "2 to 5 versions"),
    (["--ab", "1", "--ab", "2", "--ab", "3", "--ab", "4", "--ab", "5", "--ab", "6"], "2 to 5 versions"),
    (["--ab", "a", "--ab", "b", "--test-share", "0"], "between 1 and 99"),
    (["--ab", "a", "--ab", "b", "--test-share", "100"], "between 1 and 99"),
    (["--ab", "a", "--ab", "b", "--winner-after", "soon"], "not a wait"),
    (["--ab", "a", "--ab", "b", "--winner-after", "5m"], "10m to 7d"),
    (["--ab", "a", "--ab", "a"], "same text"),
])
def test_bad_tests_are_refused_in_one_line(tracked, runner, args, message):
    create_users(50)
    result = create(runner, *args, *BUTTON)
    assert result.exit_code == 2 and message in result.output and len(result.output.strip().splitlines()) == 1


def test_a_test_without_a_tracked_link_is_refused(tracked, runner, app):
    create_users(50)
    result = create(runner, "--ab", "a", "--ab", "b")
    assert result.exit_code == 2 and "link button" in result.output
    app.config["PUBLIC_URL"] = None
    result = create(runner, "--ab", "a", "--ab", "b", *BUTTON)
    assert result.exit_code == 2 and "PUBLIC_URL" in result.output


@pytest.mark.parametrize("args", [["--text", "x"], ["--every", "daily 10:00"], ["--variant", "en", "hi"]])
def test_options_that_cannot_go_with_ab_are_refused(tracked, runner, args):
    create_users(5)
    result = create(runner, "--ab", "a", "--ab", "b", *args, *BUTTON)
    assert result.exit_code == 2 and "cannot be given with --ab" in result.output


def test_share_without_ab_is_refused(runner):
    result = create(runner, "--text", "x", "--test-share", "10")
    assert result.exit_code == 2 and "goes with --ab" in result.output


def test_create_view_and_pick(tracked, runner):
    create_users(100)
    result = create(runner, "--ab", "<b>A</b>", "--ab", "<b>B</b>", "--test-share", "20", "--winner-after", "2h",
                    *BUTTON)
    assert result.exit_code == 0, result.output
    job_id = int(result.stdout)
    job = reload(job_id)
    assert (job.total_count, job.ab_share, job.ab_wait, job.ab_state) == (20, 20, 7200, "testing")
    info = json.loads(runner.invoke(args=["broadcast", "ab", str(job_id), "--json"]).stdout)
    assert [(v["version"], v["recipients"]) for v in info["versions"]] == [("A", 10), ("B", 10)]
    assert info["leader"] is None and info["test"]["p_value"] is None and info["winner_goes"] == "after_test"
    table = runner.invoke(args=["broadcast", "ab", str(job_id)]).stdout
    assert "two-proportion z-test" in table and "VERSION" in table
    picked = runner.invoke(args=["broadcast", "ab-pick", str(job_id), "B"])
    assert picked.exit_code == 0, picked.output
    winner_id = int(picked.stdout)
    assert reload(winner_id).total_count == 80 and reload(winner_id).text == "<b>B</b>"
    again = runner.invoke(args=["broadcast", "ab-pick", str(job_id), "A"])
    assert again.exit_code == 1 and "already chosen" in again.output
    info = json.loads(runner.invoke(args=["broadcast", "ab", str(job_id), "--json"]).stdout)
    assert (info["winner"], info["winner_job"], info["winner_goes"]) == ("B", winner_id, "sent")


def test_ab_of_a_plain_job_is_refused(runner):
    create_users(1)
    job_id = int(create(runner, "--text", "x").stdout)
    result = runner.invoke(args=["broadcast", "ab", str(job_id)])
    assert result.exit_code == 1 and "not an A/B test" in result.output
