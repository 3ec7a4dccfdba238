"""The shared Telegram budget's SQL: one short autocommit statement per operation.

Times are integer microseconds since the Unix epoch on the DATABASE's clock,
read inside each statement, so every app server measures against one clock.

Why this is safe under concurrency: each write is ONE statement that reads
the row, computes the new value and writes it. InnoDB takes the row's
exclusive lock before evaluating the update (a locking, latest-committed
read), and SQLite runs the statement under its single write lock; either way
two processes reserving at once are serialised inside the statement, and the
second one computes from the first one's result, so their slots are
disjoint. Nothing is held across an HTTP call: each statement commits
(autocommit) on its own pooled connection, outside any ORM session, so worker
threads without a Flask app context can call these functions.

Modules: ``engine`` (this process's autocommit engine, the statement
runner and what the statements share), ``lanes`` (the bot-wide lanes,
table telegram_budget) and ``chats`` (per-chat pace, table
telegram_chat_pace).
"""
