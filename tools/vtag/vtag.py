#!/usr/bin/python3
"""A virtual NTAG 424 DNA behind vsmartcard's vpcd driver in the real pcscd.

The tag is a vpcd client: connecting to vpcd's TCP port puts it on the reader,
closing the connection takes it off. It answers the NFC Forum Type 4 Tag
procedure and mirrors a fresh SUN message into its NDEF file at each read, as
the chip does, with the keys of a chip from the sandbox API's catalogue.
See README.md for the command line, the stdin commands and the stdout reports.
"""
import argparse
import os
import socket
import struct
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chips  # noqa: E402

ATR = bytes.fromhex("3B8180018080")  # PC/SC part 3 ATR of an ISO 14443-4 tag without historical data
NDEF_AID = bytes.fromhex("D2760000850101")
CC_FILE_ID = 0xE103
NDEF_FILE_ID = 0xE104
NDEF_FILE_SIZE = 256  # NTAG 424 DNA's file 2
LONG_FILE_SIZE = 2048
CONNECT_PATIENCE_S = 10.0
# pcscd polls vpcd's readers every 400 ms: a tag back in the field sooner would look like it never left,
# whichever vtag process presents it. The last removal on each port is kept in a file for the next one, in the
# temporary folder (a test run's own, from make test).
DEFAULT_GAP_S = 0.6
REMOVAL_STAMP = os.path.join(tempfile.gettempdir(), "vtag-%d.removed")

VPCD_POWER_OFF, VPCD_POWER_ON, VPCD_RESET, VPCD_ATR = 0, 1, 2, 4

SW_OK = b"\x90\x00"
SW_NOT_FOUND = b"\x6a\x82"
SW_WRONG_LENGTH = b"\x67\x00"
SW_WRONG_P1P2 = b"\x6b\x00"
SW_NO_FILE_SELECTED = b"\x69\x86"
SW_INS_NOT_SUPPORTED = b"\x6d\x00"
SW_CLA_NOT_SUPPORTED = b"\x6e\x00"
SW_END_OF_FILE = b"\x62\x82"
SW_FUNCTION_NOT_SUPPORTED = b"\x6a\x81"
SLOW_READ_S = 3.0
# A reader's own commands (class FF: ACS's LED and buzzer, its detection beep): vpcd passes them to the tag.
PSEUDO_CLASS = 0xFF
PSEUDO_ANSWERS = {"accept": SW_OK, "refuse": SW_FUNCTION_NOT_SUPPORTED}

MODES = {
    "good": "a URI record with a fresh SUN URL",
    "no-ndef-app": "SELECT of the NDEF application answers 6A82",
    "no-ndef-file": "SELECT of the NDEF file answers 6A82",
    "empty-ndef": "NLEN 0",
    "text-record": "a Text record and no URI record",
    "text-then-uri": "a Text record, then the URI record (long-header records)",
    "foreign-uri": "a URI record of another brand (https://example.com/item/N): not_sealtrust, no API call",
    "length-beyond-file": "NLEN larger than the file the capability container declares",
    "long-url": "a 1 KiB SUN URL in a 2 KiB file, MLe 0x20",
    "garbage": "bytes that are no NDEF message",
    "short-file": "a 40-byte NDEF file, shorter than its capability container says, whose record claims more bytes than it has",
    "invalid-utf8": "a URI record whose bytes are not UTF-8",
    "remove-mid-read": "the tag leaves the field at the first READ BINARY of the NDEF file",
    "slow-read": "the first READ BINARY of the NDEF file is answered after 3 s",
    "sw-XXXX": "READ BINARY of the NDEF file answers the status word XXXX (e.g. sw-6982)",
}


def parse_mode(name):
    if name in MODES and name != "sw-XXXX":
        return name
    if name.startswith("sw-") and len(name) == 7:
        try:
            int(name[3:], 16)
            return name.lower()
        except ValueError:
            pass
    raise ValueError("unknown mode %r (modes: %s)" % (name, ", ".join(MODES)))


def ndef_record(tnf, record_type, payload, first, last, short=True):
    header = (0x80 if first else 0) | (0x40 if last else 0) | (0x10 if short else 0) | tnf
    length = bytes([len(payload)]) if short else struct.pack(">I", len(payload))
    return bytes([header, len(record_type)]) + length + record_type + payload


def uri_record(url, first=True, short=True):
    assert url.startswith("https://")
    return ndef_record(1, b"U", b"\x04" + url[len("https://"):].encode(), first, True, short)


def text_record(text, first=True, last=True):
    return ndef_record(1, b"T", b"\x02en" + text.encode(), first, last)


