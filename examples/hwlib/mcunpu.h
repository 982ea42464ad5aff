/* mcunpu: the C library of an int8 neural accelerator for microcontrollers, in the
 * conventions of Arm's CMSIS-NN and TFLite Micro. This is the header a vendor would
 * ship; examples/targets/mcunpu.acc describes it to acc, and mcunpu.c is a reference
 * implementation in portable C99.
 *
 * Conventions:
 * - activations are int8, NHWC (batch 1: [height][width][channels]);
 * - convolution filters are OHWI ([out_c][k_h][k_w][in_c]), depthwise filters
 *   [k_h][k_w][channels], fully connected weights [out][in];
 * - `input_offset` is minus the input's zero point, `output_offset` the output's
 *   zero point;
 * - an accumulator is requantized per output channel by a Q31 multiplier and a shift
 *   (TFLite's QuantizeMultiplier form of s_in * s_w[c] / s_out: the accumulator
 *   times mult * 2^(shift - 31), by gemmlowp's rounding doubling high multiply and
 *   rounding divide by a power of two), the output offset added, and the result
 *   clamped to [act_min, act_max] (a fused ReLU or ReLU6);
 * - padding is given by its top and left sizes; windows are clipped to the input
 *   (padded positions contribute nothing). */
#ifndef MCUNPU_H
#define MCUNPU_H

#include <stdint.h>

/* Convolution (arm_convolve_s8). */
void mcunpu_convolve_s8(const int8_t *input, const int8_t *filter, const int32_t *bias,
                        int8_t *output, int32_t in_h, int32_t in_w, int32_t in_c,
                        int32_t out_h, int32_t out_w, int32_t out_c, int32_t k_h,
                        int32_t k_w, int32_t stride_h, int32_t stride_w, int32_t pad_h,
                        int32_t pad_w, int32_t input_offset, int32_t output_offset,
                        const int32_t *out_mult, const int32_t *out_shift,
                        int32_t act_min, int32_t act_max);

/* Depthwise convolution, one filter per channel (arm_depthwise_conv_s8,
 * channel multiplier 1). */
void mcunpu_depthwise_conv_s8(const int8_t *input, const int8_t *filter,
                              const int32_t *bias, int8_t *output, int32_t in_h,
                              int32_t in_w, int32_t channels, int32_t out_h,
                              int32_t out_w, int32_t k_h, int32_t k_w, int32_t stride_h,
                              int32_t stride_w, int32_t pad_h, int32_t pad_w,
                              int32_t input_offset, int32_t output_offset,
                              const int32_t *out_mult, const int32_t *out_shift,
                              int32_t act_min, int32_t act_max);

/* Fully connected layer (arm_fully_connected_s8 with per-channel parameters). The
 * input offset is folded into `kernel_sum`: kernel_sum[o] = bias[o] + input_offset *
 * sum_i(filter[o][i]), computed ahead of time (arm_vector_sum_s8), so the inner
 * loop is a plain dot product. */
void mcunpu_fully_connected_s8(const int8_t *input, const int8_t *filter,
                               const int32_t *kernel_sum, int8_t *output,
                               int32_t batches, int32_t in_features,
                               int32_t out_features, int32_t output_offset,
                               const int32_t *out_mult, const int32_t *out_shift,
                               int32_t act_min, int32_t act_max);

/* Elementwise add (arm_elementwise_add_s8): each input offset, shifted left by
 * `left_shift` and rescaled to a common scale, the two summed and rescaled to the
 * output. */
void mcunpu_elementwise_add_s8(const int8_t *a, const int8_t *b, int8_t *output,
                               int32_t n, int32_t a_offset, int32_t a_mult,
                               int32_t a_shift, int32_t b_offset, int32_t b_mult,
                               int32_t b_shift, int32_t left_shift, int32_t out_mult,
                               int32_t out_shift, int32_t output_offset,
                               int32_t act_min, int32_t act_max);

/* Average pooling keeping the input's quantization (arm_avgpool_s8): the sum over
 * the window's positions inside the input divided by their count, rounded half
 * away from zero. */
void mcunpu_avgpool_s8(const int8_t *input, int8_t *output, int32_t in_h, int32_t in_w,
                       int32_t channels, int32_t out_h, int32_t out_w, int32_t k_h,
                       int32_t k_w, int32_t stride_h, int32_t stride_w, int32_t pad_h,
                       int32_t pad_w, int32_t act_min, int32_t act_max);

/* Max pooling (arm_max_pool_s8). */
void mcunpu_max_pool_s8(const int8_t *input, int8_t *output, int32_t in_h, int32_t in_w,
                        int32_t channels, int32_t out_h, int32_t out_w, int32_t k_h,
                        int32_t k_w, int32_t stride_h, int32_t stride_w, int32_t pad_h,
                        int32_t pad_w, int32_t act_min, int32_t act_max);

/* Mean over the `count` positions of each channel into another quantization
 * (TFLite's quantized mean, a global average pool): the sum of the offset inputs
 * requantized by the Q31 form of s_in / (s_out * count). */
void mcunpu_mean_s8(const int8_t *input, int8_t *output, int32_t count,
                    int32_t channels, int32_t input_offset, int32_t out_mult,
                    int32_t out_shift, int32_t output_offset, int32_t act_min,
                    int32_t act_max);

#endif
