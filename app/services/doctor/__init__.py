"""`flask doctor`: read the host's limits (host, db_limits), judge the configuration against them (judge)."""
