"""The SealTrust API contract (shared/spec/sealtrust-api.md) over the sandbox's catalogue and ledger."""

import hmac
import json
import math
import re
import secrets
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

import sun
from ledger import rfc3339, utc_now

TIERS = ("public", "end_user", "repairer", "recycler", "upstream", "authority")
_HEX = re.compile(r"[0-9a-fA-F]+")
_GTIN = re.compile(r"[0-9]{8}|[0-9]{12,14}")

# Rough scan areas: the nearest of these cities to the coordinates sent.
_CITIES = [
    ("Lyon", "FR", 45.764, 4.8357),
    ("Paris", "FR", 48.8566, 2.3522),
    ("Marseille", "FR", 43.2965, 5.3698),
    ("Geneva", "CH", 46.2044, 6.1432),
    ("Berlin", "DE", 52.52, 13.405),
    ("London", "GB", 51.5072, -0.1276),
    ("Milan", "IT", 45.4642, 9.19),
    ("New York", "US", 40.7128, -74.006),
    ("Tokyo", "JP", 35.6762, 139.6503),
]

_NOT_FOUND_PAGE = (
    "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n"
    "<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
)


@dataclass
class Reply:
    status: int
    body: bytes
    content_type: str = "application/json"   # the whole header value, sent as is
    headers: dict = field(default_factory=dict)

    @classmethod
    def json(cls, status: int, value, headers: dict = None) -> "Reply":
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        return cls(status, text.encode("utf-8"), "application/json", headers or {})

    @classmethod
    def error(cls, status: int, detail, headers: dict = None) -> "Reply":
        return cls.json(status, {"detail": detail}, headers)


@dataclass
class Request:
    method: str
    path: str           # raw, still percent-encoded
    query: str
    headers: dict       # lower-case names
    body: bytes
    client_ip: str

    def bearer_token(self):
        scheme, _, token = self.headers.get("authorization", "").partition(" ")
        token = token.strip()
        return token if scheme.lower() == "bearer" and token else None


class Invalid(Exception):
    """A request the sandbox refuses before doing anything: carries the reply."""

    def __init__(self, reply: Reply):
        super().__init__(reply.status)
        self.reply = reply


def _validation(kind: str, location: list, message: str, given=None) -> Invalid:
    """A 422 shaped like FastAPI's: the detail is a list of errors."""
    entry = {"type": kind, "loc": location, "msg": message}
    if given is not None:
        entry["input"] = given
    return Invalid(Reply.error(422, [entry]))


