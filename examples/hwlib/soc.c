/* See soc.h. The convolution is tinynpu's reference (tinynpu.c), which this
 * emulation links, on plain copies of the blocked feature data (the chip reads the
 * blocks as they are); copies are done when started, so their waits return at
 * once. */
#include "soc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tinynpu.h"

static acc_queue dla_queue = {.name = "dla"};
static acc_queue dsp_queue = {.name = "dsp"};

/* Bytes per engine. Each engine is used by one device's thread only. */
static uint64_t copied[3];

/* The plain feature maps of the convolution the DLA's thread runs (one at a time):
 * no larger than its SRAM. */
#define DLA_SRAM_BYTES 65536
static int8_t plain_x[DLA_SRAM_BYTES], plain_y[DLA_SRAM_BYTES];

/* The offset of channel k at (i, j) in a c x h x w map in the feature format. */
static size_t blocked_at(int32_t k, int32_t i, int32_t j, int32_t h, int32_t w) {
    size_t block = (size_t)(k / DLA_CHANNEL_BLOCK), lane = (size_t)(k % DLA_CHANNEL_BLOCK);
    return ((block * (size_t)h + (size_t)i) * (size_t)w + (size_t)j) * DLA_CHANNEL_BLOCK + lane;
}

/* The convolution of the plain map plain_x, its result written to y in the feature
 * format. */
static void conv_to_blocked(const int8_t *x, const int8_t *weights, const int32_t *bias,
                            int8_t *y, int32_t c, int32_t h, int32_t w, int32_t m,
                            int32_t oh, int32_t ow, int32_t kh, int32_t kw, int32_t sh,
                            int32_t sw, int32_t pt, int32_t pl, int32_t x_zero,
                            int32_t y_zero, const float *scales) {
    if ((size_t)m * (size_t)oh * (size_t)ow > sizeof plain_y) {
        fprintf(stderr, "dla: a feature map larger than the DLA's SRAM\n");
        abort();
    }
    npu_conv2d_s8(x, weights, bias, plain_y, c, h, w, m, oh, ow, kh, kw, sh, sw, pt, pl,
                  x_zero, y_zero, scales);
    int32_t blocks = (m + DLA_CHANNEL_BLOCK - 1) / DLA_CHANNEL_BLOCK;
    memset(y, 0, (size_t)blocks * (size_t)oh * (size_t)ow * DLA_CHANNEL_BLOCK);
    for (int32_t k = 0; k < m; k++)
        for (int32_t i = 0; i < oh; i++)
            for (int32_t j = 0; j < ow; j++)
                y[blocked_at(k, i, j, oh, ow)] =
                    plain_y[((size_t)k * (size_t)oh + (size_t)i) * (size_t)ow + (size_t)j];
}

void dla_conv2d_s8(const int8_t *x, const int8_t *weights, const int32_t *bias,
                   int8_t *y, int32_t c, int32_t h, int32_t w, int32_t m,
                   int32_t oh, int32_t ow, int32_t kh, int32_t kw, int32_t sh,
                   int32_t sw, int32_t pt, int32_t pl, int32_t x_zero,
                   int32_t y_zero, const float *scales) {
    if ((size_t)c * (size_t)h * (size_t)w > sizeof plain_x) {
        fprintf(stderr, "dla: a feature map larger than the DLA's SRAM\n");
        abort();
    }
    for (int32_t k = 0; k < c; k++)
        for (int32_t i = 0; i < h; i++)
            for (int32_t j = 0; j < w; j++)
                plain_x[((size_t)k * (size_t)h + (size_t)i) * (size_t)w + (size_t)j] =
                    x[blocked_at(k, i, j, h, w)];
    conv_to_blocked(plain_x, weights, bias, y, c, h, w, m, oh, ow, kh, kw, sh, sw, pt, pl,
                    x_zero, y_zero, scales);
}

void dla_image_conv2d_s8(const int8_t *x, const int8_t *weights, const int32_t *bias,
                         int8_t *y, int32_t c, int32_t h, int32_t w, int32_t m,
                         int32_t oh, int32_t ow, int32_t kh, int32_t kw, int32_t sh,
                         int32_t sw, int32_t pt, int32_t pl, int32_t x_zero,
                         int32_t y_zero, const float *scales) {
    conv_to_blocked(x, weights, bias, y, c, h, w, m, oh, ow, kh, kw, sh, sw, pt, pl, x_zero,
                    y_zero, scales);
}

/* A double's place in IEEE's total order, as a signed integer: its bits, the
 * magnitude's flipped for a negative. */
static int64_t total_order_key(double x) {
    int64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits < 0 ? bits ^ INT64_MAX : bits;
}

/* A box's extent (y_min, x_min, y_max, x_max). */
static void box_extent(const float *b, int32_t center_point_box, double e[4]) {
    double b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3];
    if (center_point_box) {
        e[0] = b1 - b3 / 2.0;
        e[1] = b0 - b2 / 2.0;
        e[2] = b1 + b3 / 2.0;
        e[3] = b0 + b2 / 2.0;
    } else {
        e[0] = fmin(b0, b2);
        e[1] = fmin(b1, b3);
        e[2] = fmax(b0, b2);
        e[3] = fmax(b1, b3);
    }
}

