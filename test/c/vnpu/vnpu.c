/* The reference implementation of vnpu.h: gemmlowp's fixed-point primitives. */
#include "vnpu.h"

/* The high 32 bits of 2 * a * b, rounded half up; INT32_MAX for INT32_MIN^2. */
static int32_t doubling_high_mul(int32_t a, int32_t b) {
    if (a == INT32_MIN && b == INT32_MIN) {
        return INT32_MAX;
    }
    int64_t ab = (int64_t)a * (int64_t)b;
    int64_t nudge = ab >= 0 ? (1LL << 30) : (1 - (1LL << 30));
    return (int32_t)((ab + nudge) / (1LL << 31));
}

/* x / 2^exponent, rounded to nearest, ties away from zero. */
static int32_t divide_by_power_of_two(int32_t x, int32_t exponent) {
    int32_t mask = (int32_t)((1LL << exponent) - 1);
    int32_t remainder = x & mask;
    int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/* x times mult * 2^(shift - 31). */
static int32_t rescale(int32_t x, int32_t mult, int32_t shift) {
    int32_t left = shift > 0 ? shift : 0;
    int32_t right = shift > 0 ? 0 : -shift;
    int32_t shifted = (int32_t)((uint32_t)x << left);
    return divide_by_power_of_two(doubling_high_mul(shifted, mult), right);
}

void vnpu_add_s8(const int8_t *a, const int8_t *b, int8_t *y, int32_t n,
                 int32_t a_offset, int32_t a_mult, int32_t a_shift,
                 int32_t b_offset, int32_t b_mult, int32_t b_shift,
                 int32_t left_shift, int32_t out_mult, int32_t out_shift,
                 int32_t out_offset, int32_t act_min, int32_t act_max) {
    for (int32_t i = 0; i < n; i++) {
        int32_t x = (int32_t)((uint32_t)(a[i] + a_offset) << left_shift);
        int32_t z = (int32_t)((uint32_t)(b[i] + b_offset) << left_shift);
        int32_t sum = rescale(x, a_mult, a_shift) + rescale(z, b_mult, b_shift);
        int32_t v = rescale(sum, out_mult, out_shift) + out_offset;
        v = v < act_min ? act_min : v;
        v = v > act_max ? act_max : v;
        y[i] = (int8_t)v;
    }
}
