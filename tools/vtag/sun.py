#!/usr/bin/python3
"""Secure Unique NFC (SUN) messages as an NTAG 424 DNA computes them (NXP AN12196).

Shared by the virtual tag, which writes them, and by the tests, which check the
URLs the reader hands over when the sandbox API is not there to do it.

    /usr/bin/python3 tools/vtag/sun.py verify URL [--catalogue PATH]
        prints "AUTHENTIC chip=NAME uid=UID ctr=N" (exit 0) or "INVALID <why>" (exit 1)
    /usr/bin/python3 tools/vtag/sun.py selftest
        checks the AN12196 vector and exits 0
"""
import argparse
import json
import os
import re
import sys

from cryptography.hazmat.primitives import cmac
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CATALOGUE = os.path.join(HERE, "..", "sandbox", "catalogue.json")

PICC_DATA_TAG = 0xC7  # UID and SDMReadCtr mirrored, UID length 7
SV2_PREFIX = bytes.fromhex("3CC300010080")
CHIP_URL = re.compile(r"^https://sealtrust\.io/c\?(?:.*&)?picc_data=([0-9A-F]{32})&cmac=([0-9A-F]{16})$")

# INTERFACES.md fixes the catalogue's chips and keys; the sandbox's file wins when present.
FIXED_CHIP_NAMES = ["authentic", "seal-opened", "seal-opened-degrade", "seal-opened-silent", "no-seal",
                    "minting", "never-registered", "stolen", "spare-a", "spare-b"]


def fixed_catalogue():
    chips = []
    for k, name in enumerate(FIXED_CHIP_NAMES, start=1):
        chips.append({"name": name, "uid": "04A100000000%02X" % k,
                      "meta_read_key": ("%02X" % (0x10 + k)) * 16,
                      "file_read_key": ("%02X" % (0x20 + k)) * 16})
    chips.append({"name": "an12196", "uid": "04DE5F1EACC040", "meta_read_key": "00" * 16, "file_read_key": "00" * 16})
    return chips


def load_chips(path=None):
    """The chips by name: the sandbox's catalogue when it exists, else the fixed table."""
    path = path or DEFAULT_CATALOGUE
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            chips = json.load(f)["chips"]
    else:
        chips = fixed_catalogue()
    return {c["name"]: {"name": c["name"], "uid": bytes.fromhex(c["uid"]),
                        "meta_read_key": bytes.fromhex(c["meta_read_key"]),
                        "file_read_key": bytes.fromhex(c["file_read_key"])} for c in chips}


def _aes_cbc(key, data, decrypt=False):
    cipher = Cipher(algorithms.AES(key), modes.CBC(bytes(16)))
    op = cipher.decryptor() if decrypt else cipher.encryptor()
    return op.update(data) + op.finalize()


def _cmac(key, data):
    c = cmac.CMAC(algorithms.AES(key))
    c.update(data)
    return c.finalize()


def picc_data(uid, counter, meta_read_key, padding):
    """Encrypted PICCData: C7 ‖ UID ‖ SDMReadCtr (LSB first) ‖ 5 random bytes."""
    plain = bytes([PICC_DATA_TAG]) + uid + counter.to_bytes(3, "little") + padding
    return _aes_cbc(meta_read_key, plain)


def sdm_mac(uid, counter, file_read_key):
    """SDMMAC over an empty input: odd bytes of CMAC(KSesSDMFileReadMAC, "")."""
    session_key = _cmac(file_read_key, SV2_PREFIX + uid + counter.to_bytes(3, "little"))
    return _cmac(session_key, b"")[1::2]


def sun_url(chip, counter, padding=None, note=None):
    """The URL the chip mirrors into its NDEF file for this read counter."""
    padding = os.urandom(5) if padding is None else padding
    enc = picc_data(chip["uid"], counter, chip["meta_read_key"], padding).hex().upper()
    mac = sdm_mac(chip["uid"], counter, chip["file_read_key"]).hex().upper()
    extra = "" if note is None else "note=%s&" % note
    return "https://sealtrust.io/c?%spicc_data=%s&cmac=%s" % (extra, enc, mac)


def verify(url, chips):
    """(chip name, uid, counter) when the URL carries a valid SUN message of a known chip, else raises ValueError."""
    m = CHIP_URL.match(url)
    if not m:
        raise ValueError("not a chip URL")
    enc, mac = bytes.fromhex(m.group(1)), bytes.fromhex(m.group(2))
    for chip in chips.values():
        plain = _aes_cbc(chip["meta_read_key"], enc, decrypt=True)
        if plain[0] != PICC_DATA_TAG or plain[1:8] != chip["uid"]:
            continue
        counter = int.from_bytes(plain[8:11], "little")
        if sdm_mac(chip["uid"], counter, chip["file_read_key"]) != mac:
            raise ValueError("MAC does not verify for chip %s" % chip["name"])
        return chip["name"], chip["uid"].hex().upper(), counter
    raise ValueError("PICC data does not decrypt to a known chip")


def main():
    parser = argparse.ArgumentParser(description="Check SUN messages of NTAG 424 DNA chip URLs.")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("verify")
    check.add_argument("url")
    check.add_argument("--catalogue")
    sub.add_parser("selftest")
    args = parser.parse_args()
    if args.command == "selftest":
        chips = {"an12196": {"name": "an12196", "uid": bytes.fromhex("04DE5F1EACC040"),
                             "meta_read_key": bytes(16), "file_read_key": bytes(16)}}
        name, uid, counter = verify("https://sealtrust.io/c?picc_data=EF963FF7828658A599F3041510671E88"
                                    "&cmac=94EED9EE65337086", chips)
        assert (name, uid, counter) == ("an12196", "04DE5F1EACC040", 61), (name, uid, counter)
        print("OK an12196 ctr=61")
        return 0
    try:
        name, uid, counter = verify(args.url, load_chips(args.catalogue))
    except ValueError as e:
        print("INVALID %s" % e)
        return 1
    print("AUTHENTIC chip=%s uid=%s ctr=%d" % (name, uid, counter))
    return 0


if __name__ == "__main__":
    sys.exit(main())