class Report:
    """One line per event on stdout, flushed at once: the tests wait on these lines."""

    def __init__(self):
        self.lock = threading.Lock()

    def __call__(self, line):
        with self.lock:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()


class Chip:
    """The card's state: selection, SDM read counter, and the file content of the current read."""

    def __init__(self, chip, mode, mle, counter, report, pseudo="accept"):
        self.chip, self.mode, self.mle_override, self.counter = chip, mode, mle, counter
        self.pseudo = pseudo
        self.report = report
        self.reset()

    def reset(self):
        self.app_selected = False
        self.selected_file = None
        self.ndef_content = None  # built at the first READ BINARY after a SELECT of the NDEF file
        self.stall = 0.0  # seconds to wait before sending the answer just computed

    @property
    def mle(self):
        if self.mle_override is not None:
            return self.mle_override
        return 0x20 if self.mode == "long-url" else 0x100

    @property
    def file_size(self):
        return LONG_FILE_SIZE if self.mode == "long-url" else NDEF_FILE_SIZE

    def capability_container(self):
        return (struct.pack(">HBHH", 0x17, 0x20, self.mle, 0xFF)
                + bytes([0x04, 0x06]) + struct.pack(">HH", NDEF_FILE_ID, self.file_size) + b"\x00\x00"
                + bytes.fromhex("0506E10500808283") + bytes(9))

    def build_ndef_file(self):
        """What the NDEF file holds at this read: SDM mirrors a fresh SUN message into it."""
        self.counter += 1
        url = None
        if self.mode == "long-url":
            note_length = 1024 - len(chips.sun_url(self.chip, self.counter, note=""))
            url = chips.sun_url(self.chip, self.counter, note=("0123456789abcdef" * 64)[:note_length])
            message = uri_record(url, short=False)
        elif self.mode == "text-record":
            message = text_record("SealTrust virtual tag")
        elif self.mode == "text-then-uri":
            url = chips.sun_url(self.chip, self.counter)
            message = text_record("SealTrust virtual tag", last=False) + uri_record(url, first=False, short=False)
        elif self.mode == "foreign-uri":
            url = "https://example.com/item/%d" % self.counter
            message = uri_record(url)
        elif self.mode == "garbage":
            message = bytes(range(0xFF, 0xDF, -1))
        elif self.mode == "short-file":
            # A short URI record whose header claims a 200-byte payload, in a message of 38 bytes.
            message = bytes([0xD1, 0x01, 200]) + b"U\x04" + b"sealtrust.io/c?picc_data=01234567"
        elif self.mode == "invalid-utf8":
            message = ndef_record(1, b"U", b"\x04sealtrust.io/c?x=\xc3\x28", True, True)
        else:
            url = chips.sun_url(self.chip, self.counter)
            message = uri_record(url)
        if self.mode == "empty-ndef":
            nlen = 0
        elif self.mode == "length-beyond-file":
            nlen = self.file_size
        else:
            nlen = len(message)
        content = (struct.pack(">H", nlen) + message)[:self.file_size]
        self.report("READ ctr=%d %s" % (self.counter, "url=" + url if url else "content=" + self.mode))
        if self.mode == "short-file":
            return content
        return content + bytes(self.file_size - len(content))

    def answer(self, apdu):
        """The response APDU, or None when the tag leaves the field instead of answering."""
        if len(apdu) < 4:
            return SW_WRONG_LENGTH
        cla, ins, p1, p2 = apdu[:4]
        body = apdu[4:]
        if cla != 0x00:
            return SW_CLA_NOT_SUPPORTED
        if ins == 0xA4:
            if len(body) < 1 or len(body) < 1 + body[0]:
                return SW_WRONG_LENGTH
            return self.select(p1, body[1:1 + body[0]])
        if ins == 0xB0:
            if len(body) != 1 or p1 & 0x80:
                return SW_WRONG_LENGTH if len(body) != 1 else SW_WRONG_P1P2
            return self.read_binary((p1 << 8) | p2, body[0] or 256)
        return SW_INS_NOT_SUPPORTED

    def select(self, p1, data):
        if p1 == 0x04:
            self.selected_file = None
            self.app_selected = data == NDEF_AID and self.mode != "no-ndef-app"
            return SW_OK if self.app_selected else SW_NOT_FOUND
        if p1 in (0x00, 0x02) and len(data) == 2 and self.app_selected:
            file_id = (data[0] << 8) | data[1]
            if file_id == CC_FILE_ID or (file_id == NDEF_FILE_ID and self.mode != "no-ndef-file"):
                self.selected_file = file_id
                self.ndef_content = None
                return SW_OK
        return SW_NOT_FOUND

    def read_binary(self, offset, length):
        if self.selected_file == CC_FILE_ID:
            content = self.capability_container()
        elif self.selected_file == NDEF_FILE_ID:
            if self.ndef_content is None:
                if self.mode == "remove-mid-read":
                    self.counter += 1
                    self.report("READ ctr=%d content=%s" % (self.counter, self.mode))
                    return None
                if self.mode.startswith("sw-"):
                    return bytes.fromhex(self.mode[3:])
                self.ndef_content = self.build_ndef_file()
                if self.mode == "slow-read":
                    self.stall = SLOW_READ_S
            content = self.ndef_content
        else:
            return SW_NO_FILE_SELECTED
        if offset > len(content):
            return SW_WRONG_P1P2
        data = content[offset:offset + length]
        return data + (SW_OK if len(data) == length else SW_END_OF_FILE)


