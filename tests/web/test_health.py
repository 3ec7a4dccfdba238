"""GET /healthz answers for the app and its database."""
from app import create_app
from tests import conftest


def test_healthy(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"ok": True, "database": "ok"}


def test_database_down_is_503(simulator):
    dead = create_app(conftest.app_config("sqlite:////nonexistent-dir/x/db.sqlite3", simulator.base_url))
    with dead.app_context():
        response = dead.test_client().get("/healthz")
    assert response.status_code == 503
    assert response.get_json() == {"ok": False, "database": "unavailable"}
    assert conftest.TOKEN not in response.get_data(as_text=True)
