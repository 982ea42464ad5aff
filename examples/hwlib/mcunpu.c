/* The reference implementation of mcunpu.h in portable C99: what the accelerator
 * computes, bit for bit. */
#include "mcunpu.h"

/* gemmlowp's SaturatingRoundingDoublingHighMul: the high 32 bits of 2 * a * b,
 * rounded half up; INT32_MAX for INT32_MIN * INT32_MIN. */
static int32_t doubling_high_mul(int32_t a, int32_t b) {
    if (a == INT32_MIN && b == INT32_MIN) {
        return INT32_MAX;
    }
    int64_t ab = (int64_t)a * (int64_t)b;
    int64_t nudge = ab >= 0 ? (1LL << 30) : (1 - (1LL << 30));
    return (int32_t)((ab + nudge) / (1LL << 31));
}

/* gemmlowp's RoundingDivideByPOT: x / 2^exponent, ties away from zero. */
static int32_t divide_by_power_of_two(int32_t x, int32_t exponent) {
    int32_t mask = (int32_t)((1LL << exponent) - 1);
    int32_t remainder = x & mask;
    int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/* x * mult * 2^(shift - 31) (CMSIS-NN's arm_nn_requantize). */
static int32_t requantize(int32_t x, int32_t mult, int32_t shift) {
    int32_t left = shift > 0 ? shift : 0;
    int32_t right = shift > 0 ? 0 : -shift;
    int32_t shifted = (int32_t)((uint32_t)x << left);
    return divide_by_power_of_two(doubling_high_mul(shifted, mult), right);
}

static int8_t clamp(int32_t v, int32_t lo, int32_t hi) {
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    return (int8_t)v;
}

void mcunpu_convolve_s8(const int8_t *input, const int8_t *filter, const int32_t *bias,
                        int8_t *output, int32_t in_h, int32_t in_w, int32_t in_c,
                        int32_t out_h, int32_t out_w, int32_t out_c, int32_t k_h,
                        int32_t k_w, int32_t stride_h, int32_t stride_w, int32_t pad_h,
                        int32_t pad_w, int32_t input_offset, int32_t output_offset,
                        const int32_t *out_mult, const int32_t *out_shift,
                        int32_t act_min, int32_t act_max) {
    for (int32_t oy = 0; oy < out_h; oy++) {
        for (int32_t ox = 0; ox < out_w; ox++) {
            for (int32_t oc = 0; oc < out_c; oc++) {
                int32_t acc = bias ? bias[oc] : 0;
                for (int32_t ky = 0; ky < k_h; ky++) {
                    int32_t iy = oy * stride_h - pad_h + ky;
                    if (iy < 0 || iy >= in_h) continue;
                    for (int32_t kx = 0; kx < k_w; kx++) {
                        int32_t ix = ox * stride_w - pad_w + kx;
                        if (ix < 0 || ix >= in_w) continue;
                        const int8_t *x = input + (iy * in_w + ix) * in_c;
                        const int8_t *w = filter + ((oc * k_h + ky) * k_w + kx) * in_c;
                        for (int32_t ic = 0; ic < in_c; ic++) {
                            acc += (x[ic] + input_offset) * w[ic];
                        }
                    }
                }
                int32_t v = requantize(acc, out_mult[oc], out_shift[oc]) + output_offset;
                output[(oy * out_w + ox) * out_c + oc] = clamp(v, act_min, act_max);
            }
        }
    }
}

void mcunpu_depthwise_conv_s8(const int8_t *input, const int8_t *filter,
                              const int32_t *bias, int8_t *output, int32_t in_h,
                              int32_t in_w, int32_t channels, int32_t out_h,
                              int32_t out_w, int32_t k_h, int32_t k_w, int32_t stride_h,
                              int32_t stride_w, int32_t pad_h, int32_t pad_w,
                              int32_t input_offset, int32_t output_offset,
                              const int32_t *out_mult, const int32_t *out_shift,
                              int32_t act_min, int32_t act_max) {
    for (int32_t oy = 0; oy < out_h; oy++) {
        for (int32_t ox = 0; ox < out_w; ox++) {
            for (int32_t c = 0; c < channels; c++) {
                int32_t acc = bias ? bias[c] : 0;
                for (int32_t ky = 0; ky < k_h; ky++) {
                    int32_t iy = oy * stride_h - pad_h + ky;
                    if (iy < 0 || iy >= in_h) continue;
                    for (int32_t kx = 0; kx < k_w; kx++) {
                        int32_t ix = ox * stride_w - pad_w + kx;
                        if (ix < 0 || ix >= in_w) continue;
                        int32_t x = input[(iy * in_w + ix) * channels + c];
                        acc += (x + input_offset) * filter[(ky * k_w + kx) * channels + c];
                    }
                }
                int32_t v = requantize(acc, out_mult[c], out_shift[c]) + output_offset;
                output[(oy * out_w + ox) * channels + c] = clamp(v, act_min, act_max);
            }
        }
    }
}

void mcunpu_fully_connected_s8(const int8_t *input, const int8_t *filter,
                               const int32_t *kernel_sum, int8_t *output,
                               int32_t batches, int32_t in_features,
                               int32_t out_features, int32_t output_offset,
                               const int32_t *out_mult, const int32_t *out_shift,
                               int32_t act_min, int32_t act_max) {
    for (int32_t n = 0; n < batches; n++) {
        const int8_t *x = input + n * in_features;
        for (int32_t o = 0; o < out_features; o++) {
            const int8_t *w = filter + o * in_features;
            int32_t acc = kernel_sum[o];
            for (int32_t i = 0; i < in_features; i++) {
                acc += x[i] * w[i];
            }
            int32_t v = requantize(acc, out_mult[o], out_shift[o]) + output_offset;
            output[n * out_features + o] = clamp(v, act_min, act_max);
        }
    }
}

void mcunpu_elementwise_add_s8(const int8_t *a, const int8_t *b, int8_t *output,
                               int32_t n, int32_t a_offset, int32_t a_mult,
                               int32_t a_shift, int32_t b_offset, int32_t b_mult,
                               int32_t b_shift, int32_t left_shift, int32_t out_mult,
                               int32_t out_shift, int32_t output_offset,
                               int32_t act_min, int32_t act_max) {
    for (int32_t i = 0; i < n; i++) {
        int32_t x = (int32_t)((uint32_t)(a[i] + a_offset) << left_shift);
        int32_t y = (int32_t)((uint32_t)(b[i] + b_offset) << left_shift);
        int32_t sum = requantize(x, a_mult, a_shift) + requantize(y, b_mult, b_shift);
        int32_t v = requantize(sum, out_mult, out_shift) + output_offset;
        output[i] = clamp(v, act_min, act_max);
    }
}

/* The window of output (oy, ox) clipped to the input: rows [*y0, *y1), columns
 * [*x0, *x1). */
static void window(int32_t oy, int32_t ox, int32_t in_h, int32_t in_w, int32_t k_h,
                   int32_t k_w, int32_t stride_h, int32_t stride_w, int32_t pad_h,
                   int32_t pad_w, int32_t *y0, int32_t *y1, int32_t *x0, int32_t *x1) {
    int32_t top = oy * stride_h - pad_h, left = ox * stride_w - pad_w;
    *y0 = top < 0 ? 0 : top;
    *x0 = left < 0 ? 0 : left;
    *y1 = top + k_h > in_h ? in_h : top + k_h;
    *x1 = left + k_w > in_w ? in_w : left + k_w;
}

void mcunpu_avgpool_s8(const int8_t *input, int8_t *output, int32_t in_h, int32_t in_w,
                       int32_t channels, int32_t out_h, int32_t out_w, int32_t k_h,
                       int32_t k_w, int32_t stride_h, int32_t stride_w, int32_t pad_h,
                       int32_t pad_w, int32_t act_min, int32_t act_max) {
    for (int32_t oy = 0; oy < out_h; oy++) {
        for (int32_t ox = 0; ox < out_w; ox++) {
            int32_t y0, y1, x0, x1;
            window(oy, ox, in_h, in_w, k_h, k_w, stride_h, stride_w, pad_h, pad_w, &y0,
                   &y1, &x0, &x1);
            int32_t count = (y1 - y0) * (x1 - x0);
            for (int32_t c = 0; c < channels; c++) {
                int32_t sum = 0;
                for (int32_t y = y0; y < y1; y++) {
                    for (int32_t x = x0; x < x1; x++) {
                        sum += input[(y * in_w + x) * channels + c];
                    }
                }
                int32_t v = sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
                output[(oy * out_w + ox) * channels + c] = clamp(v, act_min, act_max);
            }
        }
    }
}

void mcunpu_max_pool_s8(const int8_t *input, int8_t *output, int32_t in_h, int32_t in_w,
                        int32_t channels, int32_t out_h, int32_t out_w, int32_t k_h,
                        int32_t k_w, int32_t stride_h, int32_t stride_w, int32_t pad_h,
                        int32_t pad_w, int32_t act_min, int32_t act_max) {
    for (int32_t oy = 0; oy < out_h; oy++) {
        for (int32_t ox = 0; ox < out_w; ox++) {
            int32_t y0, y1, x0, x1;
            window(oy, ox, in_h, in_w, k_h, k_w, stride_h, stride_w, pad_h, pad_w, &y0,
                   &y1, &x0, &x1);
            for (int32_t c = 0; c < channels; c++) {
                int32_t best = INT8_MIN;
                for (int32_t y = y0; y < y1; y++) {
                    for (int32_t x = x0; x < x1; x++) {
                        int32_t v = input[(y * in_w + x) * channels + c];
                        best = v > best ? v : best;
                    }
                }
                output[(oy * out_w + ox) * channels + c] = clamp(best, act_min, act_max);
            }
        }
    }
}

void mcunpu_mean_s8(const int8_t *input, int8_t *output, int32_t count,
                    int32_t channels, int32_t input_offset, int32_t out_mult,
                    int32_t out_shift, int32_t output_offset, int32_t act_min,
                    int32_t act_max) {
    for (int32_t c = 0; c < channels; c++) {
        int32_t sum = 0;
        for (int32_t i = 0; i < count; i++) {
            sum += input[i * channels + c] + input_offset;
        }
        int32_t v = requantize(sum, out_mult, out_shift) + output_offset;
        output[c] = clamp(v, act_min, act_max);
    }
}
