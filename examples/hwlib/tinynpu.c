/* Reference implementation of tinynpu's hardware library (tinynpu.h): portable C99,
 * no libc beyond stdint.h, no allocation. */
#include "tinynpu.h"

static uint64_t macs;

uint64_t npu_macs(void) { return macs; }

static uint64_t dma_bytes;

/* The engine's queue. The reference copies only when a wait needs it (or the queue
 * is full), as a real engine may finish late: code that reads a copy before waiting
 * for it, or changes a source before the copy is waited for, computes wrong
 * results with this library. */
#define DMA_QUEUE 8
static struct {
    uint8_t *dst;
    const uint8_t *src;
    uint32_t bytes;
    uint32_t ticket;
} dma_queue[DMA_QUEUE];
static uint32_t dma_queued, dma_tickets;

/* Does the oldest queued copy. */
static void dma_complete_oldest(void) {
    for (uint32_t i = 0; i < dma_queue[0].bytes; i++) {
        dma_queue[0].dst[i] = dma_queue[0].src[i];
    }
    for (uint32_t k = 1; k < dma_queued; k++) {
        dma_queue[k - 1] = dma_queue[k];
    }
    dma_queued--;
}

uint32_t npu_dma(void *dst, const void *src, uint32_t bytes) {
    if (dma_queued == DMA_QUEUE) {
        dma_complete_oldest();
    }
    dma_queue[dma_queued].dst = (uint8_t *)dst;
    dma_queue[dma_queued].src = (const uint8_t *)src;
    dma_queue[dma_queued].bytes = bytes;
    dma_queue[dma_queued].ticket = ++dma_tickets;
    dma_queued++;
    dma_bytes += bytes;
    return dma_tickets;
}

void npu_dma_wait(uint32_t ticket) {
    while (dma_queued > 0 && dma_queue[0].ticket <= ticket) {
        dma_complete_oldest();
    }
}

uint64_t npu_dma_bytes(void) { return dma_bytes; }

/* v rounded to the nearest integer, ties to even, without libm. |v| < 2^62. */
static double round_half_even(double v) {
    double t = (double)(int64_t)v; /* toward zero */
    double frac = v - t;
    int odd = ((int64_t)t & 1) != 0;
    if (frac > 0.5 || (frac == 0.5 && odd)) {
        t += 1.0;
    } else if (frac < -0.5 || (frac == -0.5 && odd)) {
        t -= 1.0;
    }
    return t;
}

/* The output of an exact accumulator, saturated to [lo, hi]. */
static int8_t requantize(int64_t acc, float scale, int32_t y_zero, int32_t lo, int32_t hi) {
    double r = round_half_even((double)acc * (double)scale) + (double)y_zero;
    if (r < (double)lo) {
        r = (double)lo;
    }
    if (r > (double)hi) {
        r = (double)hi;
    }
    return (int8_t)(int32_t)r;
}

/* Weight i of an array of `bits`-bit weights: int8 one per byte, int4 two and int2
 * four per byte, the first in the lowest bits. */
static int32_t weight(const int8_t *w, int64_t i, int32_t bits) {
    if (bits == 8) {
        return w[i];
    }
    int32_t per_byte = 8 / bits;
    int32_t field = ((uint8_t)w[i / per_byte] >> ((i % per_byte) * bits)) & ((1 << bits) - 1);
    return field >= (1 << (bits - 1)) ? field - (1 << bits) : field;
}

/* One output element of a convolution: the window of input channels [c0, c0 + cn)
 * (of c) at (iy0, ix0) against the filter whose first weight is element f0 of
 * `weights`. int8 convolutions read x CHW and weights OIHW; the int4 and int2 ones
 * read x HWC (channels last) and weights OHWI, packed. */
