/* acc's device runtime, emulated on a POSIX host: each device is a thread that runs
 * the work submitted to it in order, after the events it must wait for, then marks
 * the work's event done. The C acc emits for an asynchronous device program
 * (hw.launch, docs/codegen.md "Launches") calls a device's submit function, declared
 * by the target (`device dla kind "accelerator" submit dla_submit`), and
 * acc_event_wait. On a real SoC the same functions start work through the device's
 * driver and wait on its fence or interrupt; this file lets the whole program run,
 * bit for bit, on the machine that compiles it (with -pthread, under
 * ThreadSanitizer too).
 *
 * No malloc: a queue holds ACC_QUEUE_DEPTH pieces of work; submitting to a full
 * queue blocks until the device takes one. */
#ifndef ACC_DEVICES_H
#define ACC_DEVICES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ACC_QUEUE_DEPTH 64
#define ACC_MAX_AFTER 16

/* Work in flight: done when `pending` is 0. Zero-initialised storage is a done
 * event. Read and written under the runtime's lock only. */
typedef struct acc_event {
    uint32_t pending;
} acc_event;

/* One piece of submitted work. */
struct acc_work {
    void (*work)(void *);
    void *ctx;
    acc_event *after[ACC_MAX_AFTER];
    uint32_t n_after;
    acc_event *done;
};

/* A device's queue; define one per device as `static acc_queue q = {.name = "dla"};`. */
typedef struct acc_queue {
    const char *name;
    struct acc_work ring[ACC_QUEUE_DEPTH];
    uint32_t head, count;
    int started;
} acc_queue;

/* Queues `work(ctx)` on `q`'s device, to run once the events `after` are done;
 * `done` is pending until it has run. Returns at once. */
void acc_device_submit(acc_queue *q, void (*work)(void *), void *ctx,
                       acc_event *const *after, uint32_t n_after, acc_event *done);

/* Blocks the caller (the host) until `e` is done. */
void acc_event_wait(acc_event *e);

#ifdef __cplusplus
}
#endif

#endif
