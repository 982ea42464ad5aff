/* tinynpu's hardware library: the functions acc calls for work placed on the
 * accelerator (examples/targets/tinynpu.acc declares them, with their arguments).
 * tinynpu.c is a reference implementation in portable C99, so a model compiled for
 * tinynpu runs on any machine; on the chip, the vendor's library replaces it.
 *
 * Tensors are dense, row-major, batch 1: activations NCHW, weights OIHW. Quantized
 * values are int8 with a zero point; weights are symmetric (zero point 0). Every
 * result element is
 *     y = clamp(round_half_even(acc * scales[c]) + y_zero, -128, 127)
 * where acc is the exact int32 sum of products of (x - x_zero) and the weights (plus
 * the bias), scales[c] the multiplier of its output channel c, and the product is in
 * double precision. */
#ifndef TINYNPU_H
#define TINYNPU_H

#include <stdint.h>

/* Convolution: x is c x h x w, weights m x c x kh x kw, y m x oh x ow, with strides
 * (sh, sw) and top/left padding (pt, pl); padding reads as x_zero. */
void npu_conv2d_s8(const int8_t *x, const int8_t *weights, const int32_t *bias,
                   int8_t *y, int32_t c, int32_t h, int32_t w, int32_t m,
                   int32_t oh, int32_t ow, int32_t kh, int32_t kw, int32_t sh,
                   int32_t sw, int32_t pt, int32_t pl, int32_t x_zero,
                   int32_t y_zero, const float *scales);

/* Depthwise convolution: channel c of y from channel c of x and filter c (weights
 * c x 1 x kh x kw). */
void npu_dwconv2d_s8(const int8_t *x, const int8_t *weights, const int32_t *bias,
                     int8_t *y, int32_t c, int32_t h, int32_t w, int32_t oh,
                     int32_t ow, int32_t kh, int32_t kw, int32_t sh, int32_t sw,
                     int32_t pt, int32_t pl, int32_t x_zero, int32_t y_zero,
                     const float *scales);

/* Matrix product: a is m x k, b k x n (scales per column of b), y m x n. */
void npu_matmul_s8(const int8_t *a, const int8_t *b, int8_t *y, int32_t m,
                   int32_t k, int32_t n, int32_t a_zero, int32_t y_zero,
                   const float *scales);

/* Multiply-accumulates performed since the start (the reference keeps count, so a
 * test or a profile can compare with the target's cost model). */
uint64_t npu_macs(void);

#endif
