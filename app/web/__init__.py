"""HTTP endpoints: the Telegram webhook, health, and the internal pump."""
