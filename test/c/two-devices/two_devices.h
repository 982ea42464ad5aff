/* The library of test/lit/targets/Inputs/two-devices.acc, emulated: a DLA and a DSP
 * each with an activation-table unit and a DMA engine (copies done at once), started
 * through acc's device runtime (examples/hwlib/acc_devices.h), one thread each. */
#ifndef TWO_DEVICES_H
#define TWO_DEVICES_H

#include <stdint.h>

#include "acc_devices.h"

void dla_lut(const int8_t *x, const int8_t *table, int8_t *y, int32_t n);
void dsp_lut(const int8_t *x, const int8_t *table, int8_t *y, int32_t n);
uint32_t dla_dma(void *dst, const void *src, uint32_t bytes);
void dla_dma_wait(uint32_t ticket);
uint32_t dsp_dma(void *dst, const void *src, uint32_t bytes);
void dsp_dma_wait(uint32_t ticket);
uint32_t dla_to_dsp(void *dst, const void *src, uint32_t bytes);
void dla_to_dsp_wait(uint32_t ticket);
void dla_submit(void (*work)(void *), void *ctx, acc_event *const *after, uint32_t n_after,
                acc_event *done);
void dsp_submit(void (*work)(void *), void *ctx, acc_event *const *after, uint32_t n_after,
                acc_event *done);

#endif
