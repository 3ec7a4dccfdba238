"""The bot: update routing, handlers, texts and keyboards."""
