"""Content: what a broadcast says and how Telegram is asked to deliver it (pure rules and parameters)."""