static int64_t window(const int8_t *x, const int8_t *weights, int64_t f0, int32_t bits,
                      int32_t c, int32_t c0, int32_t cn, int32_t h, int32_t w, int32_t kh,
                      int32_t kw, int32_t iy0, int32_t ix0, int32_t x_zero) {
    int64_t acc = 0;
    for (int32_t ci = 0; ci < cn; ci++) {
        for (int32_t ky = 0; ky < kh; ky++) {
            int32_t iy = iy0 + ky;
            if (iy < 0 || iy >= h) {
                continue;
            }
            for (int32_t kx = 0; kx < kw; kx++) {
                int32_t ix = ix0 + kx;
                if (ix < 0 || ix >= w) {
                    continue;
                }
                int32_t at_x = bits == 8 ? ((c0 + ci) * h + iy) * w + ix
                                         : (iy * w + ix) * c + c0 + ci;
                int32_t xv = x[at_x] - x_zero;
                /* int8 filters are c x kh x kw, packed ones kh x kw x c. */
                int64_t at = bits == 8 ? (ci * kh + ky) * kw + kx : (ky * kw + kx) * cn + ci;
                acc += (int64_t)xv * weight(weights, f0 + at, bits);
            }
        }
    }
    macs += (uint64_t)cn * (uint64_t)kh * (uint64_t)kw;
    return acc;
}

/* A convolution over groups of `cg` input channels: all c of them, or one
 * (depthwise, where output channel o reads input channel o). */
static void conv(const int8_t *x, const int8_t *weights, int32_t bits,
                 const int32_t *bias, int8_t *y, int32_t c, int32_t cg, int32_t h,
                 int32_t w, int32_t m, int32_t oh, int32_t ow, int32_t kh, int32_t kw,
                 int32_t sh, int32_t sw, int32_t pt, int32_t pl, int32_t x_zero,
                 int32_t y_zero, const float *scales) {
    int32_t hi = (1 << (bits - 1)) - 1, lo = -hi - 1;
    for (int32_t o = 0; o < m; o++) {
        int32_t c0 = cg == c ? 0 : o;
        for (int32_t oy = 0; oy < oh; oy++) {
            for (int32_t ox = 0; ox < ow; ox++) {
                int64_t acc = bias[o] + window(x, weights, (int64_t)o * cg * kh * kw, bits,
                                               c, c0, cg, h, w, kh, kw, oy * sh - pt,
                                               ox * sw - pl, x_zero);
                int32_t at_y = bits == 8 ? (o * oh + oy) * ow + ox : (oy * ow + ox) * m + o;
                y[at_y] = requantize(acc, scales[o], y_zero, lo, hi);
            }
        }
    }
}

void npu_conv2d_s8(const int8_t *x, const int8_t *weights, const int32_t *bias,
                   int8_t *y, int32_t c, int32_t h, int32_t w, int32_t m,
                   int32_t oh, int32_t ow, int32_t kh, int32_t kw, int32_t sh,
                   int32_t sw, int32_t pt, int32_t pl, int32_t x_zero,
                   int32_t y_zero, const float *scales) {
    conv(x, weights, 8, bias, y, c, c, h, w, m, oh, ow, kh, kw, sh, sw, pt, pl, x_zero,
         y_zero, scales);
}

void npu_conv2d_s4(const int8_t *x, const int8_t *packed, const int32_t *bias,
                   int8_t *y, int32_t c, int32_t h, int32_t w, int32_t m,
                   int32_t oh, int32_t ow, int32_t kh, int32_t kw, int32_t sh,
                   int32_t sw, int32_t pt, int32_t pl, int32_t x_zero,
                   int32_t y_zero, const float *scales) {
    conv(x, packed, 4, bias, y, c, c, h, w, m, oh, ow, kh, kw, sh, sw, pt, pl, x_zero,
         y_zero, scales);
}

