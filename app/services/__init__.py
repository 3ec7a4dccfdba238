"""Services: the bot's use cases, above the repository and the Telegram client."""
