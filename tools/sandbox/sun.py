"""NTAG 424 DNA SUN messages: what the chip writes at each tap, and how the server checks it.

Follows NXP AN12196: the PICC data is AES-128 CBC (zero IV, one block) of
C7 || UID(7) || SDMReadCtr(3, LSB first) || padding under SDMMetaReadKey; the MAC
is AES-CMAC under a session key derived from SDMFileReadKey, truncated to the
odd-indexed bytes. The MAC input is empty because `cmac` follows `picc_data`
directly in the URL (SDMMACInputOffset == SDMMACOffset).
"""

import hmac
import os
from dataclasses import dataclass

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.cmac import CMAC

PICC_DATA_TAG = 0xC7
_ZERO_IV = bytes(16)
# SV2 prefix of AN12196 section 4.4: the MAC session-key derivation vector.
_SESSION_MAC_VECTOR_PREFIX = bytes.fromhex("3CC300010080")


@dataclass(frozen=True)
class PICCData:
    uid: bytes
    counter: int


def _aes_cbc(key: bytes, block: bytes, decrypt: bool) -> bytes:
    cipher = Cipher(algorithms.AES(key), modes.CBC(_ZERO_IV))
    worker = cipher.decryptor() if decrypt else cipher.encryptor()
    return worker.update(block) + worker.finalize()


def _cmac(key: bytes, message: bytes) -> bytes:
    mac = CMAC(algorithms.AES(key))
    mac.update(message)
    return mac.finalize()


def decrypt_picc_data(meta_read_key: bytes, picc_data: bytes):
    """The UID and counter inside `picc_data`, or None when it is not a C7 block with a 7-byte UID."""
    if len(picc_data) != 16:
        return None
    plain = _aes_cbc(meta_read_key, picc_data, decrypt=True)
    if plain[0] != PICC_DATA_TAG:
        return None
    return PICCData(uid=plain[1:8], counter=int.from_bytes(plain[8:11], "little"))


def session_mac_key(file_read_key: bytes, uid: bytes, counter: int) -> bytes:
    vector = _SESSION_MAC_VECTOR_PREFIX + uid + counter.to_bytes(3, "little")
    return _cmac(file_read_key, vector)


def sun_mac(file_read_key: bytes, uid: bytes, counter: int, mac_input: bytes = b"") -> bytes:
    """The 8 bytes the chip writes as `cmac`: bytes 1, 3, ..., 15 of the full CMAC."""
    full = _cmac(session_mac_key(file_read_key, uid, counter), mac_input)
    return full[1::2]


def mac_matches(file_read_key: bytes, picc: PICCData, cmac: bytes) -> bool:
    return hmac.compare_digest(sun_mac(file_read_key, picc.uid, picc.counter), cmac)


def encrypt_picc_data(meta_read_key: bytes, uid: bytes, counter: int, padding: bytes = None) -> bytes:
    """What the chip encrypts at a tap; padding is random, as on a real chip, unless given."""
    if padding is None:
        padding = os.urandom(5)
    block = bytes([PICC_DATA_TAG]) + uid + counter.to_bytes(3, "little") + padding
    return _aes_cbc(meta_read_key, block, decrypt=False)


def chip_url(meta_read_key: bytes, file_read_key: bytes, uid: bytes, counter: int,
             base: str = "https://sealtrust.io/c") -> str:
    """A fresh SUN URL as the chip would write it: upper-case hex, cmac right after picc_data."""
    picc = encrypt_picc_data(meta_read_key, uid, counter)
    mac = sun_mac(file_read_key, uid, counter)
    return f"{base}?picc_data={picc.hex().upper()}&cmac={mac.hex().upper()}"
