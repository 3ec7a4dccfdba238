"""Reporting: progress, alerts and summaries to the admins, clicks, exports and per-variant counts."""
