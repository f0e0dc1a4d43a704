/* test_pool.c — kr_parallel_for (common/pool.h): every task runs exactly
 * once with a worker number in range, on kept workers, across repeated
 * calls (back to back and after the workers went to sleep), nested calls
 * and calls from two threads at once. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "common/pool.h"
#include "tests/unit/t.h"

#define NT 2000

typedef struct {
    atomic_int runs[NT];
    atomic_int bad_worker;
    atomic_int workers_seen[8];
    int threads;
    int nested;                      /* each task runs a parallel loop of its own */
    atomic_long nested_sum;
} job;

static void task(void *ctx, size_t i, int worker);

static void inner(void *ctx, size_t i, int worker)
{
    job *j = ctx;
    if (worker < 0 || worker >= 2)
        atomic_fetch_add(&j->bad_worker, 1);
    atomic_fetch_add(&j->nested_sum, (long)i + 1);
}

static void task(void *ctx, size_t i, int worker)
{
    job *j = ctx;
    atomic_fetch_add(&j->runs[i], 1);
    if (worker < 0 || worker >= j->threads)
        atomic_fetch_add(&j->bad_worker, 1);
    else if (worker < 8)
        atomic_fetch_add(&j->workers_seen[worker], 1);
    if (j->nested && i % 100 == 0)
        kr_parallel_for(10, 2, inner, j);   /* 1 + 2 + ... + 10 = 55 */
}

/* Tasks 0 and 1 each announce themselves and wait for the other (bit 4
 * set when task 0 saw task 1 in time, so met ends 2 | 4 only when both
 * ran at once). */
static atomic_int met;

static void rendezvous(void *ctx, size_t i, int worker)
{
    (void)ctx;
    (void)worker;
    atomic_fetch_add(&met, 1);
    struct timespec ts = {0, 100 * 1000};
    for (int k = 0; k < 100000 && (atomic_load(&met) & 3) < 2; k++)
        nanosleep(&ts, NULL);
    if (i == 0 && (atomic_load(&met) & 3) == 2)
        atomic_fetch_or(&met, 4);
}

static void reset(job *j, int threads, int nested)
{
    for (int i = 0; i < NT; i++)
        atomic_init(&j->runs[i], 0);
    for (int i = 0; i < 8; i++)
        atomic_init(&j->workers_seen[i], 0);
    atomic_init(&j->bad_worker, 0);
    atomic_init(&j->nested_sum, 0);
    j->threads = threads;
    j->nested = nested;
}

/* Every task of [0, n) ran once, none past n. */
static int exactly_once(job *j, size_t n)
{
    for (size_t i = 0; i < NT; i++)
        if (atomic_load(&j->runs[i]) != (i < n ? 1 : 0))
            return 0;
    return atomic_load(&j->bad_worker) == 0;
}

static void *other_thread(void *p)
{
    job *j = p;
    kr_parallel_for(NT, j->threads, task, j);
    return NULL;
}

int main(void)
{
    static job a, b;

    /* one thread: inline, worker 0 only */
    reset(&a, 1, 0);
    kr_parallel_for(NT, 1, task, &a);
    T_CHECK(exactly_once(&a, NT));
    T_EQ_U64(atomic_load(&a.workers_seen[0]), NT);

    /* n = 0 and n smaller than the threads */
    reset(&a, 4, 0);
    kr_parallel_for(0, 4, task, &a);
    T_CHECK(exactly_once(&a, 0));
    kr_parallel_for(3, 4, task, &a);
    T_CHECK(exactly_once(&a, 3));

    /* many calls back to back on the kept workers, with 2, 3 and 4 threads */
    int all_ok = 1;
    for (int round = 0; round < 300; round++) {
        int threads = 2 + round % 3;
        reset(&a, threads, 0);
        size_t n = (size_t)(1 + (round * 37) % NT);
        kr_parallel_for(n, threads, task, &a);
        all_ok &= exactly_once(&a, n);
    }
    T_CHECK(all_ok);

    /* after the workers went to sleep (they spin for a few ms first) */
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    reset(&a, 2, 0);
    kr_parallel_for(NT, 2, task, &a);
    T_CHECK(exactly_once(&a, NT));
    /* the kept worker runs at the same time as the caller: two tasks that
     * each wait (up to 10 s) until both have started */
    for (int round = 0; round < 3; round++) {
        atomic_init(&met, 0);
        kr_parallel_for(2, 2, rendezvous, NULL);
        T_EQ_U64(atomic_load(&met), 2 | 4);
    }

    /* nested: tasks that call kr_parallel_for themselves */
    reset(&a, 2, 1);
    kr_parallel_for(NT, 2, task, &a);
    T_CHECK(exactly_once(&a, NT));
    T_EQ_U64(atomic_load(&a.nested_sum), (NT / 100) * 55);

    /* two threads calling at once: one gets the kept workers, the other
     * starts its own; both complete */
    for (int round = 0; round < 20; round++) {
        reset(&a, 2, 0);
        reset(&b, 2, 0);
        pthread_t t;
        int started = pthread_create(&t, NULL, other_thread, &b) == 0;
        kr_parallel_for(NT, 2, task, &a);
        if (started)
            pthread_join(t, NULL);
        else
            other_thread(&b);
        all_ok &= exactly_once(&a, NT) && exactly_once(&b, NT);
    }
    T_CHECK(all_ok);

    T_CHECK(kr_cpu_count() >= 1);
    return t_done("test_pool");
}
