/* Reference implementation of tinynpu's hardware library (tinynpu.h): portable C99,
 * no libc beyond stdint.h, no allocation. */
#include "tinynpu.h"

static uint64_t macs;

uint64_t npu_macs(void) { return macs; }

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

/* The int8 output of an exact accumulator. */
static int8_t requantize(int64_t acc, float scale, int32_t y_zero) {
    double r = round_half_even((double)acc * (double)scale) + (double)y_zero;
    if (r < -128.0) {
        r = -128.0;
    }
    if (r > 127.0) {
        r = 127.0;
    }
    return (int8_t)(int32_t)r;
}

/* One output element of a convolution: the window of input channels [c0, c0 + cn)
 * at (oy, ox) against filter `f`. */
static int64_t window(const int8_t *x, const int8_t *f, int32_t c0, int32_t cn,
                      int32_t h, int32_t w, int32_t kh, int32_t kw, int32_t iy0,
                      int32_t ix0, int32_t x_zero) {
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
                int32_t xv = x[((c0 + ci) * h + iy) * w + ix] - x_zero;
                acc += (int64_t)xv * f[(ci * kh + ky) * kw + kx];
            }
        }
    }
    macs += (uint64_t)cn * (uint64_t)kh * (uint64_t)kw;
    return acc;
}

void npu_conv2d_s8(const int8_t *x, const int8_t *weights, const int32_t *bias,
                   int8_t *y, int32_t c, int32_t h, int32_t w, int32_t m,
                   int32_t oh, int32_t ow, int32_t kh, int32_t kw, int32_t sh,
                   int32_t sw, int32_t pt, int32_t pl, int32_t x_zero,
                   int32_t y_zero, const float *scales) {
    for (int32_t o = 0; o < m; o++) {
        const int8_t *f = weights + o * c * kh * kw;
        for (int32_t oy = 0; oy < oh; oy++) {
            for (int32_t ox = 0; ox < ow; ox++) {
                int64_t acc = bias[o] + window(x, f, 0, c, h, w, kh, kw, oy * sh - pt,
                                               ox * sw - pl, x_zero);
                y[(o * oh + oy) * ow + ox] = requantize(acc, scales[o], y_zero);
            }
        }
    }
}

void npu_dwconv2d_s8(const int8_t *x, const int8_t *weights, const int32_t *bias,
                     int8_t *y, int32_t c, int32_t h, int32_t w, int32_t oh,
                     int32_t ow, int32_t kh, int32_t kw, int32_t sh, int32_t sw,
                     int32_t pt, int32_t pl, int32_t x_zero, int32_t y_zero,
                     const float *scales) {
    for (int32_t o = 0; o < c; o++) {
        const int8_t *f = weights + o * kh * kw;
        for (int32_t oy = 0; oy < oh; oy++) {
            for (int32_t ox = 0; ox < ow; ox++) {
                int64_t acc = bias[o] + window(x, f, o, 1, h, w, kh, kw, oy * sh - pt,
                                               ox * sw - pl, x_zero);
                y[(o * oh + oy) * ow + ox] = requantize(acc, scales[o], y_zero);
            }
        }
    }
}

void npu_matmul_s8(const int8_t *a, const int8_t *b, int8_t *y, int32_t m,
                   int32_t k, int32_t n, int32_t a_zero, int32_t y_zero,
                   const float *scales) {
    for (int32_t i = 0; i < m; i++) {
        for (int32_t j = 0; j < n; j++) {
            int64_t acc = 0;
            for (int32_t t = 0; t < k; t++) {
                acc += (int64_t)(a[i * k + t] - a_zero) * b[t * n + j];
            }
            y[i * n + j] = requantize(acc, scales[j], y_zero);
        }
    }
    macs += (uint64_t)m * (uint64_t)n * (uint64_t)k;
}
