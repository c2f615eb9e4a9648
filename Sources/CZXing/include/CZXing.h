#ifndef CZXING_H
#define CZXING_H
// zxing-cpp's QR reader behind a few C functions, for Swift: the C++ stays in this target.
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A reader for QR codes only, holding the payloads of the last frame it read. Not thread-safe.
typedef struct czx_reader czx_reader;

czx_reader *czx_reader_create(void);
void czx_reader_destroy(czx_reader *reader);

/// zxing-cpp's own default call, as a program that links it makes it: ReadBarcodes with the default hints
/// (tryHarder, tryRotate, tryDownscale), QR codes only. Returns the number of codes read.
int czx_reader_read_default(czx_reader *reader, const uint8_t *luma, int width, int height, int stride);

/// zxing-cpp's fuller finder search (every row).
#define CZX_TRY_HARDER 1
/// A second search on the image scaled down, for large modules and blur.
#define CZX_TRY_DOWNSCALE 2

/// Reads the QR codes in a grey image (`height` rows of `width` bytes, `stride` bytes apart), with the
/// CZX_ options or-ed. Returns the number of codes read, 0 on an image it cannot take.
int czx_reader_read(czx_reader *reader, const uint8_t *luma, int width, int height, int stride, int options);

/// The bytes of code `index` of the last read, as the code holds them: no charset conversion, no ECI
/// designators. Valid until the next read. NULL when `index` is out of range.
const uint8_t *czx_reader_payload(const czx_reader *reader, int index, size_t *length);

#ifdef __cplusplus
}
#endif
#endif