def _json_object(request: Request) -> dict:
    try:
        value = json.loads(request.body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as failure:
        raise _validation("json_invalid", ["body"], f"JSON decode error: {failure}")
    if not isinstance(value, dict):
        raise _validation("model_attributes_type", ["body"], "Input should be a valid dictionary", value)
    return value


def _required_string(body: dict, name: str) -> str:
    if name not in body:
        raise _validation("missing", ["body", name], "Field required", body)
    if not isinstance(body[name], str):
        raise _validation("string_type", ["body", name], "Input should be a valid string", body[name])
    return body[name]


def _optional_number(body: dict, name: str, low: float, high: float):
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _validation("float_type", ["body", name], "Input should be a valid number", value)
    if not low <= value <= high:
        raise _validation("value_error", ["body", name], f"Input should be between {low} and {high}", value)
    return float(value)


def _scan_area(latitude: float, longitude: float) -> dict:
    def distance(city):
        _, _, lat, lon = city
        return (lat - latitude) ** 2 + ((lon - longitude) * math.cos(math.radians(latitude))) ** 2

    name, country, _, _ = min(_CITIES, key=distance)
    return {"city": name, "country": country}


@dataclass(frozen=True)
class ChipProof:
    url: str
    picc_data: bytes
    cmac: bytes


class SealTrustAPI:
    def __init__(self, catalogue, ledger):
        self.catalogue = catalogue
        self.ledger = ledger

    # Routing --------------------------------------------------------------

    def route(self, request: Request):
        """(bucket, handler, path arguments) for a known route, ("", None, None) for an unknown one.

        A known path with the wrong method gives a handler answering 405.
        """
        try:
            segments = [unquote(s, errors="strict") for s in request.path.split("/")[1:]]
        except UnicodeDecodeError:
            return "", None, None
        method = request.method
        table = [
            (["scans", "verify"], "POST", "verify", self.verify),
            (["claims", "ticket"], "POST", "ticket", self.ticket_from_chip),
            (["claims", "from-serial"], "POST", "claim", self.ticket_from_serial),
            (["claims", "complete"], "POST", "claim", self.complete_claim),
            (["claims", None], "GET", "claim", self.claim_state),
            (["passport", None], "GET", "passport", self.passport),
            (["passport", None, "proof"], "GET", "passport", self.passport_proof),
            (["reference", None], "GET", "passport", self.reference),
            (["reference", None, "proof"], "GET", "passport", self.reference_proof),
            (["certificate", None], "GET", "certificate", self.certificate),
            (["history", None], "GET", "history", self.history),
        ]
        path_matched = False
        for pattern, wanted_method, bucket, handler in table:
            if len(pattern) != len(segments):
                continue
            if any(p is not None and p != s for p, s in zip(pattern, segments)):
                continue
            arguments = [s for p, s in zip(pattern, segments) if p is None]
            if any(a == "" for a in arguments):
                continue
            if method == wanted_method:
                return bucket, handler, arguments
            path_matched = True
        if path_matched:
            return "", self._method_not_allowed, []
        return "", None, None

    @staticmethod
    def not_found_page() -> Reply:
        return Reply(404, _NOT_FOUND_PAGE.encode("utf-8"), "text/html; charset=utf-8")

    @staticmethod
    def _method_not_allowed(request: Request) -> Reply:
        return Reply.error(405, "Method Not Allowed")

    # Chip URLs and SUN ---------------------------------------------------

    def _read_chip_url(self, url: str) -> ChipProof:
        if url != url.strip() or any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in url):
            raise Invalid(Reply.error(422, "NOT_A_CHIP_URL: white space or control characters in the URL"))
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            raise Invalid(Reply.error(422, "NOT_A_CHIP_URL: not a URL"))
        host = parts.hostname or ""
        if (parts.scheme.lower() != "https" or port is not None or parts.username is not None
                or not self.catalogue.is_sealtrust_host(host) or parts.path != "/c"):
            raise Invalid(Reply.error(422, "NOT_A_CHIP_URL: not a SealTrust chip URL"))
        values = {"picc_data": [], "cmac": []}
        for pair in parts.query.split("&"):
            name, _, value = pair.partition("=")
            if name in values:
                values[name].append(value)
        for name, found in values.items():
            if len(found) != 1 or found[0] == "":
                raise Invalid(Reply.error(400, f"MISSING_PROOF: exactly one non-empty {name} is required"))
        picc_hex, cmac_hex = values["picc_data"][0], values["cmac"][0]
        if len(picc_hex) != 32 or not _HEX.fullmatch(picc_hex):
            raise Invalid(Reply.error(400, "MALFORMED_PROOF: picc_data must be 32 hexadecimal digits"))
        if len(cmac_hex) != 16 or not _HEX.fullmatch(cmac_hex):
            raise Invalid(Reply.error(400, "MALFORMED_PROOF: cmac must be 16 hexadecimal digits"))
        return ChipProof(url, bytes.fromhex(picc_hex), bytes.fromhex(cmac_hex))

    def _authenticate_tap(self, proof: ChipProof):
        """The chip whose keys verify this SUN message and its counter, or None (invalid signature)."""
        for chip in self.catalogue.chips:
            picc = sun.decrypt_picc_data(chip.meta_read_key, proof.picc_data)
            if picc is None or picc.uid != chip.uid:
                continue
            if sun.mac_matches(chip.file_read_key, picc, proof.cmac):
                return chip, picc.counter
            return None
        return None

    def _fresh_tap(self, url: str):
        """Reads, authenticates and consumes a chip URL: (chip, None) or (None, the reply to give)."""
        proof = self._read_chip_url(url)
        authenticated = self._authenticate_tap(proof)
        if authenticated is None:
            return None, None
        chip, counter = authenticated
        replay = self.ledger.accept_tap(chip.name, counter, url)
        if replay is not None:
            raise Invalid(Reply.error(409, f"REPLAY_DETECTED: {replay}"))
        if chip.registration == "minting":
            raise Invalid(Reply.error(409, "MINT_PENDING: certificate being written"))
        return chip, counter

    # Endpoints ----------------------------------------------------------

    def verify(self, request: Request) -> Reply:
        body = _json_object(request)
        url = _required_string(body, "url")
        latitude = _optional_number(body, "latitude", -90, 90)
        longitude = _optional_number(body, "longitude", -180, 180)
        chip, _ = self._fresh_tap(url)
        if chip is None:
            return Reply.json(200, {"status": "invalid_signature", "scan_id": "scn-" + secrets.token_hex(6)})
        if chip.registration == "never_registered":
            return Reply.error(404, "CHIP_NOT_REGISTERED: no product was ever registered for this chip")
        item = self.catalogue.items[chip.item_key]
        answer = {
            "status": "authentic",
            "identifier": item["identifier"],
            "product_name": item["product_name"],
            "brand": item["brand"],
            "gtin": item["gtin"],
            "theft_reported": item.get("theft_reported", False),
            "scan_id": "scn-" + secrets.token_hex(6),
            "verified_at": rfc3339(utc_now()),
        }
        if chip.tamper_status is not None:
            answer["tamper_status"] = chip.tamper_status
        if chip.tamper_policy is not None:
            answer["tamper_policy"] = chip.tamper_policy
        if latitude is not None and longitude is not None:
            answer["scan_area"] = _scan_area(latitude, longitude)
        return Reply.json(200, answer)

    def _item_or_404(self, identifier: str, code: str):
        item = self.catalogue.find_item(identifier)
        if item is None:
            raise Invalid(Reply.error(404, f"{code}: no item {identifier!r}"))
        return item

    def _token_or_401(self, request: Request, required: bool):
        token = request.bearer_token()
        if token is None:
            if required:
                raise Invalid(Reply.error(401, "NOT_AUTHENTICATED: a bearer token is required"))
            return None
        if self.catalogue.token(token).get("revoked"):
            raise Invalid(Reply.error(401, "INVALID_TOKEN: this session token was revoked"))
        return token

    def passport(self, request: Request, identifier: str) -> Reply:
        tiers = [v for k, _, v in (p.partition("=") for p in request.query.split("&")) if k == "tier"]
        tier = unquote(tiers[-1]) if tiers else "public"
        if tier not in TIERS:
            raise _validation("enum", ["query", "tier"],
                              "Input should be " + ", ".join(f"'{t}'" for t in TIERS), tier)
        token = self._token_or_401(request, required=tier != "public")
        if tier not in ("public", "end_user") and tier not in self.catalogue.token(token).get("tiers", []):
            return Reply.error(403, f"TIER_FORBIDDEN: this token does not hold the {tier} tier")
        item = self._item_or_404(identifier, "PASSPORT_NOT_FOUND")
        with self.ledger.lock:
            owner = self.ledger.claims[item["key"]].get("owner")
        served = tier
        if tier == "public" and token is not None and owner == token:
            served = "end_user"
        answer = {
            "identifier": item["identifier"],
            "access_tier": served,
            "product_name": item["product_name"],
            "brand": item["brand"],
            "gtin": item["gtin"],
            "serial": item["serial"],
        }
        answer.update(item["passport"]["public"])
        if served != "public":
            answer.update(item["passport"].get(served, {}))
        return Reply.json(200, answer)

    def passport_proof(self, request: Request, identifier: str) -> Reply:
        item = self._item_or_404(identifier, "PASSPORT_NOT_FOUND")
        return Reply.json(200, item["proof"])

    def _reference_or_error(self, gtin: str):
        if not _GTIN.fullmatch(gtin):
            raise _validation("string_pattern_mismatch", ["path", "gtin"],
                              "A GTIN is 8, 12, 13 or 14 digits", gtin)
        reference = self.catalogue.references.get(gtin)
        if reference is None:
            raise Invalid(Reply.error(404, f"REFERENCE_NOT_FOUND: no product reference {gtin}"))
        return reference

    def reference(self, request: Request, gtin: str) -> Reply:
        reference = self._reference_or_error(gtin)
        answer = {
            "identifier": reference["gtin"],
            "access_tier": "public",
            "product_name": reference["product_name"],
            "brand": reference["brand"],
            "gtin": reference["gtin"],
        }
        answer.update(reference["passport"]["public"])
        return Reply.json(200, answer)

    def reference_proof(self, request: Request, gtin: str) -> Reply:
        return Reply.json(200, self._reference_or_error(gtin)["proof"])

    def certificate(self, request: Request, identifier: str) -> Reply:
        as_pdf = identifier.endswith(".pdf") and self.catalogue.find_item(identifier) is None
        item = self._item_or_404(identifier[:-4] if as_pdf else identifier, "CERTIFICATE_NOT_FOUND")
        certificate = item.get("certificate")
        if certificate is None:
            return Reply.error(404, "CERTIFICATE_NOT_FOUND: no certificate was issued for this item")
        if as_pdf:
            return Reply(200, _certificate_pdf(item), "application/pdf")
        answer = {
            "identifier": item["identifier"],
            "product_name": item["product_name"],
            "brand": item["brand"],
        }
        answer.update(certificate)
        return Reply.json(200, answer)

    def history(self, request: Request, identifier: str) -> Reply:
        item = self._item_or_404(identifier, "ITEM_NOT_FOUND")
        return Reply.json(200, {"identifier": item["identifier"], "events": item["history"]})

    # Claims -------------------------------------------------------------

    _REFUSALS = {
        "owned": "ALREADY_CLAIMED: this product already has an owner",
        "transferred": "ALREADY_TRANSFERRED: this product was transferred to its owner",
        "in_progress": "CLAIM_IN_PROGRESS: another claim on this product is under way",
        "purchase_code_required": "PURCHASE_CODE_REQUIRED: enter the purchase code handed over with the product",
    }

    @staticmethod
    def _ticket_answer(ticket):
        return {"id": ticket["id"], "nonce": ticket["nonce"], "expires_at": ticket["expires_at"]}

    def ticket_from_chip(self, request: Request) -> Reply:
        body = _json_object(request)
        url = _required_string(body, "url")
        chip, _ = self._fresh_tap(url)
        if chip is None:
            return Reply.error(403, "INVALID_SIGNATURE: the chip signature does not verify")
        if chip.registration == "never_registered":
            return Reply.json(200, {"ticket": None, "detail": "UNKNOWN_IDENTIFIER: no product is registered for this chip"})
        with self.ledger.lock:
            state = self.ledger.claims[chip.item_key]["state"]
        if state != "open":
            return Reply.json(200, {"ticket": None, "detail": self._REFUSALS.get(state, "CLAIM_IN_PROGRESS: " + state)})
        ticket = self.ledger.issue_ticket(chip.item_key)
        return Reply.json(200, {"ticket": self._ticket_answer(ticket), "detail": None})

    def ticket_from_serial(self, request: Request) -> Reply:
        token = self._token_or_401(request, required=True)
        body = _json_object(request)
        serial = _required_string(body, "serial")
        if self.catalogue.token(token).get("serial_route") is False:
            return Reply.error(404, "Not Found")
        item = self.catalogue.find_item(serial)
        if item is None:
            return Reply.json(200, {"ticket": None, "detail": f"UNKNOWN_IDENTIFIER: no item with serial {serial!r}"})
        with self.ledger.lock:
            claim = dict(self.ledger.claims[item["key"]])
        if claim.get("serial_route") == "closed":
            return Reply.error(404, "Not Found")
        if claim["state"] == "purchase_code_required":
            return Reply.json(200, {"ticket": None, "detail": self._REFUSALS["purchase_code_required"]})
        if claim["state"] != "open":
            return Reply.error(409, self._REFUSALS.get(claim["state"], "CLAIM_IN_PROGRESS: " + claim["state"]))
        ticket = self.ledger.issue_ticket(item["key"])
        return Reply.json(200, {"ticket": self._ticket_answer(ticket), "detail": None})

    def complete_claim(self, request: Request) -> Reply:
        token = self._token_or_401(request, required=True)
        body = _json_object(request)
        ticket_id = _required_string(body, "ticket_id")
        nonce = _required_string(body, "nonce")
        purchase_code = body.get("purchase_code")
        if purchase_code is not None and not isinstance(purchase_code, str):
            raise _validation("string_type", ["body", "purchase_code"], "Input should be a valid string", purchase_code)
        with self.ledger.lock:
            ticket = self.ledger.tickets.get(ticket_id)
            if ticket is None:
                return Reply.error(404, f"TICKET_NOT_FOUND: no ticket {ticket_id!r}")
            if not hmac.compare_digest(ticket["nonce"].encode(), nonce.encode()):
                return Reply.error(403, "NONCE_MISMATCH: the nonce does not belong to this ticket")
            state = self.ledger.ticket_state(ticket)
            refusal = {
                "expired": "CLAIM_EXPIRED: this ticket has expired, scan the product again",
                "consumed": "TICKET_CONSUMED: this ticket was already used",
                "canceled": "CLAIM_CANCELED: this ticket was canceled",
                "transfer_pending": "CLAIM_IN_PROGRESS: the transfer was already broadcast",
            }
            if state != "issued":
                return Reply.error(409, refusal.get(state, f"CLAIM_NOT_COMPLETABLE: ticket is {state}"))
            claim = self.ledger.claims[ticket["item"]]
            expected_code = ticket.get("purchase_code", claim.get("purchase_code"))
            if expected_code is not None:
                if purchase_code is None:
                    return Reply.error(422, "PURCHASE_CODE_REQUIRED: this brand requires the purchase code")
                if not hmac.compare_digest(expected_code.encode(), purchase_code.encode()):
                    return Reply.error(422, "PURCHASE_CODE_REQUIRED: the purchase code does not match")
            outcome = ticket.get("complete", claim.get("complete", "ok"))
            if outcome == "transfer_not_sent" and not ticket.get("failed_once"):
                ticket["failed_once"] = True
                return Reply.error(502, "TRANSFER_NOT_SENT: the chain node refused the transfer; nothing moved")
            tx_hash = "0x" + secrets.token_hex(32)
            if outcome == "transfer_sent_pending":
                ticket["state"] = "transfer_pending"
                return Reply.error(502, "TRANSFER_SENT_PENDING: the transfer was broadcast; its tracking record failed")
            ticket["state"] = "consumed"
            claim["state"] = "owned"
            claim["owner"] = token
        return Reply.json(200, {"tx_hash": tx_hash, "state": "pending"})

    def claim_state(self, request: Request, ticket_id: str) -> Reply:
        self._token_or_401(request, required=True)
        with self.ledger.lock:
            ticket = self.ledger.tickets.get(ticket_id)
            if ticket is None:
                return Reply.error(404, f"TICKET_NOT_FOUND: no ticket {ticket_id!r}")
            return Reply.json(200, {"id": ticket["id"], "state": self.ledger.ticket_state(ticket)})


def _certificate_pdf(item) -> bytes:
    """A one-page PDF naming the item: enough for a viewer to open."""
    text = f"Certificate of authenticity - {item['product_name']} - {item['serial']}"
    text = text.encode("latin-1", "replace").decode("latin-1").replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    stream = f"BT /F1 14 Tf 50 780 Td ({text}) Tj ET".encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)
