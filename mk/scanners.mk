# Handheld scanners (issue 12): `make bench-scanners` (docs/scanners.md).
SCANNER_BENCH_CODES ?= 300
# One key every 2 ms: a USB HID scanner's press and release, each in a 1 ms report.
SCANNER_BENCH_KEY_INTERVAL_US ?= 2000

.PHONY: bench-scanners

bench-scanners: deps
	$(SWIFT) build -c release --product sealtrust-scand
	$(SWIFT) build -c release --product scanner-bench
	$(SWIFT) run -c release --skip-build scanner-bench --codes $(SCANNER_BENCH_CODES) \
		--key-interval-us $(SCANNER_BENCH_KEY_INTERVAL_US) --daemon "$$($(SWIFT) build -c release --show-bin-path)/sealtrust-scand"

bench: bench-scanners
