"""The parallel phase's private MariaDB: which runs get one, and the URL its tests connect with."""
import pytest

from tests import idle_mariadb


def test_the_url_moves_onto_the_private_servers_root_over_tcp():
    moved = idle_mariadb.on_server("mysql+pymysql://upk:s3cret@localhost/ci?charset=utf8mb4"
                                   "&unix_socket=/run/mysqld/mysqld.sock", 4444)
    assert moved == "mysql+pymysql://root@127.0.0.1:4444/ci?charset=utf8mb4"


@pytest.mark.parametrize("url", [None, "", "sqlite:////tmp/x.sqlite3", "mysql+pymysql://root@db.example.com/ci"])
def test_only_a_local_mariadb_gets_a_private_server(url):
    assert not idle_mariadb.wanted(url)


def test_upk_test_idle_db_0_keeps_the_shared_server(monkeypatch):
    monkeypatch.setenv("UPK_TEST_IDLE_DB", "0")
    assert not idle_mariadb.wanted("mysql+pymysql://root@127.0.0.1/ci")
