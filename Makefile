# The README's two commands are `make demo` and `make test`; both install what they need.
# The toolchain's usual home on these machines, for shells that do not have it on PATH.
export PATH := /opt/swift/usr/bin:$(PATH)
SWIFT ?= swift

.PHONY: deps services build test demo bench install uninstall

deps:
	./scripts/install-deps.sh

services: deps
	./scripts/start-pcscd.sh

build: deps
	$(SWIFT) build

# The hardware tests share pcscd's two virtual readers, so tests run one at a time.
test: services test-sandbox
	$(SWIFT) build --build-tests
	$(SWIFT) test --no-parallel

# Each part of the project adds its own targets (benchmarks, demo, install) in mk/.
-include mk/*.mk
