/* templates.h — static prose embedded from templates/ at build time. */
#ifndef KR_REPORT_TEMPLATES_H
#define KR_REPORT_TEMPLATES_H

#include <stddef.h>

/* Contents of templates/<name> (NUL-terminated), or NULL if absent. */
const char *rep_template(const char *name, size_t *len);

#endif
