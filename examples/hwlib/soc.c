/* See soc.h. The convolution is tinynpu's reference (tinynpu.c), which this
 * emulation links; copies are done when started, so their waits return at once. */
#include "soc.h"

#include <string.h>

#include "tinynpu.h"

static acc_queue dla_queue = {.name = "dla"};
static acc_queue dsp_queue = {.name = "dsp"};

/* Bytes per engine. Each engine is used by one device's thread only. */
static uint64_t copied[3];

void dla_conv2d_s8(const int8_t *x, const int8_t *weights, const int32_t *bias,
                   int8_t *y, int32_t c, int32_t h, int32_t w, int32_t m,
                   int32_t oh, int32_t ow, int32_t kh, int32_t kw, int32_t sh,
                   int32_t sw, int32_t pt, int32_t pl, int32_t x_zero,
                   int32_t y_zero, const float *scales) {
    npu_conv2d_s8(x, weights, bias, y, c, h, w, m, oh, ow, kh, kw, sh, sw, pt, pl, x_zero,
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
