# Handheld scanners (issue 12).

# The two libFuzzer targets of fuzz/ (keystrokes, serial-lines), built and run on their own; `make fuzz`
# (fuzz/README.md) runs them with the rest once it exists. FUZZ_SCANNERS_SECONDS each.
FUZZ_SCANNERS_SECONDS ?= 30
SCANNER_FUZZ := .build/fuzz-scanners

.PHONY: fuzz-scanners
fuzz-scanners:
	@mkdir -p $(SCANNER_FUZZ)/corpus-keystrokes $(SCANNER_FUZZ)/corpus-serial-lines
	swiftc -O -sanitize=fuzzer,address -swift-version 6 -parse-as-library -wmo -module-name HandheldScanner \
		-emit-module -emit-module-path $(SCANNER_FUZZ)/HandheldScanner.swiftmodule -c Sources/HandheldScanner/*.swift \
		-o $(SCANNER_FUZZ)/HandheldScanner.o
	for target in keystrokes serial-lines; do \
		swiftc -O -sanitize=fuzzer,address -swift-version 6 -parse-as-library -I $(SCANNER_FUZZ) \
			-module-name fuzz_$$(echo $$target | tr - _) fuzz/$$target/main.swift $(SCANNER_FUZZ)/HandheldScanner.o \
			-o $(SCANNER_FUZZ)/$$target || exit 1; \
		ASAN_OPTIONS=detect_leaks=0 $(SCANNER_FUZZ)/$$target -max_total_time=$(FUZZ_SCANNERS_SECONDS) -max_len=131072 \
			-artifact_prefix=$(SCANNER_FUZZ)/$$target- $(SCANNER_FUZZ)/corpus-$$target fuzz/$$target/corpus || exit 1; \
	done
