"""Drip chains: steps sent some time after a trigger, each (step, user) once, every send through the engine."""
