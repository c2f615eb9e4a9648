"""The sandbox over real HTTP, started through its CLI as the Swift launcher starts it.

Run: /usr/bin/python3 -m unittest discover -s tools/sandbox
"""

import http.client
import json
import os
import signal
import subprocess
import sys
import time
import unittest
from urllib.parse import quote

HERE = os.path.dirname(os.path.abspath(__file__))
AN12196_URL = "https://sealtrust.io/c?picc_data=EF963FF7828658A599F3041510671E88&cmac=94EED9EE65337086"
CHRONOGRAPH = "0x6efdb2c27761ebe6ee62cb80c5f1eee0a15c1223619b8da212232cea2ec78b23"


class SandboxTestCase(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.process = subprocess.Popen(
            ["/usr/bin/python3", os.path.join(HERE, "sandbox.py"), "--port", "0"],
            stdout=subprocess.PIPE, text=True)
        line = cls.process.stdout.readline()
        assert line.startswith("LISTENING "), line
        cls.port = int(line.split()[1])

    @classmethod
    def tearDownClass(cls):
        cls.process.terminate()
        cls.process.wait(timeout=10)
        cls.process.stdout.close()

    def setUp(self):
        self.call("POST", "/_sandbox/reset")

    def call(self, method, path, body=None, token=None, connection=None):
        """(status, parsed JSON or raw text, headers) of one request."""
        own = connection is None
        connection = connection or http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = f"Bearer {token}"
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        raw = response.read()
        if own:
            connection.close()
        try:
            value = json.loads(raw)
        except ValueError:
            value = raw.decode("utf-8", "replace")
        return response.status, value, {k.lower(): v for k, v in response.getheaders()}

    def tap(self, chip, counter=None):
        body = {"chip": chip} if counter is None else {"chip": chip, "counter": counter}
        return self.call("POST", "/_sandbox/tap", body)[1]["url"]

    def verify(self, url, **extra):
        return self.call("POST", "/scans/verify", dict(url=url, **extra))


class VerifyTests(SandboxTestCase):
    def test_the_an12196_vector_is_authentic_once_then_a_replay(self):
        status, body, _ = self.verify(AN12196_URL)
        self.assertEqual((status, body["status"]), (200, "authentic"))
        status, body, _ = self.verify(AN12196_URL)
        self.assertEqual(status, 409)
        self.assertTrue(body["detail"].startswith("REPLAY_DETECTED: "))

    def test_lower_case_hex_is_compared_as_bytes(self):
        lower = "https://sealtrust.io/c?picc_data=ef963ff7828658a599f3041510671e88&cmac=94eed9ee65337086"
        self.assertEqual(self.verify(lower)[1]["status"], "authentic")

    def test_a_lower_counter_than_the_last_accepted_is_a_replay(self):
        self.assertEqual(self.verify(self.tap("spare-a", counter=10))[0], 200)
        status, body, _ = self.verify(self.tap("spare-a", counter=9))
        self.assertEqual(status, 409)
        self.assertIn("counter 9", body["detail"])

    def test_the_fixed_chips_answer_as_the_interfaces_table_says(self):
        expectations = {
            "authentic": (200, "intact", "inform", False),
            "seal-opened": (200, "opened", "inform", False),
            "seal-opened-degrade": (200, "opened", "degrade", False),
            "seal-opened-silent": (200, "opened", "silent", False),
            "no-seal": (200, None, None, False),
            "stolen": (200, "intact", "inform", True),
            "spare-a": (200, "intact", "inform", False),
        }
        for chip, (status, tamper, policy, theft) in expectations.items():
            got_status, body, _ = self.verify(self.tap(chip))
            self.assertEqual(got_status, status, chip)
            self.assertEqual(body.get("tamper_status"), tamper, chip)
            self.assertEqual(body.get("tamper_policy"), policy, chip)
            self.assertEqual(body["theft_reported"], theft, chip)
            self.assertNotIn("scan_area", body)
        status, body, _ = self.verify(self.tap("authentic"))
        self.assertEqual((body["product_name"], body["brand"], body["gtin"]),
                         ("Chronograph 42", "Maison Exemple", "03701234567890"))
        self.assertEqual(self.verify(self.tap("minting"))[:2],
                         (409, {"detail": "MINT_PENDING: certificate being written"}))
        status, body, _ = self.verify(self.tap("never-registered"))
        self.assertEqual(status, 404)
        self.assertTrue(body["detail"].startswith("CHIP_NOT_REGISTERED: "))

    def test_a_flipped_mac_or_unknown_chip_is_invalid_signature_and_consumes_nothing(self):
        url = self.tap("authentic")
        flipped = url[:-1] + ("0" if url[-1] != "0" else "1")
        self.assertEqual(self.verify(flipped)[1]["status"], "invalid_signature")
        self.assertEqual(self.verify(url)[1]["status"], "authentic")
        junk = "https://sealtrust.io/c?picc_data=00112233445566778899AABBCCDDEEFF&cmac=0011223344556677"
        self.assertEqual(self.verify(junk)[:2][1]["status"], "invalid_signature")

    def test_scan_area_only_when_both_coordinates_are_sent(self):
        body = self.verify(self.tap("spare-b"), latitude=48.85, longitude=2.35)[1]
        self.assertEqual(body["scan_area"], {"city": "Paris", "country": "FR"})
        self.assertNotIn("scan_area", self.verify(self.tap("spare-b"), latitude=48.85)[1])

    def test_unusable_links_are_400_or_422(self):
        self.assertEqual(self.verify("https://sealtrust.io/c?picc_data=EF963FF7828658A599F3041510671E88")[0], 400)
        self.assertEqual(self.verify("https://sealtrust.io/c?picc_data=XYZ&cmac=94EED9EE65337086")[0], 400)
        self.assertEqual(self.verify(AN12196_URL + "&cmac=94EED9EE65337086")[0], 400)
        self.assertEqual(self.verify("https://example.com/c?picc_data=EF963FF7828658A599F3041510671E88&cmac=94EED9EE65337086")[0], 422)
        self.assertEqual(self.verify(" " + AN12196_URL)[0], 422)
        status, body, _ = self.call("POST", "/scans/verify", {"link": AN12196_URL})
        self.assertEqual(status, 422)
        self.assertEqual(body["detail"][0]["loc"], ["body", "url"])
        self.assertEqual(self.call("POST", "/scans/verify", b"{not json")[0], 422)

    def test_the_extra_host_is_a_sealtrust_host(self):
        url = self.call("POST", "/_sandbox/tap", {"chip": "spare-a", "host": "nfc.maison-exemple.com"})[1]["url"]
        self.assertEqual(self.verify(url)[1]["status"], "authentic")


class ReadTests(SandboxTestCase):
    def test_public_passport_by_identifier_and_by_serial(self):
        status, body, _ = self.call("GET", f"/passport/{CHRONOGRAPH}?tier=public")
        self.assertEqual((status, body["access_tier"], body["serial"]), (200, "public", "SN-00042"))
        self.assertNotIn("warranty_until", body)
        self.assertEqual(self.call("GET", "/passport/SN-00042")[1]["identifier"], CHRONOGRAPH)
        self.assertEqual(self.call("GET", "/passport/sn-00042")[1]["identifier"], CHRONOGRAPH)
        self.assertEqual(self.call("GET", f"/passport/{CHRONOGRAPH.upper().replace('0X', '0x')}")[0], 200)

    def test_tier_rules(self):
        self.assertEqual(self.call("GET", "/passport/SN-00042?tier=end_user")[0], 401)
        self.assertEqual(self.call("GET", "/passport/SN-00042?tier=end_user", token="anyone")[1]["access_tier"], "end_user")
        self.assertEqual(self.call("GET", "/passport/SN-00042?tier=repairer")[0], 401)
        self.assertEqual(self.call("GET", "/passport/SN-00042?tier=repairer", token="tok-recycler")[0], 403)
        body = self.call("GET", "/passport/SN-00042?tier=repairer", token="tok-repairer")[1]
        self.assertEqual(body["access_tier"], "repairer")
        self.assertIn("spare_parts", body)
        self.assertEqual(self.call("GET", "/passport/SN-00042?tier=authority", token="tok-authority")[0], 200)
        self.assertEqual(self.call("GET", "/passport/SN-00042", token="tok-revoked")[0], 401)
        status, body, _ = self.call("GET", "/passport/SN-00042?tier=owner")
        self.assertEqual(status, 422)
        self.assertIsInstance(body["detail"], list)

    def test_an_owners_public_read_is_widened(self):
        self.assertEqual(self.call("GET", "/passport/SN-00043", token="tok-owner")[1]["access_tier"], "end_user")
        self.assertEqual(self.call("GET", "/passport/SN-00043", token="tok-user")[1]["access_tier"], "public")

    def test_a_serial_with_a_slash_must_be_one_encoded_segment(self):
        serial = "SN-2024/07 é#1"
        self.assertEqual(self.call("GET", "/passport/" + quote(serial, safe=""))[1]["serial"], serial)
        status, body, headers = self.call("GET", "/passport/SN-2024/07%20%C3%A9%231")
        self.assertEqual(status, 404)
        self.assertTrue(headers["content-type"].startswith("text/html"))

    def test_proofs_in_the_four_anchoring_cases(self):
        cases = {"SN-00042": "anchored", "SN-00043": "never_anchored",
                 "SN-00044": "modified_after_anchoring", "SN-00045": None}
        for serial, state in cases.items():
            body = self.call("GET", f"/passport/{serial}/proof")[1]
            self.assertEqual(body.get("anchoring", {}).get("state"), state, serial)
            self.assertIn("data_hash", body)
        references = {"03701234567890": "anchored", "03701234567906": "never_anchored",
                      "03701234567913": "modified_after_anchoring", "03701234567920": None}
        for gtin, state in references.items():
            self.assertEqual(self.call("GET", f"/reference/{gtin}")[1]["gtin"], gtin)
            body = self.call("GET", f"/reference/{gtin}/proof")[1]
            self.assertEqual(body.get("anchoring", {}).get("state"), state, gtin)
        self.assertEqual(self.call("GET", "/reference/03700000000000")[0], 404)
        self.assertEqual(self.call("GET", "/reference/12345")[0], 422)

    def test_history_is_not_served_newest_first(self):
        events = self.call("GET", "/history/SN-00042")[1]["events"]
        self.assertEqual(len(events), 5)
        self.assertNotEqual(events[0]["kind"], "repair_logged")

    def test_certificate_json_and_pdf(self):
        body = self.call("GET", "/certificate/SN-00042")[1]
        self.assertEqual((body["identifier"], body["status"]), (CHRONOGRAPH, "valid"))
        status, pdf, headers = self.call("GET", f"/certificate/{CHRONOGRAPH}.pdf")
        self.assertEqual((status, headers["content-type"]), (200, "application/pdf"))
        self.assertTrue(pdf.startswith("%PDF-"))
        self.assertEqual(self.call("GET", "/certificate/SN-00050")[0], 404)


class ClaimTests(SandboxTestCase):
    def test_a_fresh_tap_gets_a_ticket_that_completes(self):
        status, body, _ = self.call("POST", "/claims/ticket", {"url": self.tap("authentic")})
        ticket = body["ticket"]
        self.assertEqual(status, 200)
        self.assertEqual(set(ticket), {"id", "nonce", "expires_at"})
        self.assertEqual(self.call("POST", "/claims/complete", {"ticket_id": ticket["id"], "nonce": ticket["nonce"]})[0], 401)
        self.assertEqual(self.call("POST", "/claims/complete", {"ticket_id": ticket["id"], "nonce": "wrong"}, token="tok-user")[0], 403)
        status, body, _ = self.call("POST", "/claims/complete", {"ticket_id": ticket["id"], "nonce": ticket["nonce"]}, token="tok-user")
        self.assertEqual((status, body["state"]), (200, "pending"))
        self.assertEqual(self.call("GET", f"/claims/{ticket['id']}", token="tok-user")[1]["state"], "consumed")
        self.assertEqual(self.call("GET", "/passport/SN-00042", token="tok-user")[1]["access_tier"], "end_user")
        body = self.call("POST", "/claims/ticket", {"url": self.tap("authentic")})[1]
        self.assertEqual(body["ticket"], None)
        self.assertTrue(body["detail"].startswith("ALREADY_CLAIMED"))

    def test_refusals_without_ticket(self):
        for chip, code in [("seal-opened", "ALREADY_CLAIMED"), ("seal-opened-degrade", "ALREADY_TRANSFERRED"),
                           ("seal-opened-silent", "CLAIM_IN_PROGRESS"), ("never-registered", "UNKNOWN_IDENTIFIER")]:
            status, body, _ = self.call("POST", "/claims/ticket", {"url": self.tap(chip)})
            self.assertEqual((status, body["ticket"]), (200, None), chip)
            self.assertTrue(body["detail"].startswith(code), chip)
        self.assertEqual(self.call("POST", "/claims/ticket", {"url": self.tap("minting")})[0], 409)

    def test_from_serial(self):
        self.assertEqual(self.call("POST", "/claims/from-serial", {"serial": "SN-00091"})[0], 401)
        self.assertIsNotNone(self.call("POST", "/claims/from-serial", {"serial": "SN-00091"}, token="tok-user")[1]["ticket"])
        self.assertEqual(self.call("POST", "/claims/from-serial", {"serial": "SN-00043"}, token="tok-user")[0], 409)
        self.assertEqual(self.call("POST", "/claims/from-serial", {"serial": "SN-00404"}, token="tok-user")[0], 404)
        self.assertEqual(self.call("POST", "/claims/from-serial", {"serial": "SN-00091"}, token="tok-no-serial-route")[0], 404)
        body = self.call("POST", "/claims/from-serial", {"serial": "SN-99999"}, token="tok-user")[1]
        self.assertTrue(body["detail"].startswith("UNKNOWN_IDENTIFIER"))

    def test_purchase_code_and_the_two_502s(self):
        def complete(ticket_id, nonce, **extra):
            return self.call("POST", "/claims/complete", dict(ticket_id=ticket_id, nonce=nonce, **extra), token="tok-user")
        status, body, _ = complete("tkt-purchase-code", "nonce-code-2e3f")
        self.assertEqual(status, 422)
        self.assertTrue(body["detail"].startswith("PURCHASE_CODE_REQUIRED"))
        self.assertEqual(complete("tkt-purchase-code", "nonce-code-2e3f", purchase_code="PC-0000")[0], 422)
        self.assertEqual(complete("tkt-purchase-code", "nonce-code-2e3f", purchase_code="PC-7781")[0], 200)
        status, body, _ = complete("tkt-not-sent", "nonce-not-sent-5d6e")
        self.assertEqual((status, body["detail"].split(":")[0]), (502, "TRANSFER_NOT_SENT"))
        self.assertEqual(complete("tkt-not-sent", "nonce-not-sent-5d6e")[0], 200)
        status, body, _ = complete("tkt-sent-pending", "nonce-sent-pending-8f9a")
        self.assertEqual((status, body["detail"].split(":")[0]), (502, "TRANSFER_SENT_PENDING"))
        self.assertEqual(complete("tkt-expired", "nonce-expired-9e8b")[1]["detail"].split(":")[0], "CLAIM_EXPIRED")

    def test_claim_states(self):
        expected = {"tkt-issued": "issued", "tkt-consumed": "consumed", "tkt-expired": "expired",
                    "tkt-canceled": "canceled", "tkt-under-review": "under_review"}
        for ticket_id, state in expected.items():
            self.assertEqual(self.call("GET", f"/claims/{ticket_id}", token="tok-user")[1],
                             {"id": ticket_id, "state": state})
        self.assertEqual(self.call("GET", "/claims/tkt-issued")[0], 401)
        self.assertEqual(self.call("GET", "/claims/tkt-nope", token="tok-user")[0], 404)


class AdminTests(SandboxTestCase):
    def test_requests_are_recorded_raw_and_admin_calls_are_not(self):
        self.call("GET", "/passport/SN%2D00042?tier=public", token="secret")
        self.call("POST", "/scans/verify", b'{"url": "x"}')
        records = self.call("GET", "/_sandbox/requests")[1]
        self.assertEqual([r["path"] for r in records], ["/passport/SN%2D00042", "/scans/verify"])
        self.assertEqual(records[0]["query"], "tier=public")
        self.assertEqual(records[0]["headers"]["authorization"], "Bearer secret")
        self.assertEqual(records[1]["body"], '{"url": "x"}')

    def test_limits_answer_429_with_retry_after_and_the_window_slides(self):
        self.call("POST", "/_sandbox/limits", {"history": 2})
        self.call("POST", "/_sandbox/window", {"seconds": 1})
        self.assertEqual(self.call("GET", "/history/SN-00042")[0], 200)
        self.assertEqual(self.call("GET", "/history/SN-00042")[0], 200)
        status, body, headers = self.call("GET", "/history/SN-00042")
        self.assertEqual(status, 429)
        self.assertTrue(body["detail"].startswith("RATE_LIMITED"))
        self.assertEqual(headers["retry-after"], "1")
        self.assertEqual(self.call("GET", "/certificate/SN-00042")[0], 200)
        time.sleep(1.1)
        self.assertEqual(self.call("GET", "/history/SN-00042")[0], 200)

    def test_a_limit_of_zero_refuses_every_call(self):
        self.call("POST", "/_sandbox/limits", {"history": 0})
        status, _, headers = self.call("GET", "/history/SN-00042")
        self.assertEqual((status, headers["retry-after"]), (429, "60"))

    def test_the_default_verify_limit_is_30(self):
        for _ in range(30):
            self.assertEqual(self.verify("https://sealtrust.io/c?picc_data=x&cmac=y")[0], 400)
        self.assertEqual(self.verify("https://sealtrust.io/c?picc_data=x&cmac=y")[0], 429)

    def test_faults_replace_delay_and_drop_for_count_requests(self):
        self.call("POST", "/_sandbox/fault", {"path": "/history", "status": 200, "body": "not json", "count": 1})
        self.assertEqual(self.call("GET", "/history/SN-00042")[:2], (200, "not json"))
        self.assertEqual(self.call("GET", "/history/SN-00042")[0], 200)
        self.call("POST", "/_sandbox/fault", {"path": "/passport", "status": 503, "body": "<html>down</html>",
                                              "content_type": "text/html", "count": 2})
        status, body, headers = self.call("GET", "/passport/SN-00042")
        self.assertEqual((status, body, headers["content-type"]), (503, "<html>down</html>", "text/html"))
        self.assertEqual(self.call("GET", "/passport/SN-00042")[0], 503)
        self.assertEqual(self.call("GET", "/passport/SN-00042")[0], 200)
        self.call("POST", "/_sandbox/fault", {"path": "/claims/", "method": "GET", "status": 429, "count": 1,
                                              "body": '{"detail":"RATE_LIMITED: x"}', "headers": {"Retry-After": "7"}})
        self.assertEqual(self.call("POST", "/claims/complete", {}, token="t")[0], 422)
        status, _, headers = self.call("GET", "/claims/tkt-issued", token="t")
        self.assertEqual((status, headers["retry-after"]), (429, "7"))
        self.call("POST", "/_sandbox/fault", {"path": "/certificate", "delay_s": 0.5, "count": 1})
        started = time.monotonic()
        self.assertEqual(self.call("GET", "/certificate/SN-00042")[0], 200)
        self.assertGreaterEqual(time.monotonic() - started, 0.5)
        self.call("POST", "/_sandbox/fault", {"path": "/scans", "close": True, "count": 1})
        with self.assertRaises((http.client.RemoteDisconnected, ConnectionError)):
            self.verify(AN12196_URL)
        self.assertEqual(len(self.call("GET", "/_sandbox/requests")[1]), 9)

    def test_each_served_request_records_the_sandboxs_own_time(self):
        self.call("POST", "/_sandbox/fault", {"path": "/certificate", "delay_s": 0.2, "count": 1})
        self.assertEqual(self.call("GET", "/certificate/SN-00042")[0], 200)
        self.assertEqual(self.verify(AN12196_URL)[0], 200)
        delayed, verified = self.call("GET", "/_sandbox/requests")[1]
        self.assertGreaterEqual(delayed["service_ms"], 200)
        self.assertGreater(verified["service_ms"], 0)
        self.assertLess(verified["service_ms"], delayed["service_ms"])

    def test_linger_answers_then_leaves_the_next_request_on_that_connection_unanswered(self):
        self.call("POST", "/_sandbox/fault", {"path": "/passport", "linger_s": 0.5, "count": 1})
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
        self.assertEqual(self.call("GET", "/passport/SN-00042", connection=connection)[0], 200)
        started = time.monotonic()
        with self.assertRaises((http.client.RemoteDisconnected, ConnectionError)):
            self.call("GET", "/passport/SN-00042", connection=connection)
        self.assertGreaterEqual(time.monotonic() - started, 0.4)
        connection.close()
        self.assertEqual([r["path"] for r in self.call("GET", "/_sandbox/requests")[1]], ["/passport/SN-00042"])

    def test_a_request_delayed_past_a_reset_is_dropped_unserved(self):
        url = self.tap("spare-a", counter=50)
        self.call("POST", "/_sandbox/fault", {"path": "/scans/verify", "delay_s": 0.5})
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=0.1)
        with self.assertRaises(TimeoutError):
            self.call("POST", "/scans/verify", {"url": url}, connection=connection)
        connection.close()
        self.call("POST", "/_sandbox/reset")
        time.sleep(0.7)
        chips = {c["name"]: c for c in self.call("GET", "/_sandbox/chips")[1]}
        self.assertIsNone(chips["spare-a"]["last_counter"])
        self.assertEqual(self.verify(url)[1]["status"], "authentic")

    def test_a_chunked_body_is_read_whole(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        body = json.dumps({"url": self.tap("spare-b")}).encode()
        connection.request("POST", "/scans/verify", body=iter([body[:10], body[10:]]),
                           headers={"Content-Type": "application/json"}, encode_chunked=True)
        response = connection.getresponse()
        self.assertEqual((response.status, json.loads(response.read())["status"]), (200, "authentic"))
        connection.close()

    def test_unknown_routes_are_an_html_404_and_keep_alive_holds(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        status, body, headers = self.call("GET", "/api/v2/scans/verify", connection=connection)
        self.assertEqual(status, 404)
        self.assertIn("<html>", body)
        self.assertEqual(self.call("GET", "/passport/SN-00042", connection=connection)[0], 200)
        self.assertEqual(self.call("POST", "/passport/SN-00042", {}, connection=connection)[0], 405)
        connection.close()

    def test_chips_report_their_last_counter(self):
        self.verify(self.tap("spare-b", counter=77))
        chips = {c["name"]: c for c in self.call("GET", "/_sandbox/chips")[1]}
        self.assertEqual(chips["spare-b"]["last_counter"], 77)
        self.assertIsNone(chips["spare-a"]["last_counter"])
        self.assertEqual(chips["an12196"]["uid"], "04DE5F1EACC040")


class LifecycleTests(unittest.TestCase):
    def launch(self, *arguments, **options):
        process = subprocess.Popen(["/usr/bin/python3", os.path.join(HERE, "sandbox.py"), *arguments],
                                   stdout=subprocess.PIPE, text=True, **options)
        self.addCleanup(process.stdout.close)
        self.addCleanup(lambda: process.poll() is None and process.kill())
        line = process.stdout.readline()
        self.assertRegex(line, r"^LISTENING [0-9]+\n$")
        return process, int(line.split()[1])

    def test_sigterm_stops_it_even_when_the_parent_blocked_signals(self):
        process, _ = self.launch(preexec_fn=lambda: signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM}))
        process.terminate()
        self.assertEqual(process.wait(timeout=5), 0)

    def test_it_exits_when_stdin_closes_with_exit_with_stdin(self):
        process, port = self.launch("--exit-with-stdin", stdin=subprocess.PIPE)
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        connection.request("GET", "/_sandbox/window")
        self.assertEqual(json.loads(connection.getresponse().read()), {"seconds": 60.0})
        connection.close()
        process.stdin.close()
        self.assertEqual(process.wait(timeout=5), 0)

    def test_window_option_and_ipv6_host(self):
        process, port = self.launch("--window", "2.5", "--host", "::1")
        connection = http.client.HTTPConnection("::1", port, timeout=5)
        connection.request("GET", "/_sandbox/window")
        self.assertEqual(json.loads(connection.getresponse().read()), {"seconds": 2.5})
        connection.close()
        process.terminate()
        process.wait(timeout=5)

    def test_a_fault_given_at_start_answers_the_first_request(self):
        process, port = self.launch("--fault", json.dumps({"path": "/passport", "status": 503, "count": 1}))
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        connection.request("GET", "/passport/" + CHRONOGRAPH)
        self.assertEqual(connection.getresponse().status, 503)
        connection.close()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        connection.request("GET", "/passport/" + CHRONOGRAPH)
        self.assertEqual(connection.getresponse().status, 200)
        connection.close()
        process.terminate()
        process.wait(timeout=5)

    def test_a_bad_fault_at_start_is_refused(self):
        process = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "sandbox.py"), "--fault", '{"path":"no-slash"}'],
                                 capture_output=True, text=True, timeout=10)
        self.assertEqual(process.returncode, 2)
        self.assertIn("--fault: path must be a string starting with /", process.stderr)


if __name__ == "__main__":
    unittest.main()
