# The daemon: `make demo` (the README's first command) and `make bench-daemon` (docs/daemon.md).
.PHONY: demo bench-daemon

demo: services
	$(SWIFT) build --product sealtrust-scand
	$(SWIFT) build --product sealtrust-scanctl
	./demo/run-demo.sh

bench-daemon: services $(NFC_REFERENCE)
	$(SWIFT) build -c release --product sealtrust-scand
	$(SWIFT) build -c release --product scand-bench
	$(SWIFT) run -c release --skip-build scand-bench --reference $(NFC_REFERENCE) --daemon "$$($(SWIFT) build -c release --show-bin-path)/sealtrust-scand"

bench: bench-daemon
