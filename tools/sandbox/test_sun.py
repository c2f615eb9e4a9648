"""SUN message checks against NXP AN12196's published vector and the catalogue's own chips.

Run: /usr/bin/python3 -m unittest discover -s tools/sandbox
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sun  # noqa: E402
from catalogue import Catalogue  # noqa: E402

CATALOGUE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "catalogue.json")
ZERO_KEY = bytes(16)
AN12196_PICC = bytes.fromhex("EF963FF7828658A599F3041510671E88")
AN12196_CMAC = bytes.fromhex("94EED9EE65337086")


class AN12196VectorTests(unittest.TestCase):
    def test_picc_data_decrypts_to_the_published_uid_and_counter(self):
        picc = sun.decrypt_picc_data(ZERO_KEY, AN12196_PICC)
        self.assertIsNotNone(picc)
        self.assertEqual(picc.uid.hex().upper(), "04DE5F1EACC040")
        self.assertEqual(picc.counter, 61)

    def test_session_key_and_mac_match_the_published_values(self):
        picc = sun.decrypt_picc_data(ZERO_KEY, AN12196_PICC)
        # AN12196 table 4: KSesSDMFileReadMAC for this UID and counter.
        self.assertEqual(sun.session_mac_key(ZERO_KEY, picc.uid, picc.counter).hex().upper(),
                         "3FB5F6E3A807A03D5E3570ACE393776F")
        self.assertEqual(sun.sun_mac(ZERO_KEY, picc.uid, picc.counter), AN12196_CMAC)
        self.assertTrue(sun.mac_matches(ZERO_KEY, picc, AN12196_CMAC))

    def test_one_flipped_bit_in_the_mac_is_refused(self):
        picc = sun.decrypt_picc_data(ZERO_KEY, AN12196_PICC)
        tampered = bytes([AN12196_CMAC[0] ^ 0x01]) + AN12196_CMAC[1:]
        self.assertFalse(sun.mac_matches(ZERO_KEY, picc, tampered))

    def test_the_wrong_meta_key_does_not_yield_a_picc_data_block(self):
        self.assertIsNone(sun.decrypt_picc_data(bytes.fromhex("11" * 16), AN12196_PICC))


class CatalogueChipTests(unittest.TestCase):
    def setUp(self):
        self.catalogue = Catalogue.load(CATALOGUE)

    def test_chip_keys_follow_the_interfaces_formula(self):
        numbered = [c for c in self.catalogue.chips if c.name != "an12196"]
        self.assertEqual(len(numbered), 10)
        for k, chip in enumerate(numbered, 1):
            self.assertEqual(chip.uid.hex().upper(), "04A100000000%02X" % k)
            self.assertEqual(chip.meta_read_key, bytes([0x10 + k]) * 16)
            self.assertEqual(chip.file_read_key, bytes([0x20 + k]) * 16)

    def test_a_fresh_url_for_a_catalogue_chip_verifies_with_its_keys(self):
        chip = self.catalogue.chip_named("authentic")
        url = sun.chip_url(chip.meta_read_key, chip.file_read_key, chip.uid, 4242)
        query = url.split("?", 1)[1]
        params = dict(pair.split("=") for pair in query.split("&"))
        self.assertEqual(list(params), ["picc_data", "cmac"])
        self.assertRegex(params["picc_data"], r"^[0-9A-F]{32}$")
        self.assertRegex(params["cmac"], r"^[0-9A-F]{16}$")
        picc = sun.decrypt_picc_data(chip.meta_read_key, bytes.fromhex(params["picc_data"]))
        self.assertEqual(picc.uid, chip.uid)
        self.assertEqual(picc.counter, 4242)
        self.assertTrue(sun.mac_matches(chip.file_read_key, picc, bytes.fromhex(params["cmac"])))

    def test_another_chips_file_key_does_not_verify_the_mac(self):
        chip = self.catalogue.chip_named("authentic")
        other = self.catalogue.chip_named("spare-a")
        picc = sun.PICCData(chip.uid, 7)
        mac = sun.sun_mac(chip.file_read_key, chip.uid, 7)
        self.assertFalse(sun.mac_matches(other.file_read_key, picc, mac))

    def test_random_padding_makes_two_urls_for_one_counter_differ(self):
        chip = self.catalogue.chip_named("spare-b")
        first = sun.chip_url(chip.meta_read_key, chip.file_read_key, chip.uid, 9)
        second = sun.chip_url(chip.meta_read_key, chip.file_read_key, chip.uid, 9)
        self.assertNotEqual(first, second)


if __name__ == "__main__":
    unittest.main()
