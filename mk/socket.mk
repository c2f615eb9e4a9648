# The verdict socket's fan-out and memory benchmark (a release build; the figures go to stdout).
.PHONY: bench-socket

bench-socket:
	$(SWIFT) build -c release --product socket-bench
	"$$($(SWIFT) build -c release --show-bin-path)/socket-bench"
