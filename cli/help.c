/* help.c — the embedded Markdown of docs/ as help topics (cli/help.h). */
#include "cli/help.h"

#include <string.h>

struct cli_embedded_doc {
    const char *name;
    const char *data;
    size_t len;
};
extern const struct cli_embedded_doc cli_embedded_docs[];

/* The topic of an embedded file: its name without ".md"; 0 for files that
 * are no topic (README.md, anything not Markdown). */
static size_t topic_len(const char *file)
{
    size_t n = strlen(file);
    if (n <= 3 || strcmp(file + n - 3, ".md") != 0 || strcmp(file, "README.md") == 0)
        return 0;
    return n - 3;
}

const char *cli_doc(const char *topic, size_t *len)
{
    size_t tl = strlen(topic);
    for (const struct cli_embedded_doc *d = cli_embedded_docs; d->name; d++) {
        size_t n = topic_len(d->name);
        if (n && n == tl && memcmp(d->name, topic, n) == 0) {
            if (len)
                *len = d->len;
            return d->data;
        }
    }
    return NULL;
}

static const struct cli_embedded_doc *nth(size_t i)
{
    for (const struct cli_embedded_doc *d = cli_embedded_docs; d->name; d++)
        if (topic_len(d->name) && i-- == 0)
            return d;
    return NULL;
}

size_t cli_doc_count(void)
{
    size_t n = 0;
    while (nth(n))
        n++;
    return n;
}

const char *cli_doc_name(size_t i, char *buf, size_t cap)
{
    const struct cli_embedded_doc *d = nth(i);
    if (!d || cap == 0)
        return NULL;
    size_t n = topic_len(d->name);
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, d->name, n);
    buf[n] = '\0';
    return buf;
}

void cli_doc_list(FILE *out)
{
    char name[64];
    size_t col = 0;
    for (size_t i = 0; cli_doc_name(i, name, sizeof name); i++) {
        size_t n = strlen(name) + 2;
        if (col && col + n > 78) {
            fputc('\n', out);
            col = 0;
        }
        col += (size_t)fprintf(out, "  %s", name);
    }
    if (col)
        fputc('\n', out);
}
