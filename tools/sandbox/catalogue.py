"""The sandbox's fixed world, read from catalogue.json: chips, items, references, preset tickets, tokens."""

import json
import re
from dataclasses import dataclass

_IDENTIFIER = re.compile(r"0[xX][0-9a-fA-F]{64}")


@dataclass(frozen=True)
class Chip:
    name: str
    uid: bytes
    meta_read_key: bytes
    file_read_key: bytes
    registration: str          # registered | minting | never_registered
    item_key: str | None
    tamper_status: str | None
    tamper_policy: str | None

    def public_view(self) -> dict:
        return {
            "name": self.name,
            "uid": self.uid.hex().upper(),
            "meta_read_key": self.meta_read_key.hex().upper(),
            "file_read_key": self.file_read_key.hex().upper(),
            "registration": self.registration,
            "item": self.item_key,
            "tamper_status": self.tamper_status,
            "tamper_policy": self.tamper_policy,
        }


class Catalogue:
    def __init__(self, data: dict):
        self.hosts = [h.lower() for h in data.get("hosts", ["sealtrust.io"])]
        self.extra_hosts = [h.lower() for h in data.get("extra_hosts", [])]
        self.chips = [
            Chip(
                name=c["name"],
                uid=bytes.fromhex(c["uid"]),
                meta_read_key=bytes.fromhex(c["meta_read_key"]),
                file_read_key=bytes.fromhex(c["file_read_key"]),
                registration=c.get("registration", "registered"),
                item_key=c.get("item"),
                tamper_status=c.get("tamper_status"),
                tamper_policy=c.get("tamper_policy"),
            )
            for c in data["chips"]
        ]
        self.items = {item["key"]: item for item in data.get("items", [])}
        self.references = {ref["gtin"]: ref for ref in data.get("references", [])}
        self.preset_tickets = data.get("tickets", [])
        self.tokens = data.get("tokens", {})
        self._by_identifier = {item["identifier"].lower(): item for item in self.items.values()}
        self._by_serial = {item["serial"]: item for item in self.items.values() if item.get("serial")}
        self._by_folded_serial = {s.casefold(): item for s, item in self._by_serial.items()}

    @classmethod
    def load(cls, path: str) -> "Catalogue":
        with open(path, encoding="utf-8") as f:
            return cls(json.load(f))

    def chip_named(self, name: str):
        return next((c for c in self.chips if c.name == name), None)

    def is_sealtrust_host(self, host: str) -> bool:
        host = host.lower()
        if host in self.extra_hosts:
            return True
        return any(host == h or host.endswith("." + h) for h in self.hosts)

    def find_item(self, identifier: str):
        """An item by its 0x identifier (hex in any case) or by its printed serial.

        Serial normalisation is the server's: an exact match first, then a
        case-insensitive one (so `sn-00042` finds `SN-00042`).
        """
        if _IDENTIFIER.fullmatch(identifier):
            return self._by_identifier.get(identifier.lower())
        return self._by_serial.get(identifier) or self._by_folded_serial.get(identifier.casefold())

    def token(self, token: str) -> dict:
        """Any bearer token is a signed-in end user unless the catalogue says more about it."""
        return self.tokens.get(token, {"tiers": []})
