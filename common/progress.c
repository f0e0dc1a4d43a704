/* progress.c — see progress.h. */
#include "common/progress.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/fmt.h"

#define BAR_WIDTH 20
#define REDRAW_NS 100000000ull        /* at most 10 redraws a second */
#define AUTO_DELAY_NS 1000000000ull   /* AUTO: silent for the first second */

struct kr_progress {
    int fd;
    kr_progress_mode mode;
    char label[32];
    uint64_t start_ns;
    atomic_uint_fast64_t files, bytes, total;
    atomic_uint_fast64_t next_draw_ns;
    atomic_int drawing;              /* one thread redraws at a time */
    int drawn;                       /* a line is on the terminal (under drawing) */
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

kr_progress_mode kr_progress_mode_of(int progress, int no_progress, int quiet)
{
    if (no_progress || quiet)
        return KR_PROGRESS_OFF;
    return progress ? KR_PROGRESS_ON : KR_PROGRESS_AUTO;
}

kr_progress *kr_progress_new(int fd, kr_progress_mode mode, const char *label)
{
    kr_progress *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->fd = fd;
    p->mode = mode == KR_PROGRESS_AUTO && !isatty(fd) ? KR_PROGRESS_OFF : mode;
    snprintf(p->label, sizeof p->label, "%s", label ? label : "");
    p->start_ns = now_ns();
    atomic_init(&p->files, 0);
    atomic_init(&p->bytes, 0);
    atomic_init(&p->total, 0);
    atomic_init(&p->next_draw_ns, p->mode == KR_PROGRESS_AUTO ? p->start_ns + AUTO_DELAY_NS : 0);
    atomic_init(&p->drawing, 0);
    return p;
}

void kr_progress_expect(kr_progress *p, uint64_t files)
{
    if (p)
        atomic_fetch_add(&p->total, files);
}

void kr_progress_format(char *buf, size_t cap, const char *label, uint64_t files, uint64_t total,
                        uint64_t bytes, uint64_t elapsed_ns)
{
    char bar[BAR_WIDTH + 1], mb[32], rate[32], eta[32];
    size_t fill = total ? (size_t)(files >= total ? BAR_WIDTH : files * BAR_WIDTH / total) : 0;
    for (size_t i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < fill ? '#' : '-';
    bar[BAR_WIDTH] = '\0';
    kr_fmt_fixed(mb, sizeof mb, (double)bytes / 1e6, 1);
    int n = snprintf(buf, cap, "%s%s[%s] %llu/%llu files  %s MB", label, *label ? " " : "", bar,
                     (unsigned long long)files, (unsigned long long)total, mb);
    if (n < 0 || (size_t)n >= cap || elapsed_ns == 0)
        return;
    double secs = (double)elapsed_ns / 1e9;
    kr_fmt_fixed(rate, sizeof rate, (double)bytes / 1e6 / secs, 1);
    n += snprintf(buf + n, cap - (size_t)n, "  %s MB/s", rate);
    if (n < 0 || (size_t)n >= cap || files == 0 || files >= total)
        return;
    /* The remaining files at the rate so far (files are of similar size in
     * a capture). */
    kr_fmt_fixed(eta, sizeof eta, secs * (double)(total - files) / (double)files, 0);
    snprintf(buf + n, cap - (size_t)n, "  ETA %s s", eta);
}

/* Draws the current state; with `final` also ends the line. Caller holds
 * `drawing`. */
static void draw(kr_progress *p, int final)
{
    char line[256], out[300];
    kr_progress_format(line, sizeof line, p->label, atomic_load(&p->files), atomic_load(&p->total),
                       atomic_load(&p->bytes), now_ns() - p->start_ns);
    /* \r and clear to the end of the line: the new line may be shorter. */
    int n = snprintf(out, sizeof out, "\r%s\033[K%s", line, final ? "\n" : "");
    if (n > 0) {
        ssize_t w = write(p->fd, out, (size_t)n < sizeof out ? (size_t)n : sizeof out - 1);
        (void)w;                     /* a bar that cannot be shown is no error */
    }
    p->drawn = !final;
}

void kr_progress_add(kr_progress *p, uint64_t files, uint64_t bytes)
{
    if (!p)
        return;
    atomic_fetch_add(&p->files, files);
    atomic_fetch_add(&p->bytes, bytes);
    if (p->mode == KR_PROGRESS_OFF)
        return;
    uint64_t t = now_ns();
    if (t < atomic_load(&p->next_draw_ns))
        return;
    int idle = 0;
    if (!atomic_compare_exchange_strong(&p->drawing, &idle, 1))
        return;
    atomic_store(&p->next_draw_ns, t + REDRAW_NS);
    draw(p, 0);
    atomic_store(&p->drawing, 0);
}

void kr_progress_done(kr_progress *p)
{
    if (!p || p->mode == KR_PROGRESS_OFF)
        return;
    int idle = 0;
    while (!atomic_compare_exchange_weak(&p->drawing, &idle, 1))
        idle = 0;
    /* AUTO: only a bar already on screen gets its final state; ON: always. */
    if (p->mode == KR_PROGRESS_ON || p->drawn)
        draw(p, 1);
    p->mode = KR_PROGRESS_OFF;       /* done once: later calls draw nothing */
    atomic_store(&p->drawing, 0);
}

void kr_progress_free(kr_progress *p)
{
    kr_progress_done(p);             /* a bar left on screen by an early exit */
    free(p);
}
