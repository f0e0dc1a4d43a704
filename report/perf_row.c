/* perf_row.c — see perf_row.h. */
#include "report/perf_row.h"

#include <string.h>

const char *rep_perf_date(const char *started, const char *today, char *buf)
{
    if (started && strlen(started) >= 10) {
        memcpy(buf, started, 10);
        buf[10] = '\0';
        return buf;
    }
    return today ? today : "—";
}

void rep_perf_cell(kr_buf *b, const char *s)
{
    kr_buf_puts(b, " ");
    for (; s && *s; s++) {
        if (*s == '|')
            kr_buf_puts(b, "\\|");
        else if (*s == '\n' || *s == '\r')
            kr_buf_putc(b, ' ');
        else
            kr_buf_putc(b, *s);
    }
    kr_buf_puts(b, " |");
}

void rep_perf_row_write(kr_buf *b, const rep_perf_row *r)
{
    const char *cells[] = {r->date, r->commit, r->status, r->benchmark, r->target, r->kernel, r->metric, r->gpu,
                           r->delta, r->note};
    kr_buf_puts(b, "|");
    for (size_t i = 0; i < sizeof cells / sizeof *cells; i++)
        rep_perf_cell(b, cells[i] ? cells[i] : "");
    kr_buf_putc(b, '\n');
}

void rep_perf_row_header(kr_buf *b, const char *metric_name)
{
    kr_buf_puts(b, "| Date | Commit | Status | Benchmark | Target class / dispatch condition | Kernel |");
    rep_perf_cell(b, metric_name ? metric_name : "script metric");
    kr_buf_puts(b, " GPU time (µs) | Δ vs best | Note |\n|---|---|---|---|---|---|---|---|---|---|\n");
}
