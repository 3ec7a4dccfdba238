"""The bot-wide Telegram budget as pacers: drop-ins for app.telegram.pacing, backed by the database.

Every process and thread takes its slots from one timeline per lane in
``telegram_budget`` (app/repository/budget/), so the sum of all
counted calls stays under one cap however many processes Passenger or
gunicorn runs. Slots are database-clock microseconds; each process maps
them to its own time.monotonic() with a ``BudgetClock`` anchor.

Modules: ``clock`` (BudgetClock), ``lane`` (SharedRateLimiter: one lane's
slots), ``holds`` (the limiter's knowledge of the lane's 429 hold),
``jitter`` (JitterGauge, jitter_interval), ``spans`` (an album's span of
slots) and ``chats`` (SharedChatPacer: per-chat spacing).
"""
