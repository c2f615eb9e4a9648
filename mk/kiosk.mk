# The kiosk bridge (docs/kiosk.md): `make bench-kiosk`, from a verdict to the page showing it, in headless Chromium.
KIOSK_BENCH_VERDICTS ?= 200

.PHONY: bench-kiosk

bench-kiosk: deps
	$(SWIFT) build -c release --product sealtrust-scand
	$(SWIFT) build -c release --product sealtrust-kiosk
	$(SWIFT) build -c release --product kiosk-bench
	$(SWIFT) run -c release --skip-build kiosk-bench --verdicts $(KIOSK_BENCH_VERDICTS)

bench: bench-kiosk
