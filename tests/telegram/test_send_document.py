"""sendDocument: a streamed multipart upload, paced and counted like any send, re-read on a retry."""
import base64
import io

from app.simulator.params import parse_params
from app.telegram import multipart
from app.telegram.client import TelegramClient

CSV = ("\ufeffuser_id,username\r\n" + "".join(f"{i},کاربر {i}\r\n" for i in range(20_000))).encode()


class CountingLane:
    """A bot-wide budget lane that grants every slot and counts them."""

    def __init__(self):
        self.slots = 0

    def acquire(self, deadline=None, max_wait=None) -> bool:
        self.slots += 1
        return True

    def block_until(self, until: float) -> None:
        pass


def test_the_upload_arrives_whole_and_takes_a_budget_slot(simulator):
    lane = CountingLane()
    with TelegramClient(simulator.token, simulator.base_url) as client:
        client.budget = lane
        message = client.send_document(42, "ledger.csv", io.BytesIO(CSV), caption="گزارش #۱")
    assert message["document"]["file_name"] == "ledger.csv" and message["caption"] == "گزارش #۱"
    [record] = simulator.deliveries("sendDocument", 42)
    assert base64.b64decode(record["document_base64"]) == CSV
    assert lane.slots == 1


def test_a_429_retry_sends_the_file_again_from_its_start(simulator):
    simulator.configure(fail_429_ratio=1.0, fault_methods=("sendDocument",), retry_after_range=(1, 1))
    sleeps = []

    def sleep(seconds):
        sleeps.append(seconds)
        simulator.configure(fail_429_ratio=0.0)

    stream = io.BytesIO(CSV)
    with TelegramClient(simulator.token, simulator.base_url, sleep=sleep) as client:
        client.send_document(42, "ledger.csv", stream)
    assert sleeps == [1] and simulator.stats()["calls"]["sendDocument"] == 2
    [record] = simulator.deliveries("sendDocument", 42)
    assert base64.b64decode(record["document_base64"]) == CSV


def test_the_body_is_streamed_in_chunks_with_an_exact_length():
    content_type, length, chunks = multipart.encode(
        {"chat_id": 42, "caption": "سلام", "reply_markup": {"inline_keyboard": []}},
        {"document": multipart.Upload("a.csv", io.BytesIO(CSV), "text/csv")})
    parts = list(chunks)
    assert max(map(len, parts)) <= max(multipart.CHUNK, 1024) and len(parts) > len(CSV) // multipart.CHUNK
    body = b"".join(parts)
    assert len(body) == length
    params = parse_params("", content_type, body)
    assert (params["chat_id"], params["caption"], params["reply_markup"]) == ("42", "سلام", '{"inline_keyboard": []}')
    assert params["document"].data == CSV and params["document"].filename == "a.csv"
