"""`flask broadcast create --text` with {first_name}: each recipient is greeted by name."""
from tests.broadcast.helpers import reload
from tests.factories import create_user


def test_cli_text_with_first_name_is_personalised(runner, simulator):
    create_user(7201, first_name="<b>Ali</b>", language_code="fa")
    create_user(7202, first_name="", language_code="en")
    result = runner.invoke(args=["broadcast", "create", "--audience", "all", "--text", "Hi <b>{first_name}</b>!"])
    assert result.exit_code == 0, result.output
    job_id = int(result.stdout)
    assert runner.invoke(args=["broadcast", "pump", "--job", str(job_id), "--seconds", "10"]).exit_code == 0
    assert reload(job_id).status == "completed"
    assert [d["text"] for d in simulator.deliveries("sendMessage", 7201)] == ["Hi <b>&lt;b&gt;Ali&lt;/b&gt;</b>!"]
    assert [d["text"] for d in simulator.deliveries("sendMessage", 7202)] == ["Hi <b>there</b>!"]
