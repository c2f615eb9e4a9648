# The README's two commands are `make demo` and `make test`; both install what they need.
SWIFT ?= swift

.PHONY: deps services build test demo bench install uninstall

deps:
	./scripts/install-deps.sh

services: deps
	./scripts/start-pcscd.sh

build: deps
	$(SWIFT) build

test: services
	$(SWIFT) build --build-tests
	$(SWIFT) test --no-parallel

# Each part of the project adds its own targets (benchmarks, demo, install) in mk/.
-include mk/*.mk
