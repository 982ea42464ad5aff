/* acc's device runtime, emulated with POSIX threads: see acc_devices.h. One lock
 * and one condition variable order everything: a device thread takes its next work,
 * waits for the work's `after` events, runs it unlocked, then marks its event done
 * and wakes every waiter. The lock is what makes a device's writes visible to the
 * host or device that waited for its event. */
#include "acc_devices.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t acc_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t acc_changed = PTHREAD_COND_INITIALIZER;

static void *acc_device_main(void *arg) {
    acc_queue *q = (acc_queue *)arg;
    pthread_mutex_lock(&acc_lock);
    for (;;) {
        while (q->count == 0) {
            pthread_cond_wait(&acc_changed, &acc_lock);
        }
        struct acc_work w = q->ring[q->head];
        for (uint32_t i = 0; i < w.n_after; i++) {
            while (w.after[i]->pending) {
                pthread_cond_wait(&acc_changed, &acc_lock);
            }
        }
        pthread_mutex_unlock(&acc_lock);
        w.work(w.ctx);
        pthread_mutex_lock(&acc_lock);
        q->head = (q->head + 1) % ACC_QUEUE_DEPTH;
        q->count--;
        w.done->pending = 0;
        pthread_cond_broadcast(&acc_changed);
    }
    return NULL;
}

void acc_device_submit(acc_queue *q, void (*work)(void *), void *ctx,
                       acc_event *const *after, uint32_t n_after, acc_event *done) {
    if (n_after > ACC_MAX_AFTER) {
        fprintf(stderr, "acc_devices: work on %s waits for %u events (at most %d)\n",
                q->name, (unsigned)n_after, ACC_MAX_AFTER);
        abort();
    }
    pthread_mutex_lock(&acc_lock);
    if (!q->started) {
        pthread_t thread;
        if (pthread_create(&thread, NULL, acc_device_main, q) != 0) {
            fprintf(stderr, "acc_devices: cannot start the thread of %s\n", q->name);
            abort();
        }
        pthread_detach(thread);
        q->started = 1;
    }
    while (q->count == ACC_QUEUE_DEPTH) {
        pthread_cond_wait(&acc_changed, &acc_lock);
    }
    struct acc_work *w = &q->ring[(q->head + q->count) % ACC_QUEUE_DEPTH];
    w->work = work;
    w->ctx = ctx;
    for (uint32_t i = 0; i < n_after; i++) {
        w->after[i] = after[i];
    }
    w->n_after = n_after;
    w->done = done;
    done->pending = 1;
    q->count++;
    pthread_cond_broadcast(&acc_changed);
    pthread_mutex_unlock(&acc_lock);
}

void acc_event_wait(acc_event *e) {
    pthread_mutex_lock(&acc_lock);
    while (e->pending) {
        pthread_cond_wait(&acc_changed, &acc_lock);
    }
    pthread_mutex_unlock(&acc_lock);
}
