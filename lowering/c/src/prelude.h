/* ---- acc's helpers: arith and math semantics in portable C ---- */
static inline uint32_t acc_f32_bits(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
static inline float acc_f32_of(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
static inline uint64_t acc_f64_bits(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }
static inline double acc_f64_of(uint64_t u) { double x; memcpy(&x, &u, 8); return x; }
/* f16 and bf16, held as their bits: widened exactly; narrowed from a double to
 * nearest even in one rounding (every bit of the double counts), a NaN becoming
 * the format's quiet NaN, as the interpreter converts. */
static inline float acc_bf16_to_f32(uint16_t h) { return acc_f32_of((uint32_t)h << 16); }
static inline float acc_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, mag = h & 0x7fffu;
    if (mag >= 0x7c00u) return acc_f32_of(sign | 0x7f800000u | ((mag & 0x3ffu) << 13));
    if (mag >= 0x0400u) return acc_f32_of(sign | ((mag << 13) + ((uint32_t)(127 - 15) << 23)));
    /* Zero and subnormals: mag * 2^-24, exact. */
    return acc_f32_of(sign | acc_f32_bits((float)mag * 5.9604644775390625e-8f));
}
static inline uint16_t acc_narrow_float_of(double x, int e_bits, int m_bits) {
    uint64_t bits = acc_f64_bits(x), sign = (bits >> 48) & 0x8000u;
    uint64_t abs = bits & 0x7fffffffffffffffull;
    int64_t all_ones = ((int64_t)1 << e_bits) - 1, bias = all_ones >> 1;
    uint64_t inf = (uint64_t)all_ones << m_bits;
    if (abs > 0x7ff0000000000000ull) return (uint16_t)(inf | ((uint64_t)1 << (m_bits - 1)));
    int64_t de = (int64_t)(abs >> 52) + bias - 1023; /* the narrow biased exponent */
    if (de >= all_ones) return (uint16_t)(sign | inf);
    uint64_t full = (abs & 0xfffffffffffffull) | ((uint64_t)1 << 52);
    int64_t shift = 52 - m_bits + (de < 1 ? 1 - de : 0); /* subnormals shift further */
    if (shift > 63) shift = 63;
    uint64_t q = full >> shift, rest = full - (q << shift), half = (uint64_t)1 << (shift - 1);
    uint64_t up = rest > half || (rest == half && (q & 1u));
    uint64_t lead = de > 1 ? (uint64_t)(de - 1) << m_bits : 0; /* q adds the leading 1 */
    return (uint16_t)(sign | (lead + q + up));
}
static inline uint16_t acc_f16_of(double x) { return acc_narrow_float_of(x, 5, 10); }
static inline uint16_t acc_bf16_of(double x) { return acc_narrow_float_of(x, 8, 7); }
/* The floats of 8 bits and fewer (f8, f6, f4; acc_ir::minifloat), held as their bits
 * in a uint8_t and described by their fields. `rule`: 0 IEEE (infinity and NaNs), 1
 * only the all-ones patterns are NaN, 2 negative zero's pattern is the NaN, 3 no NaN,
 * 4 exponent only (f8E8M0FNU, 2^(h - 127)). Widened exactly; narrowed like f16, then
 * a value past the largest finite pattern becomes `over_up` or `over_down` (infinity,
 * NaN or the largest value, by the format), a NaN `nan`; `no_negative_zero` for FNUZ. */
static inline float acc_small_float_to_f32(uint32_t h, int e_bits, int m_bits, int bias, int rule) {
    if (rule == 4) return acc_f32_of(h == 0xffu ? 0x7fc00000u : (h ? h << 23 : 0x00400000u));
    uint32_t sign_bit = 1u << (e_bits + m_bits), top = ((1u << e_bits) - 1u) << m_bits;
    uint32_t bits = h & (2u * sign_bit - 1u), mag = bits & (sign_bit - 1u);
    uint32_t sign = (bits & sign_bit) ? 0x80000000u : 0u;
    if (rule == 0 && mag >= top)
        return acc_f32_of(sign | 0x7f800000u | ((mag << (23 - m_bits)) & 0x7fffffu));
    if ((rule == 1 && mag == sign_bit - 1u) || (rule == 2 && bits == sign_bit))
        return acc_f32_of(0x7fc00000u);
    if (mag >= (1u << m_bits))
        return acc_f32_of(sign | ((mag << (23 - m_bits)) + ((uint32_t)(127 - bias) << 23)));
    /* Zero and subnormals: mag * 2^(1 - bias - m_bits), exact. */
    float scale = acc_f32_of((uint32_t)(127 + 1 - bias - m_bits) << 23);
    return acc_f32_of(sign | acc_f32_bits((float)mag * scale));
}
static inline uint8_t acc_small_float_of(double x, int e_bits, int m_bits, int bias,
                                         uint32_t largest, uint32_t over_up,
                                         uint32_t over_down, uint32_t nan,
                                         int no_negative_zero) {
    uint64_t bits = acc_f64_bits(x), sign = (bits >> 63) << (e_bits + m_bits);
    uint64_t abs = bits & 0x7fffffffffffffffull;
    if (abs > 0x7ff0000000000000ull) return (uint8_t)nan;
    int64_t de = (int64_t)(abs >> 52) + bias - 1023; /* the narrow biased exponent */
    uint64_t full = (abs & 0xfffffffffffffull) | ((uint64_t)1 << 52);
    int64_t shift = 52 - m_bits + (de < 1 ? 1 - de : 0); /* subnormals shift further */
    if (shift > 63) shift = 63;
    uint64_t q = full >> shift, rest = full - (q << shift), half = (uint64_t)1 << (shift - 1);
    uint64_t up = rest > half || (rest == half && (q & 1u));
    uint64_t lead = de > 1 ? (uint64_t)(de - 1) << m_bits : 0; /* q adds the leading 1 */
    uint64_t rounded = lead + q + up;
    if (rounded > largest) return (uint8_t)(sign ? over_down : over_up);
    if (rounded == 0 && no_negative_zero) return 0;
    return (uint8_t)(sign | rounded);
}
/* IEEE maximum / minimum: NaN wins (the quiet NaN 0x7fc00000, as the interpreter
 * gives), +0 above -0 (arith.maximumf, minimumf). */
static inline float acc_maximumf(float a, float b) {
    if (a != a || b != b) return acc_f32_of(0x7fc00000u);
    if (a == b) return (acc_f32_bits(a) >> 31) ? b : a;
    return a > b ? a : b;
}
static inline float acc_minimumf(float a, float b) {
    if (a != a || b != b) return acc_f32_of(0x7fc00000u);
    if (a == b) return (acc_f32_bits(a) >> 31) ? a : b;
    return a < b ? a : b;
}
static inline double acc_maximum(double a, double b) {
    if (a != a || b != b) return acc_f64_of(0x7ff8000000000000ull);
    if (a == b) return (acc_f64_bits(a) >> 63) ? b : a;
    return a > b ? a : b;
}
static inline double acc_minimum(double a, double b) {
    if (a != a || b != b) return acc_f64_of(0x7ff8000000000000ull);
    if (a == b) return (acc_f64_bits(a) >> 63) ? a : b;
    return a < b ? a : b;
}
/* maxnum / minnum: a NaN operand gives the other one (arith.maxnumf, minnumf). */
static inline float acc_maxnumf(float a, float b) { return a != a ? b : b != b ? a : acc_maximumf(a, b); }
static inline float acc_minnumf(float a, float b) { return a != a ? b : b != b ? a : acc_minimumf(a, b); }
static inline double acc_maxnum(double a, double b) { return a != a ? b : b != b ? a : acc_maximum(a, b); }
static inline double acc_minnum(double a, double b) { return a != a ? b : b != b ? a : acc_minimum(a, b); }
static inline float acc_fabsf(float x) { return acc_f32_of(acc_f32_bits(x) & 0x7fffffffu); }
static inline double acc_fabs(double x) { return acc_f64_of(acc_f64_bits(x) & 0x7fffffffffffffffull); }
/* floor, ceil and round-half-to-even without libm: values of magnitude 2^52 and
 * above (and NaN, infinities) are already integers. */
static inline double acc_floor(double x) {
    if (!(acc_fabs(x) < 4503599627370496.0)) return x;
    double t = (double)(int64_t)x;
    return t > x ? t - 1.0 : (t == 0.0 ? acc_f64_of(acc_f64_bits(x) & 0x8000000000000000ull) : t);
}
static inline double acc_ceil(double x) {
    if (!(acc_fabs(x) < 4503599627370496.0)) return x;
    double t = (double)(int64_t)x;
    t = t < x ? t + 1.0 : t;
    return t == 0.0 ? acc_f64_of(acc_f64_bits(x) & 0x8000000000000000ull) : t;
}
static inline double acc_roundeven(double x) {
    if (!(acc_fabs(x) < 4503599627370496.0)) return x;
    double f = acc_floor(x), d = x - f, r;
    if (d > 0.5) r = f + 1.0;
    else if (d < 0.5) r = f;
    else r = ((int64_t)f % 2 == 0) ? f : f + 1.0;
    return r == 0.0 ? acc_f64_of(acc_f64_bits(x) & 0x8000000000000000ull) : r;
}
static inline float acc_floorf(float x) { return (float)acc_floor((double)x); }
static inline float acc_ceilf(float x) { return (float)acc_ceil((double)x); }
static inline float acc_roundevenf(float x) { return (float)acc_roundeven((double)x); }
/* Signed maximum and minimum (called rather than written inline, where a comparison
 * with a type's bound draws GCC's -Wtype-limits). */
static inline int64_t acc_maxsi(int64_t a, int64_t b) { return a > b ? a : b; }
static inline int64_t acc_minsi(int64_t a, int64_t b) { return a < b ? a : b; }
/* An i2 or i4 value: the low `bits` bits of v, sign-extended into an int8_t. */
static inline int8_t acc_wrap_narrow(int64_t v, int bits) {
    uint32_t m = (1u << bits) - 1u, u = (uint32_t)((uint64_t)v & m);
    return (int8_t)(u >> (bits - 1) ? (int32_t)u - (int32_t)(m + 1u) : (int32_t)u);
}
/* Float to integer, saturating (NaN gives 0), as Cranelift's fcvt_to_sint_sat. */
static inline int64_t acc_fptosi(double x, int bits) {
    double hi = bits == 64 ? 9223372036854775808.0 : (double)((int64_t)1 << (bits - 1));
    if (x != x) return 0;
    if (x >= hi) return bits == 64 ? INT64_MAX : (int64_t)hi - 1;
    if (x <= -hi) return bits == 64 ? INT64_MIN : -(int64_t)hi;
    return (int64_t)x;
}
static inline uint64_t acc_fptoui(double x, int bits) {
    double hi = bits == 64 ? 18446744073709551616.0 : (double)((uint64_t)1 << bits);
    if (x != x || x <= 0.0) return 0;
    if (x >= hi) return bits == 64 ? UINT64_MAX : (uint64_t)hi - 1;
    return (uint64_t)x;
}
/* The same from a float, in float arithmetic only (every bound is a power of two,
 * exact in float). */
static inline int64_t acc_fptosif(float x, int bits) {
    float hi = bits == 64 ? 9223372036854775808.0f : (float)((int64_t)1 << (bits - 1));
    if (x != x) return 0;
    if (x >= hi) return bits == 64 ? INT64_MAX : (int64_t)hi - 1;
    if (x <= -hi) return bits == 64 ? INT64_MIN : -(int64_t)hi;
    return (int64_t)x;
}
static inline uint64_t acc_fptouif(float x, int bits) {
    float hi = bits == 64 ? 18446744073709551616.0f : (float)((uint64_t)1 << bits);
    if (x != x || x <= 0.0f) return 0;
    if (x >= hi) return bits == 64 ? UINT64_MAX : (uint64_t)hi - 1;
    return (uint64_t)x;
}
