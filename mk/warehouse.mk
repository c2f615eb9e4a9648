# The warehouse station (issue 44): `make bench-warehouse`, four lanes on one daemon beside each lane alone, and the API
# stopped and started again in the middle under `--on-api-outage defer` (bench/warehouse/warehouse.py says what it
# measures; docs/benchmarks.md has the figures). `make bench-warehouse WAREHOUSE_ARGS='--duration 120 --rate 1'`.
WAREHOUSE_ARGS ?=

.PHONY: bench-warehouse

bench-warehouse: deps
	$(SWIFT) build -c release --product sealtrust-scand
	WAREHOUSE_BIN=.build/release /usr/bin/python3 bench/warehouse/warehouse.py $(WAREHOUSE_ARGS)
