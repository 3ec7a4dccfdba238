"""Count every statement the database receives, black-box, for benchmarks: what a host's query cap counts.

The statements per message elsewhere in bench/ come from SQLAlchemy's
cursor events; they miss COMMIT/ROLLBACK and whatever the driver sends by
itself. A shared host caps queries per hour as MySQL's `Questions` status
counter counts them (every statement a client sends, COMMIT, ROLLBACK and SET
included; COM_PING is not counted), so this counts the same way:

- MariaDB/MySQL: `SHOW GLOBAL STATUS` read on a raw connection of its own,
  minus the reads themselves. The counter is server-wide: it assumes nothing
  else talks to the server during the bench.
- SQLite: sqlite3's `set_trace_callback` on every connection of the given
  engines (it reports the implicit BEGIN and the COMMIT too).

Only SQLAlchemy and the drivers are used, never app/, so bench.compare can
measure older revisions with it.
"""
from __future__ import annotations

import contextlib
import threading
from collections import Counter

# What each database's figure is counted by, as the tables label it.
SOURCE = {"mariadb": "server's Questions", "sqlite": "driver trace"}
# One read: Questions, and the Com_* counters for the JSON's breakdown by kind (one statement, one Question).
STATUS_SQL = "SHOW GLOBAL STATUS WHERE Variable_name = 'Questions' OR Variable_name LIKE 'Com\\_%'"


def start(*engines) -> ServerQuestions | DriverTrace:
    """Start counting what the engines' database receives (the first engine names the database)."""
    engines = list(dict.fromkeys(engines))  # the budget's engine is the app's one on an in-memory SQLite
    if engines[0].dialect.name in ("mysql", "mariadb"):
        return ServerQuestions(engines[0])
    if engines[0].dialect.name == "sqlite":
        return DriverTrace(engines)
    raise NotImplementedError(f"bench.questions: no black-box count for {engines[0].dialect.name}")


class ServerQuestions:
    """The server's Questions counter since start, less this counter's own SHOW statements."""

    source = SOURCE["mariadb"]

    def __init__(self, engine):
        # A raw DBAPI connection, outside the engines' pools and events; whatever opening it
        # sends (SET AUTOCOMMIT) goes before the baseline read.
        cargs, cparams = engine.dialect.create_connect_args(engine.url)
        self._conn = engine.dialect.loaded_dbapi.connect(*cargs, **cparams)
        self._conn.autocommit(True)
        # What one read adds to Questions (1 on MariaDB 10.11: the SHOW counts itself); the
        # least of a few back-to-back pairs, in case anything else ran between two of them.
        self.cost = min(self._pair() for _ in range(3))
        self._base = self._status()
        self._reads_since = 0

    def _status(self) -> dict[str, int]:
        """One read of Questions and the Com_* counters."""
        with self._conn.cursor() as cursor:
            cursor.execute(STATUS_SQL)
            return {name: int(value) for name, value in cursor.fetchall()}

    def _pair(self) -> int:
        """Questions added by one read, from two back to back."""
        first = self._status()["Questions"]
        return self._status()["Questions"] - first

    def read(self) -> dict:
        """Statements received since start (this counter's excluded): total and by kind."""
        now = self._status()
        self._reads_since += 1
        # Com_admin_commands holds COM_PING (the pool's pre-ping), which Questions leaves out.
        kinds = Counter({name[4:]: now[name] - self._base.get(name, 0) for name in now
                         if name.startswith("Com_") and name != "Com_admin_commands"})
        kinds["show_status"] -= self._reads_since  # each read is one SHOW STATUS
        return {"queries": now["Questions"] - self._base["Questions"] - self._reads_since * self.cost,
                "by_kind": {k: v for k, v in sorted(kinds.items()) if v > 0}}

    def close(self) -> None:
        self._conn.close()


class DriverTrace:
    """Every statement sqlite3 runs on the engines' connections from start until close(), by first keyword."""

    source = SOURCE["sqlite"]

    def __init__(self, engines):
        from sqlalchemy import event

        self.engines = engines
        self.counts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._traced: list = []
        for engine in engines:
            # do_connect, not connect: the app's own connect hook (app/db_setup.py, PRAGMAs)
            # is class-wide and runs before any engine's connect listener, so only a
            # connection traced as it is made shows it.
            event.listen(engine, "do_connect", self._connect)
            # Connections pooled before start (the budget's engine lives as long as the process).
            event.listen(engine, "checkout", self._checkout)

    def _connect(self, dialect, connection_record, cargs, cparams):
        connection = dialect.connect(*cargs, **cparams)
        self._trace(connection)
        return connection

    def _checkout(self, dbapi_connection, connection_record, connection_proxy) -> None:
        self._trace(dbapi_connection)

    def _trace(self, connection) -> None:
        connection.set_trace_callback(self._count)
        with self._lock:
            if connection not in self._traced:
                self._traced.append(connection)

    def _count(self, statement: str) -> None:
        kind = statement.split(None, 1)[0].lower() if statement.strip() else "?"
        with self._lock:
            self.counts[kind] += 1

    def read(self) -> dict:
        """Statements run since start: total and by first keyword (begin, commit, select, ...)."""
        with self._lock:
            return {"queries": sum(self.counts.values()), "by_kind": dict(sorted(self.counts.items()))}

    def close(self) -> None:
        import sqlite3

        from sqlalchemy import event

        for engine in self.engines:
            event.remove(engine, "do_connect", self._connect)
            event.remove(engine, "checkout", self._checkout)
        for connection in self._traced:
            with contextlib.suppress(sqlite3.ProgrammingError):  # closed since
                connection.set_trace_callback(None)


def figures(counter, created: dict, done: dict, delivered: int) -> dict:
    """The row's fields: queries per message delivered (job creation included), its source, and the breakdown."""
    n = max(delivered, 1)
    # While sending: from the job's creation (its population and progress message done) to its end.
    return {"queries_msg": round(done["queries"] / n, 3), "queries_source": counter.source,
            "queries_create": created["queries"],
            "queries_send_msg": round((done["queries"] - created["queries"]) / n, 3),
            "queries_by_kind_msg": {k: round(v / n, 3) for k, v in done["by_kind"].items()}}
