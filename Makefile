# The README's two commands are `make demo` and `make test`; both install what they need.
# The toolchain's usual home on these machines, for shells that do not have it on PATH.
export PATH := /opt/swift/usr/bin:$(PATH)
SWIFT ?= swift

.PHONY: deps build test demo bench install uninstall

# The Debian packages, and vsmartcard's vpcd driver unpacked for the tests' own pcscd (never installed).
deps:
	./scripts/install-deps.sh
	./scripts/vpcd-driver.sh >/dev/null

build: deps
	$(SWIFT) build

# The hardware tests share their pcscd's two virtual readers, so tests run one at a time. Each test process
# runs a pcscd of its own (scripts/private-pcscd.sh); the machine's pcscd must be the same process afterwards.
# Every target declares the package's modules it imports (scripts/declared-imports.py), and Sources/ keeps the
# countable claims of docs/architecture.md (scripts/architecture-claims.py). The run's temporary files go in a folder
# of its own, removed at the end (scripts/own-temporary-folder.sh). Then the MQTT bridge on a 3-node RabbitMQ cluster
# with a node killed (mk/mqtt.mk).
test: deps test-sandbox
	./scripts/declared-imports.py $(SWIFT)
	./scripts/architecture-claims.py $(SWIFT)
	$(SWIFT) build --build-tests
	./scripts/own-temporary-folder.sh ./scripts/leaves-system-pcscd-alone.sh $(SWIFT) test --no-parallel
	$(MAKE) --no-print-directory test-fleet-cluster

# Each part of the project adds its own targets (benchmarks, demo, install) in mk/.
-include mk/*.mk
