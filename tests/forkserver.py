"""Start the tests' `flask` and `python -m` children by forking a server that has already imported the libraries.

A real `flask --app wsgi ...` process spends about 1.3 s of CPU starting, 0.8 s of it importing Flask,
SQLAlchemy, Alembic, python-telegram-bot and requests; the suite starts a few hundred of them. This
server (one per test process) imports those libraries once — never the app, which each child imports
and builds afresh from its own environment — and forks a child per request. The child is a real,
separate process: its own pid, environment, working directory, descriptors, exit status and signals
(a test may SIGKILL it mid-batch), running flask's own `main()` or the module as `python -m` would.

`Child` is the part of `subprocess.Popen` the tests use; `run()` is `subprocess.run`.
Set UPK_TEST_FORKSERVER=0 to start every child with a fresh interpreter instead.
"""
from __future__ import annotations

import atexit
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRELOAD = ("flask", "flask.cli", "werkzeug", "click", "sqlalchemy", "sqlalchemy.orm", "sqlalchemy.dialects.mysql",
           "sqlalchemy.dialects.sqlite", "flask_sqlalchemy", "flask_migrate", "alembic", "alembic.command",
           "telegram", "requests", "urllib3", "pymysql", "jdatetime", "zoneinfo", "json", "logging.handlers",
           "gunicorn.app.wsgiapp", "gunicorn.workers.sync")
REQUEST_BYTES = 1 << 20  # the request (argv, environment, cwd) as JSON
STARTED_WITHIN = 30  # seconds for the server to listen


def enabled() -> bool:
    """Tell whether children are forked from the server (the default) rather than started fresh."""
    return os.environ.get("UPK_TEST_FORKSERVER", "1") != "0"


# ---------------------------------------------------------------- the server (python -m tests.forkserver SOCKET)

def serve(path: str) -> None:
    """Preload the libraries, then fork one child per connection and report its exit status on it."""
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    # The client waits for the path to exist, so it appears only once connect() can succeed:
    # between bind() and listen() a connect is refused.
    listener.bind(path + ".new")
    listener.listen(64)
    os.rename(path + ".new", path)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so the wakeup fd is written on exit
    waiting: dict[int, socket.socket] = {}
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    selector.register(wake_r, selectors.EVENT_READ)
    while True:
        for key, _ in selector.select():
            if key.fileobj is listener:
                conn, _ = listener.accept()
                pid = _fork_child(conn, listener, (wake_r, wake_w), waiting)
                if pid:
                    waiting[pid] = conn
            else:
                os.read(wake_r, 4096)
        _reap(waiting)


def _reap(waiting: dict[int, socket.socket]) -> None:
    """Send every exited child's status to its client."""
    while waiting:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = waiting.pop(pid, None)
        if conn is not None:
            try:
                conn.sendall(json.dumps({"status": os.waitstatus_to_exitcode(status)}).encode() + b"\n")
            except OSError:
                pass  # the test stopped listening; the child is reaped all the same
            conn.close()


def _fork_child(conn: socket.socket, listener: socket.socket, wake: tuple[int, int],
                waiting: dict[int, socket.socket]) -> int:
    """Read one request and fork its child; return the child's pid (0 when the request was unreadable)."""
    try:
        data, fds, _, _ = socket.recv_fds(conn, REQUEST_BYTES, 3)
        request = json.loads(data)
    except (OSError, ValueError):
        conn.close()
        return 0
    pid = os.fork()
    if pid == 0:
        listener.close()
        for other in waiting.values():  # other tests' status connections are not this child's
            other.close()
        for fd in wake:
            os.close(fd)
        _become(request, fds, conn)
    for fd in fds:
        os.close(fd)
    conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
    return pid


def _become(request: dict, fds: list[int], conn: socket.socket) -> None:
    """In the child: take the request's descriptors, environment and directory, run it, and exit."""
    import io
    import runpy

    conn.close()
    signal.set_wakeup_fd(-1)
    for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    if request.get("nice"):
        os.nice(request["nice"])
    unbuffered = bool(os.environ.get("PYTHONUNBUFFERED"))
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", write_through=unbuffered)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8",
                                  errors="backslashreplace", line_buffering=True)
    sys.argv = list(request["argv"])
    code = 0
    try:
        if request["kind"] == "flask":
            import types

            from flask.cli import main

            script = sys.modules["__main__"] = types.ModuleType("__main__")  # as the `flask` script runs:
            script.__file__, script.__spec__ = sys.argv[0], None  # click names the program from it
            main()
        else:
            sys.path[0] = request["cwd"]
            runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        code = _exit_code(exc.code)
    except KeyboardInterrupt:
        _flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)  # as CPython does: die by the signal
    except BaseException:  # noqa: BLE001 - report it through sys.excepthook as the interpreter does, and exit 1
        sys.excepthook(*sys.exc_info())
        code = 1
    atexit._run_exitfuncs()
    _flush()
    os._exit(code)


def _exit_code(code: object) -> int:
    """Map SystemExit's argument to an exit status, printing a message as the interpreter does."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _flush() -> None:
    """Flush the child's standard streams, ignoring a reader that went away."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


# ---------------------------------------------------------------- the client (in the test process)