/* Whether the intersection over union of two boxes exceeds the threshold. */
static int boxes_overlap(const float *a, const float *b, int32_t center_point_box,
                         double threshold) {
    double ea[4], eb[4];
    box_extent(a, center_point_box, ea);
    box_extent(b, center_point_box, eb);
    double w = fmin(ea[3], eb[3]) - fmax(ea[1], eb[1]);
    double h = fmin(ea[2], eb[2]) - fmax(ea[0], eb[0]);
    if (w <= 0.0 || h <= 0.0) return 0;
    double inter = w * h;
    double area_a = (ea[3] - ea[1]) * (ea[2] - ea[0]);
    double area_b = (eb[3] - eb[1]) * (eb[2] - eb[0]);
    double uni = area_a + area_b - inter;
    if (area_a <= 0.0 || area_b <= 0.0 || uni <= 0.0) return 0;
    return inter / uni > threshold;
}

/* The candidates of one batch and class, by descending score, and the boxes kept:
 * the DSP library's scratch (its one thread calls it). */
static int32_t nms_order[DSP_NMS_MAX_BOXES], nms_kept[DSP_NMS_MAX_BOXES];
static int64_t nms_keys[DSP_NMS_MAX_BOXES];

void dsp_nms_f32(const float *boxes, const float *scores, int64_t *selected, int32_t *count,
                 int32_t batches, int32_t n, int32_t classes, int32_t max_per_class,
                 float iou_threshold, int32_t has_score_threshold, float score_threshold,
                 int32_t center_point_box) {
    if (n > DSP_NMS_MAX_BOXES) {
        fprintf(stderr, "dsp_nms_f32: more than %d boxes\n", DSP_NMS_MAX_BOXES);
        abort();
    }
    int32_t rows = 0;
    for (int32_t b = 0; b < batches; b++) {
        const float *batch_boxes = boxes + (size_t)b * (size_t)n * 4;
        for (int32_t c = 0; c < classes; c++) {
            const float *line = scores + ((size_t)b * (size_t)classes + (size_t)c) * (size_t)n;
            /* Insertion by descending key; a later box goes after equal keys. */
            int32_t candidates = 0;
            for (int32_t i = 0; i < n; i++) {
                double s = line[i];
                if (has_score_threshold && !(s > (double)score_threshold)) continue;
                int64_t key = total_order_key(s);
                int32_t at = candidates;
                while (at > 0 && nms_keys[at - 1] < key) {
                    nms_keys[at] = nms_keys[at - 1];
                    nms_order[at] = nms_order[at - 1];
                    at--;
                }
                nms_keys[at] = key;
                nms_order[at] = i;
                candidates++;
            }
            int32_t kept = 0;
            for (int32_t r = 0; r < candidates && kept < max_per_class; r++) {
                int32_t i = nms_order[r];
                int overlapping = 0;
                for (int32_t k = 0; k < kept && !overlapping; k++)
                    overlapping = boxes_overlap(batch_boxes + (size_t)i * 4,
                                                batch_boxes + (size_t)nms_kept[k] * 4,
                                                center_point_box, (double)iou_threshold);
                if (overlapping) continue;
                nms_kept[kept++] = i;
                selected[(size_t)rows * 3] = b;
                selected[(size_t)rows * 3 + 1] = c;
                selected[(size_t)rows * 3 + 2] = i;
                rows++;
            }
        }
    }
    *count = rows;
}

static uint32_t copy(int engine, void *dst, const void *src, uint32_t bytes) {
    memcpy(dst, src, bytes);
    copied[engine] += bytes;
    return 0;
}

uint32_t dla_dma(void *dst, const void *src, uint32_t bytes) {
    return copy(0, dst, src, bytes);
}

void dla_dma_wait(uint32_t ticket) {
    (void)ticket;
}

uint32_t dsp_dma(void *dst, const void *src, uint32_t bytes) {
    return copy(1, dst, src, bytes);
}

void dsp_dma_wait(uint32_t ticket) {
    (void)ticket;
}

uint32_t dla_dsp_dma(void *dst, const void *src, uint32_t bytes) {
    return copy(2, dst, src, bytes);
}

void dla_dsp_dma_wait(uint32_t ticket) {
    (void)ticket;
}

void dla_submit(void (*work)(void *), void *ctx, acc_event *const *after, uint32_t n_after,
                acc_event *done) {
    acc_device_submit(&dla_queue, work, ctx, after, n_after, done);
}

void dsp_submit(void (*work)(void *), void *ctx, acc_event *const *after, uint32_t n_after,
                acc_event *done) {
    acc_device_submit(&dsp_queue, work, ctx, after, n_after, done);
}

uint64_t soc_dma_bytes(int engine) {
    return engine >= 0 && engine < 3 ? copied[engine] : 0;
}
