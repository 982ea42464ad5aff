/* The SoC of examples/targets/soc.acc, emulated in portable C so that what acc emits
 * for it builds and runs on any machine: the DLA's convolution (tinynpu's reference
 * arithmetic, tinynpu.h: int32 sums, the per-channel scale in double precision,
 * round half to even, clamp to int8), its three DMA engines, and each device's
 * driver entry point, which queues work on that device's thread (acc_devices.h), and
 * the DSP library's non-maximum suppression, which the DSP's code calls. On
 * the chip, the vendor's DLA library and the DSP's and DLA's drivers replace this
 * file; the DSP runs model.dsp.c, built by its own compiler. */
#ifndef SOC_H
#define SOC_H

#include <stdint.h>

#include "acc_devices.h"

/* The DLA's feature format: channels in blocks of 16, the innermost dimension
 * (NCHW16c: ceil(c / 16) x h x w x 16 bytes for c x h x w); a partial last block's
 * lanes hold 0 and are not read. */
#define DLA_CHANNEL_BLOCK 16

/* Convolution: x is c x h x w in the feature format (batch 1), weights m x c x kh x
 * kw (OIHW), y m x oh x ow in the feature format, strides (sh, sw), top/left
 * padding (pt, pl) read as x_zero; one scale per output channel. */
void dla_conv2d_s8(const int8_t *x, const int8_t *weights, const int32_t *bias,
                   int8_t *y, int32_t c, int32_t h, int32_t w, int32_t m,
                   int32_t oh, int32_t ow, int32_t kh, int32_t kw, int32_t sh,
                   int32_t sw, int32_t pt, int32_t pl, int32_t x_zero,
                   int32_t y_zero, const float *scales);

/* The same convolution in image input mode (for a network's first layer): x is c x h
 * x w planar (NCHW, c <= 4), y in the feature format. */
void dla_image_conv2d_s8(const int8_t *x, const int8_t *weights, const int32_t *bias,
                         int8_t *y, int32_t c, int32_t h, int32_t w, int32_t m,
                         int32_t oh, int32_t ow, int32_t kh, int32_t kw, int32_t sh,
                         int32_t sw, int32_t pt, int32_t pl, int32_t x_zero,
                         int32_t y_zero, const float *scales);

/* The DSP library's non-maximum suppression (ONNX NonMaxSuppression, computed in
 * double precision): boxes are batches x n x 4 (center x, center y, width, height
 * when center_point_box, else two corners), scores batches x classes x n. Per batch
 * and class, the boxes scoring above score_threshold (when has_score_threshold) by
 * descending score (IEEE total order, the lower index first on ties), each kept
 * unless its intersection over union with a kept one exceeds iou_threshold, at most
 * max_per_class kept. Writes the kept [batch, class, box] triples to the first rows
 * of selected (room for batches x classes x min(n, max_per_class) rows; the rows
 * after them are not written) and their number to *count. At most DSP_NMS_MAX_BOXES
 * boxes. */
#define DSP_NMS_MAX_BOXES 4096
void dsp_nms_f32(const float *boxes, const float *scores, int64_t *selected, int32_t *count,
                 int32_t batches, int32_t n, int32_t classes, int32_t max_per_class,
                 float iou_threshold, int32_t has_score_threshold, float score_threshold,
                 int32_t center_point_box);

/* The DMA engines: between the DDR and the DLA's SRAM, between the DDR and the
 * DSP's TCM, and between the DLA's SRAM and the DSP's TCM. Each starts a copy of
 * `bytes` bytes and returns a ticket; its wait returns once that copy is done. */
uint32_t dla_dma(void *dst, const void *src, uint32_t bytes);
void dla_dma_wait(uint32_t ticket);
uint32_t dsp_dma(void *dst, const void *src, uint32_t bytes);
void dsp_dma_wait(uint32_t ticket);
uint32_t dla_dsp_dma(void *dst, const void *src, uint32_t bytes);
void dla_dsp_dma_wait(uint32_t ticket);

/* The drivers: queue `work(ctx)` on the device, to start once the events `after`
 * are done (the devices signal each other), `done` pending until it has run. */
void dla_submit(void (*work)(void *), void *ctx, acc_event *const *after, uint32_t n_after,
                acc_event *done);
void dsp_submit(void (*work)(void *), void *ctx, acc_event *const *after, uint32_t n_after,
                acc_event *done);

/* Bytes each engine has copied since the start (dla_dma, dsp_dma, dla_dsp_dma). */
uint64_t soc_dma_bytes(int engine);

#endif
