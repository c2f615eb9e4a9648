#include "CZXing.h"
#include <ZXing/ReadBarcode.h>
#include <new>
#include <vector>

struct czx_reader {
    std::vector<std::vector<uint8_t>> payloads;
};

czx_reader *czx_reader_create(void)
{
    return new (std::nothrow) czx_reader();
}

void czx_reader_destroy(czx_reader *reader)
{
    delete reader;
}

// The valid results' bytes, kept until the next read; no code read when zxing-cpp throws.
static int read_with(czx_reader *reader, const uint8_t *luma, int width, int height, int stride, const ZXing::DecodeHints &hints)
{
    reader->payloads.clear();
    if (!luma || width <= 0 || height <= 0 || stride < width) return 0;
    try {
        ZXing::ImageView view(luma, width, height, ZXing::ImageFormat::Lum, stride);
        for (const auto &result : ZXing::ReadBarcodes(view, hints)) {
            if (!result.isValid()) continue;
            const auto &bytes = result.bytes();
            reader->payloads.emplace_back(bytes.begin(), bytes.end());
        }
    } catch (...) {
        // zxing-cpp reports a bad image or an allocation failure by throwing: no code read.
        reader->payloads.clear();
    }
    return static_cast<int>(reader->payloads.size());
}

int czx_reader_read_default(czx_reader *reader, const uint8_t *luma, int width, int height, int stride)
{
    // Exactly the hints of bench/qr/zxing_loop.cpp: the library's defaults, QR codes only.
    ZXing::DecodeHints hints;
    hints.setFormats(ZXing::BarcodeFormat::QRCode);
    return read_with(reader, luma, width, height, stride, hints);
}

int czx_reader_read(czx_reader *reader, const uint8_t *luma, int width, int height, int stride, int options)
{
    ZXing::DecodeHints hints;
    hints.setFormats(ZXing::BarcodeFormat::QRCode);
    hints.setTryHarder((options & CZX_TRY_HARDER) != 0);
    hints.setTryDownscale((options & CZX_TRY_DOWNSCALE) != 0);
    // A QR code's finder search does not depend on the image's orientation.
    hints.setTryRotate(false);
    return read_with(reader, luma, width, height, stride, hints);
}

const uint8_t *czx_reader_payload(const czx_reader *reader, int index, size_t *length)
{
    if (index < 0 || static_cast<size_t>(index) >= reader->payloads.size()) return nullptr;
    const auto &payload = reader->payloads[static_cast<size_t>(index)];
    *length = payload.size();
    return payload.data();
}
