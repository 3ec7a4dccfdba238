"""Sending: the cron policy, the dispatch loop, its Booker, claims, writes, breaker, lease and outcomes."""
