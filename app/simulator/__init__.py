"""A simulated Telegram Bot API server for tests, benchmarks and demos.

    from app.simulator import SimulatorServer, SimulatorControl
    sim = SimulatorServer(token="123456:TEST-token", global_rate=30).start()
    ...  # point the app at sim.base_url
    sim.stop()

See README.md beside this file for config keys, stats and control endpoints.
"""

from app.simulator.control import SimulatorControl
from app.simulator.simulator import SimulatorServer

__all__ = ["SimulatorServer", "SimulatorControl"]
