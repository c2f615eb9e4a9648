# The MQTT bridge: `make bench-mqtt`, `make bench-fleet`, `make bench-fleet-cluster`, `make test-fleet-cluster`
# (docs/mqtt.md) and `make check-mqtt-unit`.
MQTT_BENCH_SAMPLES ?= 500
# `make bench-fleet FLEET_STATIONS=20`: fewer stations; FLEET_ARGS passes more (--codes, --outage, --scenarios
# restart,pause,steady, --tap, --keep).
FLEET_STATIONS ?= 100
FLEET_ARGS ?=
# `make bench-fleet-cluster FLEET_CLUSTER_ARGS='--runs 3 --engine nats --no-repair --keep'`
FLEET_CLUSTER_ARGS ?=

.PHONY: bench-mqtt bench-fleet bench-fleet-cluster test-fleet-cluster check-mqtt-unit

bench-mqtt: deps
	$(SWIFT) build -c release --product sealtrust-scand
	$(SWIFT) build -c release --product sealtrust-mqtt
	$(SWIFT) build -c release --product mqtt-bench
	$(SWIFT) run -c release --skip-build mqtt-bench $(MQTT_BENCH_SAMPLES)

# N stations (a daemon and a bridge each) on one mosquitto through a broker restart and a pause mid-burst, beside
# mosquitto_pub publishing the same events (bench/fleet/fleet.py says what it measures). Built as the package builds.
bench-fleet: deps
	$(SWIFT) build -c release --static-swift-stdlib --product sealtrust-scand
	$(SWIFT) build -c release --static-swift-stdlib --product sealtrust-mqtt
	FLEET_BIN=.build/release /usr/bin/python3 bench/fleet/fleet.py --stations $(FLEET_STATIONS) $(FLEET_ARGS)

# N stations on a 3-node RabbitMQ cluster on loopback (plain processes, data in a temporary folder), one node killed
# with SIGKILL mid-burst and started again 30 s later (bench/fleet/cluster.py says what it measures).
bench-fleet-cluster: deps
	$(SWIFT) build -c release --static-swift-stdlib --product sealtrust-scand
	$(SWIFT) build -c release --static-swift-stdlib --product sealtrust-mqtt
	FLEET_BIN=.build/release /usr/bin/python3 bench/fleet/cluster.py --stations $(FLEET_STATIONS) $(FLEET_CLUSTER_ARGS)

# CI's cluster run (`make test`): 10 stations of the debug build on the same 3-node RabbitMQ cluster, node 3 killed
# 1 s into a 2 s burst and started again 10 s later. Fails when an event is missing at the persistent subscriber before
# repair or at the watch after it, or when a station of the killed node publishes again later than 10 s after its death.
test-fleet-cluster: deps
	$(SWIFT) build --product sealtrust-scand
	$(SWIFT) build --product sealtrust-mqtt
	FLEET_BIN=.build/debug /usr/bin/python3 bench/fleet/cluster.py --stations 10 --codes 200 --outage 10 --check 10

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
