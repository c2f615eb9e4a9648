# QR: `make bench-qr` compares this module's decoder with libzbar's default, zxing-cpp 1.4 (Debian's,
# the one the decoder links) and the current zxing-cpp (PyPI's wheel, a reference in the benchmark only)
# on the same frames: first the real photographs of ../shared/fixtures/realqr (read in place) as a
# webcam gives them, fitted into webcam frames, turned in 15-degree steps (each at all 24 angles too),
# pasted 2 to 12 to a frame, and held in view as 30 fps streams, with the superset checked frame by frame;
# then the generated sets (the bench frames' cost, the realistic set per category, the robustness set,
# 1280x720 streams at 30 fps: CPU share, frames from a code's appearance to its scan).
# One core (taskset -c 0). A benchmark, not a test.
# The fixtures take about 2.9 GB under $(QR_BENCH_DIR) and three minutes to generate.
QR_BENCH_DIR ?= .build/qr-bench
QR_BENCH_REPEAT ?= 20
QR_REAL_PHOTOS ?= ../shared/fixtures/realqr

.PHONY: bench-qr qr-zxing-current

$(QR_BENCH_DIR)/zbar_loop: bench/qr/zbar_loop.c bench/qr/pgm.h
	mkdir -p $(QR_BENCH_DIR)
	gcc -O2 -Wall -o $@ bench/qr/zbar_loop.c $$(pkg-config --cflags --libs zbar)

$(QR_BENCH_DIR)/zxing_loop: bench/qr/zxing_loop.cpp bench/qr/pgm.h
	mkdir -p $(QR_BENCH_DIR)
	g++ -O2 -Wall -std=c++17 -o $@ bench/qr/zxing_loop.cpp $$(pkg-config --cflags --libs zxing)

# The current zxing-cpp for Debian's python3, installed once (the benchmark's reference, never the product's).
qr-zxing-current:
	/usr/bin/python3 -c 'import zxingcpp' 2>/dev/null || \
		/usr/bin/python3 -m pip install --quiet --break-system-packages zxing-cpp

bench-qr: deps qr-zxing-current $(QR_BENCH_DIR)/zbar_loop $(QR_BENCH_DIR)/zxing_loop
	$(SWIFT) build -c release --product qr-bench
	rm -rf $(QR_BENCH_DIR)/fixtures
	/usr/bin/python3 tools/qrfixtures/realphotos.py $(QR_REAL_PHOTOS) $(QR_BENCH_DIR)/fixtures all
	/usr/bin/python3 tools/qrfixtures/realphotos.py $(QR_REAL_PHOTOS) $(QR_BENCH_DIR)/fixtures sweep 24
	/usr/bin/python3 tools/qrfixtures/qrfixtures.py $(QR_BENCH_DIR)/fixtures bench
	/usr/bin/python3 tools/qrfixtures/qrfixtures.py $(QR_BENCH_DIR)/fixtures robustness
	/usr/bin/python3 tools/qrfixtures/realistic.py $(QR_BENCH_DIR)/fixtures all
	/usr/bin/python3 bench/qr/report.py $(QR_BENCH_DIR)/fixtures $(QR_BENCH_REPEAT) \
		ours=$$($(SWIFT) build -c release --show-bin-path)/qr-bench \
		ours-still="$$($(SWIFT) build -c release --show-bin-path)/qr-bench --still" \
		zbar=$(QR_BENCH_DIR)/zbar_loop zxing=$(QR_BENCH_DIR)/zxing_loop \
		zxing-current="/usr/bin/python3 bench/qr/zxing_current.py"