class _Server:
    """This test process's fork server, started on first use and stopped at exit."""

    lock = threading.Lock()
    proc: subprocess.Popen | None = None
    path = ""

    @classmethod
    def address(cls) -> str:
        """Return the server's socket path, starting it if needed."""
        with cls.lock:
            if cls.proc is None or cls.proc.poll() is not None:
                cls.path = os.path.join(tempfile.mkdtemp(prefix="upk-fork-"), "sock")
                env = {**os.environ, "PYTHONUNBUFFERED": "1"}
                cls.proc = subprocess.Popen([sys.executable, "-m", "tests.forkserver", cls.path], cwd=ROOT, env=env,
                                            stdin=subprocess.DEVNULL)
                atexit.register(cls.proc.kill)
                deadline = time.monotonic() + STARTED_WITHIN
                while not os.path.exists(cls.path):
                    if cls.proc.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError("the tests' fork server did not start")
                    time.sleep(0.01)
            return cls.path


def _descriptor(spec, default_pipe: bool) -> tuple[int, object]:
    """Return (fd for the child, our read end or None) for a Popen-style stdout/stderr argument."""
    if spec == subprocess.PIPE or (spec is None and default_pipe):
        r, w = os.pipe()
        return w, r
    if spec == subprocess.DEVNULL:
        return os.open(os.devnull, os.O_RDWR), None
    if spec is None:
        return os.dup(2), None
    fd = spec if isinstance(spec, int) else spec.fileno()
    return os.dup(fd), None


class Child:
    """A forked child with the Popen surface the tests use: pid, returncode, stdout/stderr, wait, poll, signals."""

    def __init__(self, argv: list[str], *, env: dict, cwd: Path | str = ROOT, stdout=None, stderr=None,
                 text: bool = True, nice: int = 0, module: str | None = None):
        self.args = argv
        self.returncode: int | None = None
        out_fd, out_r = _descriptor(stdout, False)
        if stderr == subprocess.STDOUT:
            err_fd, err_r = os.dup(out_fd), None
        else:
            err_fd, err_r = _descriptor(stderr, False)
        in_fd = os.open(os.devnull, os.O_RDONLY)
        request = {"kind": "module" if module else "flask", "module": module, "argv": argv,
                   "env": {k: str(v) for k, v in env.items()}, "cwd": str(cwd), "nice": nice}
        self._conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._conn.connect(_Server.address())
            socket.send_fds(self._conn, [json.dumps(request).encode()], [in_fd, out_fd, err_fd])
        finally:
            for fd in (in_fd, out_fd, err_fd):
                os.close(fd)
        self._buffer = b""
        self.pid = json.loads(self._line(None))["pid"]
        mode = "r" if text else "rb"
        self.stdout = os.fdopen(out_r, mode, encoding="utf-8" if text else None) if out_r is not None else None
        self.stderr = os.fdopen(err_r, mode, encoding="utf-8" if text else None) if err_r is not None else None

    def _line(self, timeout: float | None) -> bytes:
        """Read the server's next line about this child (raise TimeoutExpired when none came in time)."""
        self._conn.settimeout(timeout)
        while b"\n" not in self._buffer:
            try:
                chunk = self._conn.recv(4096)
            except (TimeoutError, BlockingIOError):
                raise subprocess.TimeoutExpired(self.args, timeout) from None
            if not chunk:
                raise RuntimeError("the tests' fork server went away")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the child to exit and return its status (negative: killed by that signal)."""
        if self.returncode is None:
            self.returncode = json.loads(self._line(timeout))["status"]
            self._conn.close()
        return self.returncode

    def poll(self) -> int | None:
        """Return the exit status if the child has exited, else None."""
        if self.returncode is None:
            try:
                self.wait(0.0)
            except subprocess.TimeoutExpired:
                return None
        return self.returncode

    def send_signal(self, sig: int) -> None:
        """Send sig to the child unless it has already been reaped."""
        if self.poll() is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def terminate(self) -> None:
        """SIGTERM the child."""
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        """SIGKILL the child."""
        self.send_signal(signal.SIGKILL)

    def communicate(self, timeout: float | None = None) -> tuple[object, object]:
        """Read stdout and stderr to their end, then wait; return both (None for what is not a pipe)."""
        results: dict[str, object] = {}
        threads = [threading.Thread(target=lambda n=name, s=stream: results.__setitem__(n, s.read()), daemon=True)
                   for name, stream in (("out", self.stdout), ("err", self.stderr)) if stream is not None]
        for thread in threads:
            thread.start()
        deadline = None if timeout is None else time.monotonic() + timeout
        for thread in threads:
            thread.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                raise subprocess.TimeoutExpired(self.args, timeout)
        for stream in (self.stdout, self.stderr):
            if stream is not None:
                stream.close()
        self.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return results.get("out"), results.get("err")


def start(argv: list[str], **kwargs) -> Child | subprocess.Popen:
    """Start `flask ...` (argv[0] the flask script) or `python -m MODULE ...` (module=): forked, or fresh."""
    if enabled():
        return Child(argv, **kwargs)
    module, nice, text = kwargs.pop("module", None), kwargs.pop("nice", 0), kwargs.pop("text", True)
    command = [sys.executable, "-m", module, *argv[1:]] if module else argv
    return subprocess.Popen(command, preexec_fn=(lambda: os.nice(nice)) if nice else None, text=text,
                            stdin=subprocess.DEVNULL, **kwargs)


def run(argv: list[str], *, timeout: float | None = None, **kwargs) -> subprocess.CompletedProcess:
    """Run a child to completion and capture its output, as `subprocess.run(capture_output=True, text=True)`."""
    kwargs.setdefault("stdout", subprocess.PIPE)
    kwargs.setdefault("stderr", subprocess.PIPE)
    child = start(argv, **kwargs)
    try:
        out, err = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        raise
    return subprocess.CompletedProcess(argv, child.returncode, out, err)


if __name__ == "__main__":
    serve(sys.argv[1])
