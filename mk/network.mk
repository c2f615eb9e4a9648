# The API over a network: `make bench-network` runs the daemon beside a minimal warm libcurl client
# (bench/network/warm_client.c), through the sandbox behind a TLS end and a delaying link (tools/netlab).
NETWORK_BENCH_RTT_MS ?= 40
NETWORK_BENCH_TAPS ?= 25
NETWORK_WARM_CLIENT := .build/bench/warm_client

.PHONY: bench-network

$(NETWORK_WARM_CLIENT): bench/network/warm_client.c
	mkdir -p $(dir $@)
	cc -O2 -Wall -Wextra -o $@ $< $$(pkg-config --cflags --libs libcurl)

bench-network: deps $(NETWORK_WARM_CLIENT)
	$(SWIFT) build -c release --product sealtrust-scand
	/usr/bin/python3 bench/network/bench.py --rtt-ms $(NETWORK_BENCH_RTT_MS) --taps $(NETWORK_BENCH_TAPS) \
		--warm-client $(NETWORK_WARM_CLIENT) --daemon "$$($(SWIFT) build -c release --show-bin-path)/sealtrust-scand"

bench: bench-network
