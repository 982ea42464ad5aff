/* tinynpu's hardware library: the functions acc calls for work placed on the
 * accelerator (examples/targets/tinynpu.acc declares them, with their arguments).
 * tinynpu.c is a reference implementation in portable C99, so a model compiled for
 * tinynpu runs on any machine; on the chip, the vendor's library replaces it.
 *
 * Tensors are dense, row-major, batch 1: activations NCHW, weights OIHW. Quantized
 * values are int8 (`_s8`), int4 (`_s4`) or int2 (`_s2`) with a zero point; weights
 * are symmetric (zero point 0). int4 and int2 activations are one per byte
 * (sign-extended into an int8_t). The int4 and int2 convolutions read channels
 * innermost: their activations NHWC (the target's `layout %x (0, 2, 3, 1)`), their
 * weights OHWI, packed two (int4) or four (int2) per byte, the first in the lowest
 * bits (what the target's `packed(%w, 0, 2, 3, 1)` computes at compile time). Every result element is
 *     y = clamp(round_half_even(acc * scales[c]) + y_zero, min, max)
 * where acc is the exact int32 sum of products of (x - x_zero) and the weights (plus
 * the bias), scales[c] the multiplier of its output channel c, the product is in
 * double precision, and [min, max] is [-128, 127] for int8, [-8, 7] for int4 and
 * [-2, 1] for int2. */
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

/* The same on int4 values, x h x w x c and y oh x ow x m (NHWC), the weights
 * OHWI packed two per byte. */
void npu_conv2d_s4(const int8_t *x, const int8_t *packed, const int32_t *bias,
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

/* Matrix product plus an int32 bias per column of y. */
void npu_matmul_bias_s8(const int8_t *a, const int8_t *b, const int32_t *bias,
                        int8_t *y, int32_t m, int32_t k, int32_t n,
                        int32_t a_zero, int32_t y_zero, const float *scales);

/* The same on int4 values, b packed two per byte (row-major k x n). */
void npu_matmul_bias_s4(const int8_t *a, const int8_t *packed, const int32_t *bias,
                        int8_t *y, int32_t m, int32_t k, int32_t n,
                        int32_t a_zero, int32_t y_zero, const float *scales);

/* Table lookup, the activation unit: y[i] = table[x[i] + 128] for n elements
 * (the table has 256 entries, one per int8 value from -128). */
void npu_lut_s8(const int8_t *x, const int8_t *table, int8_t *y, int32_t n);

/* The same for int4 values: y[i] = table[x[i] + 8], 16 entries. */
void npu_lut_s4(const int8_t *x, const int8_t *table, int8_t *y, int32_t n);

/* int2: the weights packed four per byte, the table of 4 entries (x[i] + 2). */
void npu_conv2d_s2(const int8_t *x, const int8_t *packed, const int32_t *bias,
                   int8_t *y, int32_t c, int32_t h, int32_t w, int32_t m,
                   int32_t oh, int32_t ow, int32_t kh, int32_t kw, int32_t sh,
                   int32_t sw, int32_t pt, int32_t pl, int32_t x_zero,
                   int32_t y_zero, const float *scales);
void npu_matmul_bias_s2(const int8_t *a, const int8_t *packed, const int32_t *bias,
                        int8_t *y, int32_t m, int32_t k, int32_t n,
                        int32_t a_zero, int32_t y_zero, const float *scales);
void npu_lut_s2(const int8_t *x, const int8_t *table, int8_t *y, int32_t n);

/* The DMA engine between the SRAM and the accelerator's local memory, where the
 * accelerator's operands must be: npu_dma starts copying `bytes` bytes from src to
 * dst and returns a ticket; npu_dma_wait(ticket) returns once that copy is done.
 * Copies complete in the order they were started. The reference implementation
 * copies only when a copy is waited for (or eight are queued), as a real engine may
 * finish late: code that reads a copy before waiting gets stale data. */
uint32_t npu_dma(void *dst, const void *src, uint32_t bytes);
void npu_dma_wait(uint32_t ticket);

/* Bytes the DMA engine has copied since the start. */
uint64_t npu_dma_bytes(void);

/* Multiply-accumulates performed since the start (the reference keeps count, so a
 * test or a profile can compare with the target's cost model). */
uint64_t npu_macs(void);

#endif
