/* err.c — see err.h. */
#include "common/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void kr_err_clear(kr_err *err)
{
    if (!err)
        return;
    err->code = 0;
    err->file[0] = err->where[0] = err->msg[0] = '\0';
}

int kr_err_set(kr_err *err, int code, const char *file, const char *where,
               const char *fmt, ...)
{
    if (!err)
        return code;
    err->code = code;
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    snprintf(err->where, sizeof err->where, "%s", where ? where : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return code;
}

void kr_err_format(const kr_err *err, char *buf, size_t cap)
{
    if (err->file[0] && err->where[0])
        snprintf(buf, cap, "%s:%s: %s", err->file, err->where, err->msg);
    else if (err->file[0])
        snprintf(buf, cap, "%s: %s", err->file, err->msg);
    else
        snprintf(buf, cap, "%s", err->msg);
}
