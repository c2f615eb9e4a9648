# NFC: tap-to-URL benchmark, NFCReader beside a minimal C program over libpcsclite (docs/nfc.md).
NFC_BENCH_TAPS ?= 200
NFC_REFERENCE := .build/bench/pcsc_read

.PHONY: bench-nfc bench-feedback

$(NFC_REFERENCE): bench/nfc/pcsc_read.c
	mkdir -p $(dir $@)
	cc -O2 -Wall -Wextra -o $@ $< $$(pkg-config --cflags --libs libpcsclite)

bench-nfc: deps $(NFC_REFERENCE)
	$(SWIFT) build -c release --product nfc-bench
	$(SWIFT) run -c release --skip-build nfc-bench --reference $(NFC_REFERENCE) --taps $(NFC_BENCH_TAPS)

bench: bench-nfc

# Reader feedback (docs/daemon.md): from a verdict at a socket subscriber to the LED and buzzer command at the tag,
# beside one SCardTransmit of the same command; the daemon's p99 must stay at or under 5 ms.
FEEDBACK_BENCH_TAPS ?= 60

bench-feedback: deps
	$(SWIFT) build -c release --product sealtrust-scand
	$(SWIFT) build -c release --product feedback-bench
	$(SWIFT) run -c release --skip-build feedback-bench --taps $(FEEDBACK_BENCH_TAPS)

bench: bench-feedback
