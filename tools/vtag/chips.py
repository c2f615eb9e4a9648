#!/usr/bin/python3
"""The sandbox API's chips as the virtual tag writes them and the tests check them.

The SUN cryptography (NXP AN12196) is the sandbox's own, tools/sandbox/sun.py,
so the tag and the API that verifies it share one implementation and one
catalogue (tools/sandbox/catalogue.json).

    /usr/bin/python3 tools/vtag/chips.py verify URL [--catalogue PATH]
        prints "AUTHENTIC chip=NAME uid=UID ctr=N" (exit 0) or "INVALID <why>" (exit 1)
"""
import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SANDBOX = os.path.join(HERE, "..", "sandbox")
sys.path.insert(0, SANDBOX)
import sun  # noqa: E402  (tools/sandbox/sun.py)

DEFAULT_CATALOGUE = os.path.join(SANDBOX, "catalogue.json")
CHIP_URL = re.compile(r"^https://sealtrust\.io/c\?(?:.*&)?picc_data=([0-9A-F]{32})&cmac=([0-9A-F]{16})$")


def load_chips(path=None):
    """The catalogue's chips by name, keys as bytes."""
    with open(path or DEFAULT_CATALOGUE, encoding="utf-8") as f:
        chips = json.load(f)["chips"]
    return {c["name"]: {"name": c["name"], "uid": bytes.fromhex(c["uid"]),
                        "meta_read_key": bytes.fromhex(c["meta_read_key"]),
                        "file_read_key": bytes.fromhex(c["file_read_key"])} for c in chips}


def sun_url(chip, counter, note=None):
    """The URL the chip mirrors into its NDEF file at this read counter; `note` pads it with a first parameter."""
    picc = sun.encrypt_picc_data(chip["meta_read_key"], chip["uid"], counter).hex().upper()
    mac = sun.sun_mac(chip["file_read_key"], chip["uid"], counter).hex().upper()
    extra = "" if note is None else "note=%s&" % note
    return "https://sealtrust.io/c?%spicc_data=%s&cmac=%s" % (extra, picc, mac)


def verify(url, chips):
    """(chip name, uid hex, counter) of a URL whose SUN message verifies, else raises ValueError."""
    match = CHIP_URL.match(url)
    if not match:
        raise ValueError("not a chip URL")
    picc_data, cmac = bytes.fromhex(match.group(1)), bytes.fromhex(match.group(2))
    for chip in chips.values():
        picc = sun.decrypt_picc_data(chip["meta_read_key"], picc_data)
        if picc is None or picc.uid != chip["uid"]:
            continue
        if not sun.mac_matches(chip["file_read_key"], picc, cmac):
            raise ValueError("MAC does not verify for chip %s" % chip["name"])
        return chip["name"], chip["uid"].hex().upper(), picc.counter
    raise ValueError("PICC data does not decrypt to a known chip")


def main():
    parser = argparse.ArgumentParser(description="Check the SUN message of a chip URL against the catalogue.")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("verify")
    check.add_argument("url")
    check.add_argument("--catalogue")
    args = parser.parse_args()
    try:
        name, uid, counter = verify(args.url, load_chips(args.catalogue))
    except ValueError as e:
        print("INVALID %s" % e)
        return 1
    print("AUTHENTIC chip=%s uid=%s ctr=%d" % (name, uid, counter))
    return 0


if __name__ == "__main__":
    sys.exit(main())
