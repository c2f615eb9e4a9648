"""What the sandbox remembers between calls: accepted counters, seen URLs, owners, tickets."""

import copy
import secrets
import threading
from datetime import datetime, timedelta, timezone

DEFAULT_TICKET_TTL_S = 600


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def rfc3339(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_rfc3339(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


class Ledger:
    def __init__(self, catalogue):
        self.lock = threading.RLock()
        self._catalogue = catalogue
        self.reset()

    def reset(self):
        with self.lock:
            self.last_counter = {}      # chip name -> last accepted SDMReadCtr
            self.minted_counter = {}    # chip name -> last counter handed out by /_sandbox/tap
            self.seen_urls = set()
            self.claims = {key: copy.deepcopy(item["claim"]) for key, item in self._catalogue.items.items()}
            self.tickets = {t["id"]: copy.deepcopy(t) for t in self._catalogue.preset_tickets}

    def accept_tap(self, chip_name: str, counter: int, url: str):
        """None when the tap is fresh (and now remembered), else why it is a replay."""
        with self.lock:
            if url in self.seen_urls:
                return "this URL was already presented"
            last = self.last_counter.get(chip_name)
            if last is not None and counter <= last:
                return f"counter {counter} is not above the last accepted {last}"
            self.last_counter[chip_name] = counter
            self.seen_urls.add(url)
            return None

    def next_tap_counter(self, chip_name: str) -> int:
        with self.lock:
            counter = max(self.last_counter.get(chip_name, 0), self.minted_counter.get(chip_name, 0)) + 1
            self.minted_counter[chip_name] = counter
            return counter

    def issue_ticket(self, item_key: str) -> dict:
        with self.lock:
            ttl = self.claims[item_key].get("ticket_ttl_s", DEFAULT_TICKET_TTL_S)
            ticket = {
                "id": "tkt-" + secrets.token_hex(8),
                "nonce": secrets.token_urlsafe(24),
                "state": "issued",
                "expires_at": rfc3339(utc_now() + timedelta(seconds=ttl)),
                "item": item_key,
            }
            self.tickets[ticket["id"]] = ticket
            return ticket

    @staticmethod
    def ticket_state(ticket: dict) -> str:
        """The stored state, except that an issued ticket past its expiry reads as expired."""
        if ticket["state"] == "issued" and parse_rfc3339(ticket["expires_at"]) <= utc_now():
            return "expired"
        return ticket["state"]
