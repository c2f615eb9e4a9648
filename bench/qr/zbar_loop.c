/* libzbar with its default configuration, as a program that links it would use it.
 * Times are the thread's CPU time: the machine is shared, and waiting for the core is not decoding.
 * usage: zbar_loop [--binary] REPEAT FRAME.pgm...
 * --binary: the one setting changed, QR payloads as the codes' own bytes (ZBAR_CFG_BINARY) where zbar would
 * give them as UTF-8 text by a guess at their charset: the tests compare bytes with the decoder's.
 * prints, per frame: path, milliseconds per decode (mean of REPEAT), payloads in hex (comma separated) */
#include <string.h>
#include <time.h>
#include <zbar.h>
#include "pgm.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    int binary = argc > 1 && strcmp(argv[1], "--binary") == 0;
    if (argc < 3 + binary) {
        fprintf(stderr, "usage: %s [--binary] REPEAT FRAME.pgm...\n", argv[0]);
        return 2;
    }
    int repeat = atoi(argv[1 + binary]);
    zbar_image_scanner_t *scanner = zbar_image_scanner_create();
    if (binary) zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1);
    for (int i = 2 + binary; i < argc; i++) {
        int width, height;
        unsigned char *pixels = read_pgm(argv[i], &width, &height);
        if (!pixels) {
            fprintf(stderr, "%s: not a P5 PGM\n", argv[i]);
            return 1;
        }
        zbar_image_t *image = zbar_image_create();
        zbar_image_set_format(image, zbar_fourcc('Y', '8', '0', '0'));
        zbar_image_set_size(image, width, height);
        zbar_image_set_data(image, pixels, (unsigned long)width * height, NULL);
        double start = now_ms();
        for (int r = 0; r < repeat; r++) zbar_scan_image(scanner, image);
        double per_frame = (now_ms() - start) / repeat;
        printf("%s\t%.4f\t", argv[i], per_frame);
        const char *separator = "";
        for (const zbar_symbol_t *symbol = zbar_image_first_symbol(image); symbol; symbol = zbar_symbol_next(symbol)) {
            if (zbar_symbol_get_type(symbol) != ZBAR_QRCODE) continue;
            const unsigned char *data = (const unsigned char *)zbar_symbol_get_data(symbol);
            unsigned length = zbar_symbol_get_data_length(symbol);
            printf("%s", separator);
            for (unsigned k = 0; k < length; k++) printf("%02x", data[k]);
            separator = ",";
        }
        printf("\n");
        zbar_image_destroy(image);
        free(pixels);
    }
    zbar_image_scanner_destroy(scanner);
    return 0;
}