class VirtualTag:
    def __init__(self, port, catalogue, chip_name, mode, mle, counter, gap, report):
        self.port, self.catalogue, self.gap, self.report = port, catalogue, gap, report
        self.lock = threading.Lock()
        self.sock = None
        self.chip = Chip(catalogue[chip_name], mode, mle, counter, report)
        self.stamp_pseudo = False

    def present(self):
        with self.lock:
            if self.sock is not None:
                self.report("PRESENTED already")
                return
            wait = self.last_removal() + self.gap - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        deadline = time.monotonic() + CONNECT_PATIENCE_S
        while True:
            try:
                sock = socket.create_connection(("127.0.0.1", self.port), timeout=1.0)
                break
            except OSError as e:
                if time.monotonic() > deadline:
                    self.report("ERROR present: vpcd on port %d: %s" % (self.port, e))
                    return
                time.sleep(0.05)
        sock.settimeout(None)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self.lock:
            self.sock = sock
            self.chip.reset()
        self.report("PRESENTED")
        threading.Thread(target=self.serve, args=(sock,), daemon=True).start()

    def remove(self, why="REMOVED"):
        with self.lock:
            sock, self.sock = self.sock, None
        if sock is None:
            self.report("REMOVED already")
            return
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()
        self.stamp_removal()
        self.report(why)

    def stamp_removal(self):
        with open(REMOVAL_STAMP % self.port, "w") as f:
            f.write(repr(time.monotonic()))

    def last_removal(self):
        try:
            with open(REMOVAL_STAMP % self.port) as f:
                return float(f.read())
        except (OSError, ValueError):
            return 0.0

    def serve(self, sock):
        """Answers vpcd until the connection ends: vpcd closed it, or the tag was removed."""
        powered_pending = False
        while True:
            message = self.receive(sock)
            if message is None:
                break
            with self.lock:
                if self.sock is not sock:
                    return
                if len(message) == 1:
                    code = message[0]
                    if code == VPCD_ATR:
                        self.send(sock, ATR)
                        if powered_pending:
                            self.report("POWERED atr=%s" % ATR.hex().upper())
                            powered_pending = False
                    elif code in (VPCD_POWER_ON, VPCD_RESET):
                        self.chip.reset()
                        powered_pending = True
                        self.report("POWER on" if code == VPCD_POWER_ON else "POWER reset")
                    elif code == VPCD_POWER_OFF:
                        self.chip.reset()
                        self.report("POWER off")
                    continue
                if message[:1] == bytes([PSEUDO_CLASS]):
                    response = PSEUDO_ANSWERS[self.chip.pseudo]
                    stamp = " at=%d" % time.monotonic_ns() if self.stamp_pseudo else ""
                    self.report("PSEUDO %s -> %s%s" % (message.hex().upper(), response.hex().upper(), stamp))
                    self.send(sock, response)
                    continue
                response = self.chip.answer(message)
                self.report("APDU %s -> %s" % (message.hex().upper(),
                                               "removed" if response is None else response[-2:].hex().upper()))
                stall, self.chip.stall = self.chip.stall, 0.0
            if response is not None:
                if stall:
                    time.sleep(stall)  # outside the lock: stdin commands still work meanwhile
                self.send(sock, response)
                continue
            self.remove("REMOVED mid-read")
            return
        with self.lock:
            if self.sock is not sock:
                return
            self.sock = None
        sock.close()
        self.stamp_removal()
        self.report("DISCONNECTED")

    @staticmethod
    def receive(sock):
        def exactly(n):
            data = b""
            while len(data) < n:
                # Without re-arming QUICKACK each answer would wait ~40 ms for a delayed ACK.
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
                chunk = sock.recv(n - len(data))
                if not chunk:
                    return None
                data += chunk
            return data
        try:
            header = exactly(2)
            if header is None:
                return None
            return exactly(struct.unpack(">H", header)[0])
        except OSError:
            return None

    @staticmethod
    def send(sock, payload):
        try:
            sock.sendall(struct.pack(">H", len(payload)) + payload)
        except OSError:
            pass

    def command(self, line):
        words = line.split()
        if not words:
            return True
        verb, args = words[0], words[1:]
        try:
            if verb == "present" and not args:
                self.present()
            elif verb == "remove" and not args:
                self.remove()
            elif verb == "chip" and len(args) == 1:
                if args[0] not in self.catalogue:
                    raise ValueError("unknown chip %r" % args[0])
                with self.lock:
                    self.chip.chip = self.catalogue[args[0]]
                self.report("CHIP %s uid=%s" % (args[0], self.catalogue[args[0]]["uid"].hex().upper()))
            elif verb == "mode" and len(args) == 1:
                mode = parse_mode(args[0])
                with self.lock:
                    self.chip.mode = mode
                self.report("MODE %s" % mode)
            elif verb == "mle" and len(args) == 1:
                mle = int(args[0], 0)
                if not 1 <= mle <= 0xFFFF:
                    raise ValueError("MLe must be 1...65535")
                with self.lock:
                    self.chip.mle_override = mle
                self.report("MLE %d" % mle)
            elif verb == "counter" and len(args) == 1:
                counter = int(args[0], 0)
                if not 0 <= counter < 0xFFFFFF:
                    raise ValueError("counter must be 0...16777214")
                with self.lock:
                    self.chip.counter = counter
                self.report("COUNTER %d" % counter)
            elif verb == "pseudo" and len(args) == 1:
                if args[0] not in PSEUDO_ANSWERS:
                    raise ValueError("pseudo takes accept or refuse")
                with self.lock:
                    self.chip.pseudo = args[0]
                self.report("PSEUDO %s" % args[0])
            elif verb == "sync" and not args:
                self.report("SYNC")
            elif verb == "quit" and not args:
                return False
            else:
                raise ValueError("unknown command %r" % line.strip())
        except ValueError as e:
            self.report("ERROR %s" % e)
        return True


