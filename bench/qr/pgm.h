/* Reads a binary PGM (P5, maxval 255): the frames every reference loop decodes. */
#ifndef QR_BENCH_PGM_H
#define QR_BENCH_PGM_H
#include <stdio.h>
#include <stdlib.h>

static unsigned char *read_pgm(const char *path, int *width, int *height)
{
    FILE *file = fopen(path, "rb");
    if (!file) return NULL;
    int maxval = 0;
    if (fscanf(file, "P5 %d %d %d", width, height, &maxval) != 3 || maxval != 255 || fgetc(file) == EOF) {
        fclose(file);
        return NULL;
    }
    size_t size = (size_t)*width * (size_t)*height;
    unsigned char *pixels = (unsigned char *)malloc(size);
    if (pixels && fread(pixels, 1, size, file) != size) {
        free(pixels);
        pixels = NULL;
    }
    fclose(file);
    return pixels;
}
#endif
