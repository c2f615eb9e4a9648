# The daemon: `make demo` (the README's first command) and `make bench-daemon` (docs/daemon.md).
# The floor of bench-daemon's latency is read by the NFC part's C reference (its rule is in mk/nfc.mk).
DAEMON_BENCH_TAPS ?= 25
DAEMON_BENCH_READER ?= 1
DAEMON_FLOOR_READER := .build/bench/pcsc_read

.PHONY: demo bench-daemon bench-product-memory

demo: deps
	$(SWIFT) build --product sealtrust-scand
	$(SWIFT) build --product sealtrust-scanctl
	$(SWIFT) build --product sealtrust-kiosk
	./demo/run-demo.sh

bench-daemon: deps
	$(MAKE) $(DAEMON_FLOOR_READER)
	$(SWIFT) build -c release --product sealtrust-scand
	$(SWIFT) build -c release --product scand-bench
	$(SWIFT) run -c release --skip-build scand-bench --taps $(DAEMON_BENCH_TAPS) --reader $(DAEMON_BENCH_READER) --reference $(DAEMON_FLOOR_READER) \
		--daemon "$$($(SWIFT) build -c release --show-bin-path)/sealtrust-scand"

bench: bench-daemon

# The daemon's and the kiosk's memory under product answers of hostile shapes: a 1 MiB passport of 520,000 zeros and a
# history of 16,000 events for every read (bench/product-memory/measure.py).
bench-product-memory: deps
	$(SWIFT) build -c release --product sealtrust-scand
	$(SWIFT) build -c release --product sealtrust-kiosk
	/usr/bin/python3 bench/product-memory/measure.py "$$($(SWIFT) build -c release --show-bin-path)"
