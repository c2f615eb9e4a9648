// zxing-cpp 1.4 reading QR codes only, as a program that links it would use it.
// usage: zxing_loop REPEAT FRAME.pgm...
// Times are the thread's CPU time: the machine is shared, and waiting for the core is not decoding.
// prints, per frame: path, milliseconds per decode (mean of REPEAT), payloads in hex (comma separated)
#include <cstdio>
#include <ctime>
#include <cstdlib>
#define ZX_USE_UTF8 1
#include <ZXing/ReadBarcode.h>
extern "C" {
#include "pgm.h"
}

static double cpu_ms()
{
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s REPEAT FRAME.pgm...\n", argv[0]);
        return 2;
    }
    int repeat = std::atoi(argv[1]);
    ZXing::DecodeHints hints;
    hints.setFormats(ZXing::BarcodeFormat::QRCode);
    for (int i = 2; i < argc; i++) {
        int width, height;
        unsigned char *pixels = read_pgm(argv[i], &width, &height);
        if (!pixels) {
            std::fprintf(stderr, "%s: not a P5 PGM\n", argv[i]);
            return 1;
        }
        ZXing::ImageView view(pixels, width, height, ZXing::ImageFormat::Lum);
        ZXing::Results results;
        double start = cpu_ms();
        for (int r = 0; r < repeat; r++) results = ZXing::ReadBarcodes(view, hints);
        std::printf("%s\t%.4f\t", argv[i], (cpu_ms() - start) / repeat);
        const char *separator = "";
        for (const auto &result : results) {
            if (!result.isValid()) continue;
            std::printf("%s", separator);
            for (auto byte : result.bytes()) std::printf("%02x", (unsigned)byte);
            separator = ",";
        }
        std::printf("\n");
        std::free(pixels);
    }
    return 0;
}
