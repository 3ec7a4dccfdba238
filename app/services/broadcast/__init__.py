"""The broadcast engine: jobs, the bounded pump, progress."""
