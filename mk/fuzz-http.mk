# A libFuzzer target for the API client's answer parser: fuzz/HTTPResponse builds alone from its Swift files,
# so `make fuzz` (elsewhere) can run it like any other target. FUZZ_HTTP_SECONDS bounds one run.
FUZZ_HTTP_BINARY := .build/fuzz/http-response
FUZZ_HTTP_SECONDS ?= 60

.PHONY: fuzz-http

$(FUZZ_HTTP_BINARY): Sources/SealTrustKit/HTTPResponseParser.swift fuzz/HTTPResponse/FuzzTarget.swift
	mkdir -p $(dir $@)
	$(SWIFT)c -sanitize=fuzzer,address -parse-as-library -O -module-name HTTPResponseFuzz -o $@ $^

fuzz-http: $(FUZZ_HTTP_BINARY)
	mkdir -p .build/fuzz/http-response-corpus
	$(FUZZ_HTTP_BINARY) -max_total_time=$(FUZZ_HTTP_SECONDS) -max_len=8192 .build/fuzz/http-response-corpus fuzz/HTTPResponse/corpus
