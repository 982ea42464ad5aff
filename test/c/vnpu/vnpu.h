/* A vendor's const-correct header for the fixed-point library of
 * tools/tests/emit_c.rs (a_vendor_header_and_linker_sections_are_respected):
 * the emitted C includes it (the target file's `header "vnpu.h"`) instead of
 * declaring the function. */
#ifndef VNPU_H
#define VNPU_H

#include <stdint.h>

/* y[i] = clamp(out_offset + rescale(rescale((a[i] + a_offset) << left_shift, a_mult,
 * a_shift) + rescale((b[i] + b_offset) << left_shift, b_mult, b_shift), out_mult,
 * out_shift), act_min, act_max): CMSIS-NN's elementwise add, with TFLite's
 * MultiplyByQuantizedMultiplier as `rescale`. */
void vnpu_add_s8(const int8_t *a, const int8_t *b, int8_t *y, int32_t n,
                 int32_t a_offset, int32_t a_mult, int32_t a_shift,
                 int32_t b_offset, int32_t b_mult, int32_t b_shift,
                 int32_t left_shift, int32_t out_mult, int32_t out_shift,
                 int32_t out_offset, int32_t act_min, int32_t act_max);

#endif
