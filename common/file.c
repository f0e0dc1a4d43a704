/* file.c — see file.h. */
#include "common/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/limits.h"

/* The name of a limit from common/limits.h, so errors name it. */
static const char *limit_name(uint64_t limit)
{
    if (limit == KR_MAX_FILE_BYTES)
        return "KR_MAX_FILE_BYTES";
    if (limit == KR_MAX_SMALL_FILE_BYTES)
        return "KR_MAX_SMALL_FILE_BYTES";
    if (limit == KR_MAX_SNAPSHOT_BYTES)
        return "KR_MAX_SNAPSHOT_BYTES";
    return NULL;
}

/* Opens path for reading and checks it is a regular file within limit;
 * returns the descriptor in *fd and the size in *size. */
static int open_checked(const char *path, uint64_t limit, int *fd_out, size_t *size, kr_err *err)
{
    /* O_NONBLOCK: a named pipe (or device) where a file should be must not
     * block the open; it is refused below as not a regular file. */
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0)
        return kr_err_set(err, KR_INPUT, path, NULL, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return kr_err_set(err, KR_INPUT, path, NULL, "cannot stat: %s", strerror(errno));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return kr_err_set(err, KR_INPUT, path, NULL, "expected a file, found a directory");
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return kr_err_set(err, KR_INPUT, path, NULL, "expected a regular file, found %s",
                          S_ISFIFO(st.st_mode) ? "a named pipe" : S_ISSOCK(st.st_mode) ? "a socket" : "a device");
    }
    if ((uint64_t)st.st_size > limit) {
        close(fd);
        const char *name = limit_name(limit);
        if (name)
            return kr_err_set(err, KR_INPUT, path, NULL, "file of %lld bytes exceeds %s (%llu bytes)",
                              (long long)st.st_size, name, (unsigned long long)limit);
        return kr_err_set(err, KR_INPUT, path, NULL,
                          "file of %lld bytes exceeds the limit of %llu bytes",
                          (long long)st.st_size, (unsigned long long)limit);
    }
    *fd_out = fd;
    *size = (size_t)st.st_size;
    return 0;
}

/* Reads up to cap bytes of fd into buf (closing fd); *got receives the count. */
static int read_all(int fd, const char *path, char *buf, size_t cap, size_t *got_out, kr_err *err)
{
    size_t got = 0;
    while (got < cap) {
        ssize_t n = read(fd, buf + got, cap - got);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            return kr_err_set(err, KR_INPUT, path, NULL, "read failed: %s", strerror(e));
        }
        if (n == 0)
            break;          /* file shrank while reading: use what is there */
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    *got_out = got;
    return 0;
}

int kr_file_read(const char *path, uint64_t limit, char **data, size_t *len, kr_err *err)
{
    *data = NULL;
    *len = 0;
    int fd;
    size_t cap;
    int rc = open_checked(path, limit, &fd, &cap, err);
    if (rc)
        return rc;
    char *buf = malloc(cap + 1);
    if (!buf) {
        close(fd);
        return kr_err_set(err, KR_INTERNAL, path, NULL, "out of memory reading %zu bytes", cap);
    }
    if ((rc = read_all(fd, path, buf, cap, len, err))) {
        free(buf);
        return rc;
    }
    *data = buf;
    return 0;
}

int kr_file_read_reuse(const char *path, uint64_t limit, char **buf, size_t *cap, size_t *len, kr_err *err)
{
    *len = 0;
    int fd;
    size_t size;
    int rc = open_checked(path, limit, &fd, &size, err);
    if (rc)
        return rc;
    if (!*buf || *cap < size + 1) {
        /* Grow only, by half again at least so a run of slowly growing
         * files reallocates rarely; realloc remaps a large buffer, so only
         * its new pages are touched afresh (and pages past the largest
         * file, never). */
        size_t ncap = *cap + *cap / 2 > size + 1 ? *cap + *cap / 2 : size + 1;
        char *nb = realloc(*buf, ncap);
        if (!nb) {
            close(fd);
            return kr_err_set(err, KR_INTERNAL, path, NULL, "out of memory reading %zu bytes", size);
        }
        *buf = nb;
        *cap = ncap;
    }
    return read_all(fd, path, *buf, size, len, err);
}

int kr_file_exists(const char *path) { struct stat st; return stat(path, &st) == 0; }
int kr_is_dir(const char *path) { struct stat st; return stat(path, &st) == 0 && S_ISDIR(st.st_mode); }
int kr_is_regular(const char *path) { struct stat st; return stat(path, &st) == 0 && S_ISREG(st.st_mode); }

char *kr_path_join(char *buf, size_t cap, const char *dir, const char *name)
{
    size_t n = strlen(dir);
    if (n && dir[n - 1] == '/')
        snprintf(buf, cap, "%s%s", dir, name);
    else
        snprintf(buf, cap, "%s/%s", dir, name);
    return buf;
}

const char *kr_path_base(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    const char *p = path + n;
    while (p > path && p[-1] != '/')
        p--;
    return p;
}
