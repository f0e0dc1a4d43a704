/* pool.c — see pool.h.
 *
 * The workers are started by the first parallel call and kept: a job is
 * posted to each worker's slot; the worker takes tasks from the job's
 * shared counter, clears its slot and reports back through `active`.
 * Between jobs a worker spins (each round yields the CPU, so a runnable
 * thread goes first; every SPIN_CHECK rounds it reads the clock) for
 * SPIN_NS before it sleeps on the condition variable: a command runs its
 * parallel phases microseconds apart, and waking a sleeping thread (worse,
 * a halted virtual CPU) can take a millisecond, longer than a whole
 * phase. A call made while a job
 * is in flight (a task that itself calls kr_parallel_for, or a second
 * thread) starts threads of its own, as a pool-less implementation would. */
#include "common/pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define POOL_MAX 64                   /* workers kept (more threads: started per call) */
#define SPIN_NS 3000000               /* how long an idle worker spins before it sleeps */
#define SPIN_CHECK 16                 /* spin rounds between clock checks */

typedef struct {
    size_t n;
    atomic_size_t next;
    kr_task_fn fn;
    void *ctx;
} kr_pool_job;

static void run_tasks(kr_pool_job *job, int worker)
{
    for (;;) {
        size_t i = atomic_fetch_add(&job->next, 1);
        if (i >= job->n)
            break;
        job->fn(job->ctx, i, worker);
    }
}

/* ---- threads started per call (the fallback) ---- */

typedef struct { kr_pool_job *job; int worker; } kr_pool_arg;

static void *run_once(void *p)
{
    kr_pool_arg *a = p;
    run_tasks(a->job, a->worker);
    return NULL;
}

static void run_fresh(kr_pool_job *job, int threads)
{
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    kr_pool_arg *args = calloc((size_t)threads, sizeof *args);
    int started = 0;
    if (tid && args) {
        for (int t = 1; t < threads; t++) {
            args[t].job = job;
            args[t].worker = t;
            if (pthread_create(&tid[t], NULL, run_once, &args[t]) != 0)
                break;
            started = t;
        }
    }
    run_tasks(job, 0);
    for (int t = 1; t <= started; t++)
        pthread_join(tid[t], NULL);
    free(tid);
    free(args);
}

/* ---- the kept workers ---- */

static struct {
    pthread_mutex_t mu;
    pthread_cond_t wake;             /* a job was posted, or stop */
    pthread_cond_t done;             /* active reached 0 */
    pthread_t tid[POOL_MAX];
    int nworkers;                    /* started: worker numbers 1 .. nworkers */
    _Atomic(kr_pool_job *) slot[POOL_MAX + 1];   /* per worker: its posted job, NULL when idle */
    atomic_int stop;
    atomic_int active;               /* workers of the current job not yet finished */
    atomic_int busy;                 /* a caller owns the pool */
    int sleeping;                    /* workers waiting on `wake` (under mu) */
} P = { .mu = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER };

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Worker me's next job (NULL: stop): spins first, then sleeps. */
static kr_pool_job *await_job(int me)
{
    int64_t until = now_ns() + SPIN_NS;
    kr_pool_job *job;
    for (unsigned k = 1;; k++) {
        if ((job = atomic_load_explicit(&P.slot[me], memory_order_acquire)) != NULL)
            return job;
        if (atomic_load_explicit(&P.stop, memory_order_acquire))
            return NULL;
        if (k % SPIN_CHECK == 0 && now_ns() >= until)
            break;
        sched_yield();
    }
    pthread_mutex_lock(&P.mu);
    P.sleeping++;
    while (!(job = atomic_load_explicit(&P.slot[me], memory_order_acquire)) &&
           !atomic_load_explicit(&P.stop, memory_order_acquire))
        pthread_cond_wait(&P.wake, &P.mu);
    P.sleeping--;
    pthread_mutex_unlock(&P.mu);
    return job;
}

static void *worker_main(void *p)
{
    int me = (int)(intptr_t)p;
    kr_pool_job *job;
    while ((job = await_job(me)) != NULL) {
        run_tasks(job, me);
        atomic_store_explicit(&P.slot[me], NULL, memory_order_relaxed);
        if (atomic_fetch_sub_explicit(&P.active, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&P.mu);
            pthread_cond_signal(&P.done);
            pthread_mutex_unlock(&P.mu);
        }
    }
    return NULL;
}

static void pool_stop(void)
{
    pthread_mutex_lock(&P.mu);
    atomic_store_explicit(&P.stop, 1, memory_order_release);
    pthread_cond_broadcast(&P.wake);
    pthread_mutex_unlock(&P.mu);
    for (int t = 1; t <= P.nworkers; t++)
        pthread_join(P.tid[t - 1], NULL);
    P.nworkers = 0;
}

/* Starts workers up to `extra` (the caller owns the pool). */
static void grow_to(int extra)
{
    static int registered;
    if (extra > POOL_MAX)
        extra = POOL_MAX;
    while (P.nworkers < extra) {
        int me = P.nworkers + 1;
        if (pthread_create(&P.tid[me - 1], NULL, worker_main, (void *)(intptr_t)me) != 0)
            break;
        P.nworkers = me;
        if (!registered)
            registered = atexit(pool_stop) == 0;
    }
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
        run_tasks(&job, 0);
        return;
    }
    int expect = 0;
    if (threads - 1 > POOL_MAX || !atomic_compare_exchange_strong(&P.busy, &expect, 1)) {
        run_fresh(&job, threads);
        return;
    }
    grow_to(threads - 1);
    int want = threads - 1 < P.nworkers ? threads - 1 : P.nworkers;
    if (want > 0) {
        atomic_store_explicit(&P.active, want, memory_order_relaxed);
        for (int t = 1; t <= want; t++)
            atomic_store_explicit(&P.slot[t], &job, memory_order_release);
        pthread_mutex_lock(&P.mu);
        if (P.sleeping)
            pthread_cond_broadcast(&P.wake);
        pthread_mutex_unlock(&P.mu);
    }
    run_tasks(&job, 0);
    if (want > 0 && atomic_load_explicit(&P.active, memory_order_acquire) != 0) {
        /* the workers finish their last tasks: spin a little, then sleep */
        for (unsigned k = 0; k < 64 && atomic_load_explicit(&P.active, memory_order_acquire) != 0; k++)
            sched_yield();
        pthread_mutex_lock(&P.mu);
        while (atomic_load_explicit(&P.active, memory_order_acquire) != 0)
            pthread_cond_wait(&P.done, &P.mu);
        pthread_mutex_unlock(&P.mu);
    }
    atomic_store_explicit(&P.busy, 0, memory_order_release);
}

int kr_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (int)n;
}
