/* pool.h — run n independent tasks on up to `threads` threads.
 *
 * kr_parallel_for calls fn(ctx, i, worker) once for every i in [0, n); tasks
 * are taken in index order from a shared counter; `worker` (0..threads-1)
 * indexes per-thread scratch. Returns after every task finished. With
 * threads <= 1 it runs inline on the caller's thread. Results must be written
 * to per-index slots so the outcome never depends on thread timing. The
 * worker threads are started by the first call and kept until exit
 * (between calls they spin for a few milliseconds, then sleep). Calls may
 * nest or come from several threads (a call made while another one runs
 * starts threads of its own). */
#ifndef KR_COMMON_POOL_H
#define KR_COMMON_POOL_H

#include <stddef.h>

typedef void (*kr_task_fn)(void *ctx, size_t index, int worker);

void kr_parallel_for(size_t n, int threads, kr_task_fn fn, void *ctx);

/* Online CPUs, at least 1. */
int kr_cpu_count(void);

#endif
