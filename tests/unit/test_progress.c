/* test_progress.c — common/progress: the line format (bar, counts, rate,
 * ETA, worked out by hand below), the mode flags, and what reaches the
 * descriptor in each mode (a pipe stands in for stderr, so AUTO is silent). */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "common/progress.h"
#include "t.h"

/* Everything written to the read end of a pipe so far. */
static size_t drain(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    ssize_t r;
    while (n + 1 < cap && (r = read(fd, buf + n, cap - 1 - n)) > 0)
        n += (size_t)r;
    buf[n] = '\0';
    return n;
}

int main(void)
{
    char line[256];

    /* 8 of 32 files: 20 * 8 / 32 = 5 marks; 80 MB in 2 s = 40.0 MB/s;
     * 24 files left at 8 files per 2 s = 6 s. */
    kr_progress_format(line, sizeof line, "parsing", 8, 32, 80000000, 2000000000ull);
    T_EQ_STR(line, "parsing [#####---------------] 8/32 files  80.0 MB  40.0 MB/s  ETA 6 s");
    /* done: full bar, no ETA */
    kr_progress_format(line, sizeof line, "parsing", 32, 32, 320000000, 4000000000ull);
    T_EQ_STR(line, "parsing [####################] 32/32 files  320.0 MB  80.0 MB/s");
    /* no time yet: no rate, no ETA; no label: no leading space */
    kr_progress_format(line, sizeof line, "", 0, 4, 0, 0);
    T_EQ_STR(line, "[--------------------] 0/4 files  0.0 MB");
    /* unknown total: empty bar */
    kr_progress_format(line, sizeof line, "x", 3, 0, 1500000, 0);
    T_EQ_STR(line, "x [--------------------] 3/0 files  1.5 MB");

    /* flags: --no-progress and --quiet win over --progress */
    T_EQ_I64(kr_progress_mode_of(0, 0, 0), KR_PROGRESS_AUTO);
    T_EQ_I64(kr_progress_mode_of(1, 0, 0), KR_PROGRESS_ON);
    T_EQ_I64(kr_progress_mode_of(1, 1, 0), KR_PROGRESS_OFF);
    T_EQ_I64(kr_progress_mode_of(1, 0, 1), KR_PROGRESS_OFF);

    int fds[2];
    T_CHECK(pipe(fds) == 0);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    char out[4096];

    /* AUTO on a pipe (not a terminal): nothing, ever */
    kr_progress *p = kr_progress_new(fds[1], KR_PROGRESS_AUTO, "parsing");
    T_CHECK(p != NULL);
    kr_progress_expect(p, 2);
    kr_progress_add(p, 1, 10);
    kr_progress_add(p, 1, 10);
    kr_progress_done(p);
    kr_progress_free(p);
    T_EQ_U64(drain(fds[0], out, sizeof out), 0);

    /* OFF: nothing */
    p = kr_progress_new(fds[1], KR_PROGRESS_OFF, "parsing");
    kr_progress_expect(p, 1);
    kr_progress_add(p, 1, 10);
    kr_progress_free(p);
    T_EQ_U64(drain(fds[0], out, sizeof out), 0);

    /* ON: drawn from the first update, ends with the final state and a
     * newline; done is idempotent (free after done adds nothing) */
    p = kr_progress_new(fds[1], KR_PROGRESS_ON, "parsing");
    kr_progress_expect(p, 1);            /* two loads of one file each: 2 expected */
    kr_progress_expect(p, 1);
    kr_progress_add(p, 1, 1000000);
    kr_progress_add(p, 1, 1000000);
    kr_progress_done(p);
    size_t n = drain(fds[0], out, sizeof out);
    T_CHECK(n > 0);
    T_CHECK(strstr(out, "\rparsing [##########----------] 1/2 files  1.0 MB") != NULL);
    T_CHECK(strstr(out, "2/2 files  2.0 MB") != NULL);
    T_CHECK(n > 0 && out[n - 1] == '\n');
    kr_progress_free(p);
    T_EQ_U64(drain(fds[0], out, sizeof out), 0);

    /* NULL is a no-op everywhere */
    kr_progress_expect(NULL, 1);
    kr_progress_add(NULL, 1, 1);
    kr_progress_done(NULL);
    kr_progress_free(NULL);

    close(fds[0]);
    close(fds[1]);
    return t_done("test_progress");
}
