# Fuzzing (fuzz/README.md): every fuzz/NAME/main.swift is a libFuzzer target, run for FUZZ_SECONDS each.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= $(sort $(patsubst fuzz/%/main.swift,%,$(wildcard fuzz/*/main.swift)))

.PHONY: fuzz fuzz-build

fuzz-build: deps
	./fuzz/build.sh $(FUZZ_TARGETS)

fuzz: fuzz-build
	./fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)