void npu_conv2d_s2(const int8_t *x, const int8_t *packed, const int32_t *bias,
                   int8_t *y, int32_t c, int32_t h, int32_t w, int32_t m,
                   int32_t oh, int32_t ow, int32_t kh, int32_t kw, int32_t sh,
                   int32_t sw, int32_t pt, int32_t pl, int32_t x_zero,
                   int32_t y_zero, const float *scales) {
    conv(x, packed, 2, bias, y, c, c, h, w, m, oh, ow, kh, kw, sh, sw, pt, pl, x_zero,
         y_zero, scales);
}

void npu_dwconv2d_s8(const int8_t *x, const int8_t *weights, const int32_t *bias,
                     int8_t *y, int32_t c, int32_t h, int32_t w, int32_t oh,
                     int32_t ow, int32_t kh, int32_t kw, int32_t sh, int32_t sw,
                     int32_t pt, int32_t pl, int32_t x_zero, int32_t y_zero,
                     const float *scales) {
    conv(x, weights, 8, bias, y, c, 1, h, w, c, oh, ow, kh, kw, sh, sw, pt, pl, x_zero,
         y_zero, scales);
}

/* A matrix product of `bits`-bit values (b stored as weights are); no bias when
 * bias is null. */
static void matmul(const int8_t *a, const int8_t *b, int32_t bits, const int32_t *bias,
                   int8_t *y, int32_t m, int32_t k, int32_t n, int32_t a_zero,
                   int32_t y_zero, const float *scales) {
    int32_t hi = (1 << (bits - 1)) - 1, lo = -hi - 1;
    for (int32_t i = 0; i < m; i++) {
        for (int32_t j = 0; j < n; j++) {
            int64_t acc = bias ? bias[j] : 0;
            for (int32_t t = 0; t < k; t++) {
                acc += (int64_t)(a[i * k + t] - a_zero) * weight(b, (int64_t)t * n + j, bits);
            }
            y[i * n + j] = requantize(acc, scales[j], y_zero, lo, hi);
        }
    }
    macs += (uint64_t)m * (uint64_t)n * (uint64_t)k;
}

void npu_matmul_s8(const int8_t *a, const int8_t *b, int8_t *y, int32_t m,
                   int32_t k, int32_t n, int32_t a_zero, int32_t y_zero,
                   const float *scales) {
    matmul(a, b, 8, 0, y, m, k, n, a_zero, y_zero, scales);
}

void npu_matmul_bias_s8(const int8_t *a, const int8_t *b, const int32_t *bias,
                        int8_t *y, int32_t m, int32_t k, int32_t n,
                        int32_t a_zero, int32_t y_zero, const float *scales) {
    matmul(a, b, 8, bias, y, m, k, n, a_zero, y_zero, scales);
}

void npu_matmul_bias_s4(const int8_t *a, const int8_t *packed, const int32_t *bias,
                        int8_t *y, int32_t m, int32_t k, int32_t n,
                        int32_t a_zero, int32_t y_zero, const float *scales) {
    matmul(a, packed, 4, bias, y, m, k, n, a_zero, y_zero, scales);
}

void npu_lut_s8(const int8_t *x, const int8_t *table, int8_t *y, int32_t n) {
    for (int32_t i = 0; i < n; i++) {
        y[i] = table[x[i] + 128];
    }
}

void npu_lut_s4(const int8_t *x, const int8_t *table, int8_t *y, int32_t n) {
    for (int32_t i = 0; i < n; i++) {
        y[i] = table[x[i] + 8];
    }
}

void npu_matmul_bias_s2(const int8_t *a, const int8_t *packed, const int32_t *bias,
                        int8_t *y, int32_t m, int32_t k, int32_t n,
                        int32_t a_zero, int32_t y_zero, const float *scales) {
    matmul(a, packed, 2, bias, y, m, k, n, a_zero, y_zero, scales);
}

void npu_lut_s2(const int8_t *x, const int8_t *table, int8_t *y, int32_t n) {
    for (int32_t i = 0; i < n; i++) {
        y[i] = table[x[i] + 2];
    }
}
