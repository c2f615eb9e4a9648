# The MQTT bridge: `make bench-mqtt` (docs/mqtt.md) and `make check-mqtt-unit`.
MQTT_BENCH_SAMPLES ?= 500

.PHONY: bench-mqtt check-mqtt-unit

bench-mqtt: deps
	$(SWIFT) build -c release --product sealtrust-scand
	$(SWIFT) build -c release --product sealtrust-mqtt
	$(SWIFT) build -c release --product mqtt-bench
	$(SWIFT) run -c release --skip-build mqtt-bench $(MQTT_BENCH_SAMPLES)

# systemd-analyze verify accepts the unit (ExecStart pointed at /bin/true, since verify wants an existing binary),
# and its exposure is at most 2.5, as the daemon's (mk/system.mk).
check-mqtt-unit:
	@work=$$(mktemp -d) && trap 'rm -rf "$$work"' EXIT && \
	sed -e "s|^ExecStart=/usr/local/bin/|ExecStart=/bin/true |" -e "s|^EnvironmentFile=|EnvironmentFile=-|" \
		systemd/sealtrust-mqtt.service > "$$work/sealtrust-mqtt.service" && \
	mkdir -p "$$work/man/man8" && cp man/sealtrust-mqtt.8 "$$work/man/man8/" && \
	findings=$$(MANPATH="$$work/man" systemd-analyze verify "$$work/sealtrust-mqtt.service" 2>&1) && [ -z "$$findings" ] || \
		{ printf 'check-mqtt-unit: systemd-analyze verify: %s\n' "$$findings" >&2; exit 1; } && \
	exposure=$$(systemd-analyze security --offline=true "$$work/sealtrust-mqtt.service" 2>&1 | \
		sed -n 's/.*Overall exposure level for sealtrust-mqtt\.service: \([0-9.]*\).*/\1/p') && \
	echo "sealtrust-mqtt.service: verify OK, exposure $$exposure (at most 2.5)" && \
	awk -v e="$$exposure" 'BEGIN { exit !(e != "" && e <= 2.5) }'
