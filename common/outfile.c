/* outfile.c — see outfile.h. */
#include "common/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file.h"

typedef struct { char *tmp; char *final; } kr_outitem;

struct kr_outset {
    char *dir;
    int force;
    kr_outitem *items;
    size_t n, cap;
};

/* Temp files written but not yet renamed, so a signal handler can remove
 * them (kr_outfile_signals). The one piece of process state in common/: a
 * handler has no other way to find them. Outputs are written by one thread. */
#define KR_TEMP_SLOTS 64
static char *volatile temp_slots[KR_TEMP_SLOTS];

static void temp_register(char *path)
{
    for (size_t i = 0; i < KR_TEMP_SLOTS; i++)
        if (!temp_slots[i]) {
            temp_slots[i] = path;
            return;
        }
}

static void temp_unregister(const char *path)
{
    for (size_t i = 0; i < KR_TEMP_SLOTS; i++)
        if (temp_slots[i] == path)
            temp_slots[i] = NULL;
}

static void on_signal(int sig)
{
    for (size_t i = 0; i < KR_TEMP_SLOTS; i++) {
        char *p = temp_slots[i];
        if (p)
            unlink(p);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void kr_outfile_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], &sa, NULL);
}

kr_outset *kr_outset_new(const char *dir, int force)
{
    kr_outset *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->dir = strdup(dir);
    s->force = force;
    return s;
}

int kr_mkdir_p(const char *dir, kr_err *err)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", dir);
    size_t n = strlen(tmp);
    for (size_t i = 1; i <= n; i++) {
        if (tmp[i] == '/' || tmp[i] == '\0') {
            char c = tmp[i];
            tmp[i] = '\0';
            if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
                return kr_err_set(err, KR_OUTPUT, tmp, NULL, "cannot create directory: %s", strerror(errno));
            tmp[i] = c;
        }
    }
    if (!kr_is_dir(dir))
        return kr_err_set(err, KR_OUTPUT, dir, NULL, "not a directory");
    return 0;
}

int kr_outset_add(kr_outset *s, const char *name, const void *data, size_t len, kr_err *err)
{
    char final[4096], tmp[4096];
    kr_path_join(final, sizeof final, s->dir, name);
    if (!s->force && kr_file_exists(final))
        return kr_err_set(err, KR_OUTPUT, final, NULL, "exists; use --force to overwrite");
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp.XXXXXX", s->dir, name);
    /* A signal between creating the temp file and registering it would leave
     * the file behind: hold the handled signals until it is registered. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGQUIT);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        return kr_err_set(err, KR_OUTPUT, final, NULL, "cannot create: %s", strerror(e));
    }
    char *tmp_copy = strdup(tmp);
    if (!tmp_copy) {
        close(fd);
        unlink(tmp);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        return kr_err_set(err, KR_INTERNAL, final, NULL, "out of memory");
    }
    temp_register(tmp_copy);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    /* The blocks are reserved before writing: on ext4 a file written with
     * delayed allocation and renamed over an existing one is flushed at
     * the rename (auto_da_alloc), about half a millisecond per report
     * file; with its blocks allocated there is nothing to flush. Where the
     * file system cannot, this fails or is emulated, and nothing else
     * changes. */
    if (len)
        (void)posix_fallocate(fd, 0, (off_t)len);
    const char *p = data;
    size_t left = len;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            unlink(tmp);
            temp_unregister(tmp_copy);
            free(tmp_copy);
            return kr_err_set(err, KR_OUTPUT, final, NULL, "write failed: %s", strerror(e));
        }
        p += w;
        left -= (size_t)w;
    }
    fchmod(fd, 0644);
    if (close(fd) != 0) {
        int e = errno;
        unlink(tmp);
        temp_unregister(tmp_copy);
        free(tmp_copy);
        return kr_err_set(err, KR_OUTPUT, final, NULL, "write failed: %s", strerror(e));
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        kr_outitem *items = realloc(s->items, cap * sizeof *items);
        if (!items) {
            unlink(tmp);
            temp_unregister(tmp_copy);
            free(tmp_copy);
            return kr_err_set(err, KR_INTERNAL, final, NULL, "out of memory");
        }
        s->items = items;
        s->cap = cap;
    }
    s->items[s->n].tmp = tmp_copy;
    s->items[s->n].final = strdup(final);
    s->n++;
    return 0;
}

int kr_outset_commit(kr_outset *s, kr_err *err)
{
    for (size_t i = 0; i < s->n; i++) {
        if (rename(s->items[i].tmp, s->items[i].final) != 0) {
            int e = errno;
            kr_err_set(err, KR_OUTPUT, s->items[i].final, NULL, "cannot rename into place: %s", strerror(e));
            for (size_t j = i; j < s->n; j++)
                unlink(s->items[j].tmp);
            for (size_t j = 0; j < i; j++)
                unlink(s->items[j].final);
            for (size_t j = 0; j < s->n; j++) {
                temp_unregister(s->items[j].tmp);
                free(s->items[j].tmp);
                free(s->items[j].final);
            }
            s->n = 0;
            return KR_OUTPUT;
        }
    }
    for (size_t j = 0; j < s->n; j++) {
        temp_unregister(s->items[j].tmp);
        free(s->items[j].tmp);
        free(s->items[j].final);
    }
    s->n = 0;
    return 0;
}

void kr_outset_free(kr_outset *s)
{
    if (!s)
        return;
    for (size_t j = 0; j < s->n; j++) {
        unlink(s->items[j].tmp);
        temp_unregister(s->items[j].tmp);
        free(s->items[j].tmp);
        free(s->items[j].final);
    }
    free(s->items);
    free(s->dir);
    free(s);
}
