"""Data access: the SQL that coordinates concurrency lives here."""
