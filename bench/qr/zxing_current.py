#!/usr/bin/python3
"""The current zxing-cpp (PyPI's `zxing-cpp` wheel) reading QR codes only: a reference for the benchmark alone.
Times are the thread's CPU time of the read call (the wheel's C++), the frame already in memory.
usage: /usr/bin/python3 bench/qr/zxing_current.py REPEAT FRAME.pgm...
prints, per frame: path, milliseconds per decode (mean of REPEAT), payloads in hex (comma separated)
"""
import sys
import time

import numpy
import zxingcpp
from PIL import Image


def main():
    repeat = int(sys.argv[1])
    for path in sys.argv[2:]:
        pixels = numpy.asarray(Image.open(path).convert("L"))
        start = time.thread_time()
        for _ in range(repeat):
            results = zxingcpp.read_barcodes(pixels, formats=zxingcpp.BarcodeFormat.QRCode)
        milliseconds = (time.thread_time() - start) * 1000 / repeat
        payloads = ",".join(bytes(result.bytes).hex() for result in results if result.valid)
        print("%s\t%.4f\t%s" % (path, milliseconds, payloads), flush=True)


if __name__ == "__main__":
    main()
