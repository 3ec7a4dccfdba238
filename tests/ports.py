"""A free loopback port, for the servers tests start (simulators, gunicorn, Apache, a private MariaDB)."""
import socket


def free_port(host: str = "127.0.0.1") -> int:
    """Return a loopback port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]
