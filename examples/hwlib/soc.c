/* See soc.h. The convolution is tinynpu's reference (tinynpu.c), which this
 * emulation links, on plain copies of the blocked feature data (the chip reads the
 * blocks as they are); copies are done when started, so their waits return at
 * once. */
#include "soc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tinynpu.h"

static acc_queue dla_queue = {.name = "dla"};
static acc_queue dsp_queue = {.name = "dsp"};

/* Bytes per engine. Each engine is used by one device's thread only. */
static uint64_t copied[3];

/* The plain feature maps of the convolution the DLA's thread runs (one at a time):
 * no larger than its SRAM. */
#define DLA_SRAM_BYTES 65536
static int8_t plain_x[DLA_SRAM_BYTES], plain_y[DLA_SRAM_BYTES];

/* The offset of channel k at (i, j) in a c x h x w map in the feature format. */
static size_t blocked_at(int32_t k, int32_t i, int32_t j, int32_t h, int32_t w) {
    size_t block = (size_t)(k / DLA_CHANNEL_BLOCK), lane = (size_t)(k % DLA_CHANNEL_BLOCK);
    return ((block * (size_t)h + (size_t)i) * (size_t)w + (size_t)j) * DLA_CHANNEL_BLOCK + lane;
}

/* The convolution of the plain map plain_x, its result written to y in the feature
 * format. */
static void conv_to_blocked(const int8_t *x, const int8_t *weights, const int32_t *bias,
                            int8_t *y, int32_t c, int32_t h, int32_t w, int32_t m,
                            int32_t oh, int32_t ow, int32_t kh, int32_t kw, int32_t sh,
                            int32_t sw, int32_t pt, int32_t pl, int32_t x_zero,
                            int32_t y_zero, const float *scales) {
    if ((size_t)m * (size_t)oh * (size_t)ow > sizeof plain_y) {
        fprintf(stderr, "dla: a feature map larger than the DLA's SRAM\n");
        abort();
    }
    npu_conv2d_s8(x, weights, bias, plain_y, c, h, w, m, oh, ow, kh, kw, sh, sw, pt, pl,
                  x_zero, y_zero, scales);
    int32_t blocks = (m + DLA_CHANNEL_BLOCK - 1) / DLA_CHANNEL_BLOCK;
    memset(y, 0, (size_t)blocks * (size_t)oh * (size_t)ow * DLA_CHANNEL_BLOCK);
    for (int32_t k = 0; k < m; k++)
        for (int32_t i = 0; i < oh; i++)
            for (int32_t j = 0; j < ow; j++)
                y[blocked_at(k, i, j, oh, ow)] =
                    plain_y[((size_t)k * (size_t)oh + (size_t)i) * (size_t)ow + (size_t)j];
}

void dla_conv2d_s8(const int8_t *x, const int8_t *weights, const int32_t *bias,
                   int8_t *y, int32_t c, int32_t h, int32_t w, int32_t m,
                   int32_t oh, int32_t ow, int32_t kh, int32_t kw, int32_t sh,
                   int32_t sw, int32_t pt, int32_t pl, int32_t x_zero,
                   int32_t y_zero, const float *scales) {
    if ((size_t)c * (size_t)h * (size_t)w > sizeof plain_x) {
        fprintf(stderr, "dla: a feature map larger than the DLA's SRAM\n");
        abort();
    }
    for (int32_t k = 0; k < c; k++)
        for (int32_t i = 0; i < h; i++)
            for (int32_t j = 0; j < w; j++)
                plain_x[((size_t)k * (size_t)h + (size_t)i) * (size_t)w + (size_t)j] =
                    x[blocked_at(k, i, j, h, w)];
    conv_to_blocked(plain_x, weights, bias, y, c, h, w, m, oh, ow, kh, kw, sh, sw, pt, pl,
                    x_zero, y_zero, scales);
}

void dla_image_conv2d_s8(const int8_t *x, const int8_t *weights, const int32_t *bias,
                         int8_t *y, int32_t c, int32_t h, int32_t w, int32_t m,
                         int32_t oh, int32_t ow, int32_t kh, int32_t kw, int32_t sh,
                         int32_t sw, int32_t pt, int32_t pl, int32_t x_zero,
                         int32_t y_zero, const float *scales) {
    conv_to_blocked(x, weights, bias, y, c, h, w, m, oh, ow, kh, kw, sh, sw, pt, pl, x_zero,
                    y_zero, scales);
}

static uint32_t copy(int engine, void *dst, const void *src, uint32_t bytes) {
    memcpy(dst, src, bytes);
    copied[engine] += bytes;
    return 0;
}

uint32_t dla_dma(void *dst, const void *src, uint32_t bytes) {
    return copy(0, dst, src, bytes);
}

void dla_dma_wait(uint32_t ticket) {
    (void)ticket;
}

uint32_t dsp_dma(void *dst, const void *src, uint32_t bytes) {
    return copy(1, dst, src, bytes);
}

void dsp_dma_wait(uint32_t ticket) {
    (void)ticket;
}

uint32_t dla_dsp_dma(void *dst, const void *src, uint32_t bytes) {
    return copy(2, dst, src, bytes);
}

void dla_dsp_dma_wait(uint32_t ticket) {
    (void)ticket;
}

void dla_submit(void (*work)(void *), void *ctx, acc_event *const *after, uint32_t n_after,
                acc_event *done) {
    acc_device_submit(&dla_queue, work, ctx, after, n_after, done);
}

void dsp_submit(void (*work)(void *), void *ctx, acc_event *const *after, uint32_t n_after,
                acc_event *done) {
    acc_device_submit(&dsp_queue, work, ctx, after, n_after, done);
}

uint64_t soc_dma_bytes(int engine) {
    return engine >= 0 && engine < 3 ? copied[engine] : 0;
}