def main():
    parser = argparse.ArgumentParser(description="A virtual NTAG 424 DNA for vsmartcard's vpcd.")
    parser.add_argument("--port", type=int, default=35963, help="vpcd port: 35963 'Virtual PCD 00 00', 35964 '00 01'")
    parser.add_argument("--chip", default="authentic", help="chip name in the catalogue")
    parser.add_argument("--catalogue", help="catalogue JSON (default: tools/sandbox/catalogue.json)")
    parser.add_argument("--mle", type=lambda s: int(s, 0), help="MLe in the capability container (default 256)")
    parser.add_argument("--mode", default="good", help="one of: " + ", ".join(MODES))
    parser.add_argument("--counter", type=int, default=0, help="SDMReadCtr before the first read")
    parser.add_argument("--gap", type=float, default=DEFAULT_GAP_S,
                        help="seconds a removed tag stays out before 'present' puts it back (pcscd must see it leave)")
    parser.add_argument("--present", action="store_true", help="present the tag at once")
    parser.add_argument("--stamp-pseudo", action="store_true",
                        help="end each PSEUDO line with at=NS, CLOCK_MONOTONIC when the command arrived (make bench-feedback)")
    args = parser.parse_args()
    report = Report()
    catalogue = chips.load_chips(args.catalogue)
    if args.chip not in catalogue:
        parser.error("unknown chip %r (chips: %s)" % (args.chip, ", ".join(catalogue)))
    try:
        mode = parse_mode(args.mode)
    except ValueError as e:
        parser.error(str(e))
    chips.sun_url(catalogue[args.chip], 0)  # loads the crypto backend now: ~90 ms that would otherwise fall on the first tap
    tag = VirtualTag(args.port, catalogue, args.chip, mode, args.mle, args.counter, args.gap, report)
    tag.stamp_pseudo = args.stamp_pseudo
    report("READY port=%d chip=%s uid=%s mode=%s mle=%d" % (args.port, args.chip, catalogue[args.chip]["uid"].hex().upper(),
                                                            mode, tag.chip.mle))
    if args.present:
        tag.present()
    for line in sys.stdin:
        if not tag.command(line):
            break
    with tag.lock:
        connected = tag.sock is not None
    if connected:
        tag.remove()
    report("BYE")
    return 0


if __name__ == "__main__":
    sys.exit(main())
