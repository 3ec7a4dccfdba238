"""CLI: python -m app.simulator --port 8081 --token T --latency-ms 80 --global-rate 30."""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from app.simulator.config import DEFAULTS
from app.simulator.simulator import SimulatorServer

# The main thread wakes this often, so a SIGTERM or Ctrl-C stops the simulator promptly.
SIGNAL_CHECK_SECONDS = 0.5

_HELP = {
    "latency_ms": "added to every Bot API call",
    "global_rate": "bot-wide messages per second (0 = unlimited)",
    "paid_rate": "messages per second with allow_paid_broadcast",
    "private_chat_interval": "seconds between messages to one private chat",
    "fail_429_ratio": "probability of an injected 429",
    "fail_5xx_ratio": "probability of an injected 500 (not delivered)",
    "fail_5xx_after_delivery_ratio": "probability of a 502 after delivering",
    "hang_after_delivery_ratio": "probability of hanging after delivering",
}


def build_parser() -> argparse.ArgumentParser:
    """Build an argument parser with one option per config key."""
    parser = argparse.ArgumentParser(prog="python -m app.simulator",
                                     description="Simulated Telegram Bot API server.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8081, help="0 picks a free port")
    parser.add_argument("--token", default="123456:TEST-token")
    for key, default in DEFAULTS.items():
        flag = "--" + key.replace("_", "-")
        if isinstance(default, bool):
            parser.add_argument(flag, dest=key, default=None,
                                action=argparse.BooleanOptionalAction)
        elif key == "retry_after_range":
            parser.add_argument(flag, dest=key, type=int, nargs=2, metavar=("MIN", "MAX"))
        else:
            kind = float if isinstance(default, float) else int
            parser.add_argument(flag, dest=key, type=kind, help=_HELP.get(key))
    return parser


def main(argv: list[str] | None = None) -> int:
    """Serve until SIGTERM or SIGINT."""
    args = vars(build_parser().parse_args(argv))
    host, port, token = args.pop("host"), args.pop("port"), args.pop("token")
    config = {key: value for key, value in args.items() if value is not None}
    sim = SimulatorServer(token=token, host=host, port=port, **config).start()
    stopping = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stopping.set())
    print(f"simulator listening on {sim.base_url}", flush=True)
    while not stopping.wait(SIGNAL_CHECK_SECONDS):
        pass
    sim.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
