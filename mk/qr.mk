# QR: `make bench-qr` compares this module's decoder with libzbar's default and zxing-cpp
# on the same generated frames (the bench frames' cost, the realistic set per category, the
# robustness set), then plays 1280x720 streams at 30 fps through the decoder (CPU share, frames
# from a code's appearance to its scan); one core (taskset -c 0). A benchmark, not a test.
# The fixtures take about 1 GB under $(QR_BENCH_DIR) and two minutes to generate.
QR_BENCH_DIR ?= .build/qr-bench
QR_BENCH_REPEAT ?= 20

.PHONY: bench-qr

$(QR_BENCH_DIR)/zbar_loop: bench/qr/zbar_loop.c bench/qr/pgm.h
	mkdir -p $(QR_BENCH_DIR)
	gcc -O2 -Wall -o $@ bench/qr/zbar_loop.c $$(pkg-config --cflags --libs zbar)

$(QR_BENCH_DIR)/zxing_loop: bench/qr/zxing_loop.cpp bench/qr/pgm.h
	mkdir -p $(QR_BENCH_DIR)
	g++ -O2 -Wall -std=c++17 -o $@ bench/qr/zxing_loop.cpp $$(pkg-config --cflags --libs zxing)

bench-qr: deps $(QR_BENCH_DIR)/zbar_loop $(QR_BENCH_DIR)/zxing_loop
	$(SWIFT) build -c release --product qr-bench
	rm -rf $(QR_BENCH_DIR)/fixtures
	/usr/bin/python3 tools/qrfixtures/qrfixtures.py $(QR_BENCH_DIR)/fixtures bench
	/usr/bin/python3 tools/qrfixtures/qrfixtures.py $(QR_BENCH_DIR)/fixtures robustness
	/usr/bin/python3 tools/qrfixtures/realistic.py $(QR_BENCH_DIR)/fixtures all
	/usr/bin/python3 bench/qr/report.py $(QR_BENCH_DIR)/fixtures $(QR_BENCH_REPEAT) \
		ours=$$($(SWIFT) build -c release --show-bin-path)/qr-bench \
		ours-still="$$($(SWIFT) build -c release --show-bin-path)/qr-bench --still" \
		zbar=$(QR_BENCH_DIR)/zbar_loop zxing=$(QR_BENCH_DIR)/zxing_loop
