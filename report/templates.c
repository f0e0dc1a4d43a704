/* templates.c — lookup over the table scripts/embed.cmake generates. */
#include "report/templates.h"

#include <string.h>

struct rep_embedded { const char *name; const char *data; size_t len; };
extern const struct rep_embedded rep_embedded_templates[];

const char *rep_template(const char *name, size_t *len)
{
    for (const struct rep_embedded *t = rep_embedded_templates; t->name; t++)
        if (strcmp(t->name, name) == 0) {
            if (len)
                *len = t->len;
            return t->data;
        }
    return NULL;
}
