"""sendDocument keeps an upload's bytes; "refuse" and "lose" script one chat's failures."""
import base64

import requests

from app.simulator.control import SimulatorControl

CSV = "\ufeffuser_id,username\r\n1,علی\r\n".encode()


def test_multipart_send_document_records_the_file_and_answers_a_message(sim):
    response = requests.post(f"{sim.api_url}/sendDocument", data={"chat_id": "42", "caption": "گزارش"},
                             files={"document": ("ledger.csv", CSV, "text/csv")}, timeout=5)
    message = response.json()["result"]
    assert message["document"]["file_name"] == "ledger.csv" and message["document"]["file_size"] == len(CSV)
    [record] = sim.deliveries("sendDocument", 42)
    assert (record["document_name"], base64.b64decode(record["document_base64"]), record["caption"]) == (
        "ledger.csv", CSV, "گزارش")


def test_send_document_by_file_id_and_without_a_document(bot, sim):
    assert bot.ok("sendDocument", chat_id=42, document="file-abc")["document"]["file_id"] == "file-abc"
    assert sim.deliveries("sendDocument")[0]["document_base64"] is None
    assert bot.error("sendDocument", chat_id=42)[:2] == (400, "Bad Request: there is no document in the request")


def test_a_refused_chat_gets_a_400_and_a_lost_one_a_502_after_delivery(bot, sim):
    control = SimulatorControl(sim.base_url)  # over the control API, as a separate process would
    control.refuse(7)
    control.lose(8)
    assert bot.error("sendMessage", chat_id=7, text="x")[:2] == (400, "Bad Request: message refused by the simulator")
    assert bot("sendMessage", chat_id=8, text="x").status_code == 502
    assert [d["chat_id"] for d in sim.deliveries("sendMessage")] == [8]  # delivered, though the answer was lost
    control.restore(7, 8)
    assert bot.ok("sendMessage", chat_id=7, text="y")["chat"]["id"] == 7
