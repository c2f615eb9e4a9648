#!/usr/bin/python3
"""Prints the URL a catalogue chip writes at a tap with the given counter, as the NTAG 424 DNA would.

Usage: mint-chip-url.py CHIP_NAME COUNTER [CATALOGUE]
For the daemon's tests and the demo: a `verify` burst needs fresh, valid chip URLs without a reader.
"""

import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sandbox = os.path.join(here, "..", "tools", "sandbox")
sys.path.insert(0, sandbox)

from sun import chip_url  # noqa: E402


def main() -> int:
    if len(sys.argv) not in (3, 4):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    name, counter = sys.argv[1], int(sys.argv[2])
    catalogue_path = sys.argv[3] if len(sys.argv) == 4 else os.path.join(sandbox, "catalogue.json")
    with open(catalogue_path, encoding="utf-8") as handle:
        chips = {chip["name"]: chip for chip in json.load(handle)["chips"]}
    if name not in chips:
        print(f"mint-chip-url: no chip named {name!r} in {catalogue_path}", file=sys.stderr)
        return 2
    chip = chips[name]
    print(chip_url(bytes.fromhex(chip["meta_read_key"]), bytes.fromhex(chip["file_read_key"]),
                   bytes.fromhex(chip["uid"]), counter))
    return 0


if __name__ == "__main__":
    sys.exit(main())
