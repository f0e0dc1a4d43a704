/* pool.c — see pool.h. */
#include "common/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct {
    size_t n;
    atomic_size_t next;
    kr_task_fn fn;
    void *ctx;
} kr_pool_job;

typedef struct { kr_pool_job *job; int worker; } kr_pool_arg;

static void *run(void *p)
{
    kr_pool_arg *a = p;
    for (;;) {
        size_t i = atomic_fetch_add(&a->job->next, 1);
        if (i >= a->job->n)
            break;
        a->job->fn(a->job->ctx, i, a->worker);
    }
    return NULL;
}

void kr_parallel_for(size_t n, int threads, kr_task_fn fn, void *ctx)
{
    if (threads < 1)
        threads = 1;
    if ((size_t)threads > n)
        threads = n ? (int)n : 1;
    kr_pool_job job = { .n = n, .fn = fn, .ctx = ctx };
    atomic_init(&job.next, 0);
    if (threads == 1) {
        kr_pool_arg a = { &job, 0 };
        run(&a);
        return;
    }
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    kr_pool_arg *args = calloc((size_t)threads, sizeof *args);
    int started = 0;
    if (tid && args) {
        for (int t = 1; t < threads; t++) {
            args[t].job = &job;
            args[t].worker = t;
            if (pthread_create(&tid[t], NULL, run, &args[t]) != 0)
                break;
            started = t;
        }
    }
    kr_pool_arg self = { &job, 0 };
    run(&self);
    for (int t = 1; t <= started; t++)
        pthread_join(tid[t], NULL);
    free(tid);
    free(args);
}

int kr_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (int)n;
}
