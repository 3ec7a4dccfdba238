"""Schedule: send times in Tehran time, releasing due jobs, and watching that cron calls."""
