"""Logs carry context and never a secret: messages, arguments and tracebacks."""
import io
import logging
import sys

from app.logging_setup import ContextFilter, RedactingFormatter, log_context, redact, register_secrets
from tests.conftest import PUMP_TOKEN, TOKEN, WEBHOOK_SECRET


def capture() -> tuple[logging.Logger, io.StringIO]:
    """Return a logger writing through the app's formatter into a buffer."""
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.addFilter(ContextFilter())
    handler.setFormatter(RedactingFormatter("%(levelname)s [%(ctx)s] %(message)s"))
    logger = logging.getLogger("tests.redaction")
    logger.handlers = [handler]
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    return logger, buffer


def test_secrets_are_redacted_from_messages_arguments_and_tracebacks(app):
    logger, buffer = capture()
    logger.info("calling https://api.telegram.org/bot%s/sendMessage", TOKEN)
    logger.warning(f"header was {WEBHOOK_SECRET}")
    try:
        raise RuntimeError(f"GET /internal/pump?token={PUMP_TOKEN}")
    except RuntimeError:
        logger.exception("failed")
    text = buffer.getvalue()
    for secret in (TOKEN, WEBHOOK_SECRET, PUMP_TOKEN):
        assert secret not in text
    assert text.count("[REDACTED]") == 3
    assert "Traceback" in text


def test_log_lines_carry_the_update_or_path_context():
    logger, buffer = capture()
    token = log_context.set("update=42")
    try:
        logger.info("handled")
    finally:
        log_context.reset(token)
    assert "[update=42] handled" in buffer.getvalue()


def test_short_values_are_not_treated_as_secrets():
    register_secrets("ab", None, "")
    assert redact("ab cd") == "ab cd"


def test_requests_are_logged_with_their_path_and_no_token(app, caplog):
    caplog.set_level(logging.INFO)
    client = app.test_client()
    client.get(f"/internal/pump?token={PUMP_TOKEN}&seconds=1")
    assert all(PUMP_TOKEN not in redact(r.getMessage()) for r in caplog.records)


def test_each_request_logs_its_method_and_path(client):
    seen = []

    class Grab(logging.Handler):
        def emit(self, record):
            seen.append(log_context.get())

    handler = Grab()
    logging.getLogger("app.web.health").addHandler(handler)
    try:
        from app.web import health

        health.log.warning("probe")  # logged outside a request: default context
        client.get("/healthz")
        with client.application.test_request_context("/healthz"):
            client.application.preprocess_request()
            health.log.warning("inside")
    finally:
        logging.getLogger("app.web.health").removeHandler(handler)
    assert seen[-1] == "GET /healthz"


def test_a_hosts_console_handler_is_replaced_and_other_handlers_redact(app):
    """Passenger calls logging.basicConfig() before importing the app."""
    from app.logging_setup import configure_logging

    root = logging.getLogger()
    console = logging.StreamHandler(sys.stderr)
    buffer = io.StringIO()
    foreign = logging.StreamHandler(buffer)
    root.addHandler(console)
    root.addHandler(foreign)
    try:
        configure_logging("INFO")
        assert console not in root.handlers, "no second, unredacted copy on stderr"
        logging.getLogger("tests.host").warning("token %s", TOKEN)
        try:
            raise ValueError(PUMP_TOKEN)
        except ValueError:
            logging.getLogger("tests.host").exception("boom")
    finally:
        root.removeHandler(foreign)
        root.removeHandler(console)
    text = buffer.getvalue()
    assert TOKEN not in text and PUMP_TOKEN not in text
    assert "[REDACTED]" in text and "ValueError" in text
