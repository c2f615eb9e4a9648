# NFC: tap-to-URL benchmark, NFCReader beside a minimal C program over libpcsclite (docs/nfc.md).
NFC_BENCH_TAPS ?= 200
NFC_REFERENCE := .build/bench/pcsc_read

.PHONY: bench-nfc

$(NFC_REFERENCE): bench/nfc/pcsc_read.c
	mkdir -p $(dir $@)
	cc -O2 -Wall -Wextra -o $@ $< $$(pkg-config --cflags --libs libpcsclite)

bench-nfc: deps $(NFC_REFERENCE)
	$(SWIFT) build -c release --product nfc-bench
	$(SWIFT) run -c release --skip-build nfc-bench --reference $(NFC_REFERENCE) --taps $(NFC_BENCH_TAPS)

bench: bench-nfc
