/* test_outfile.c — atomic output sets (common/outfile.h): nothing is visible
 * under a final name before the commit, an existing file is refused without
 * force, a failed set leaves nothing, and a signal that ends the program
 * between writing and committing removes the temp files
 * (kr_outfile_signals). */
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/outfile.h"
#include "tests/unit/t.h"

/* Entries of dir joined with ' ', sorted by readdir order made stable by
 * a simple insertion sort. */
static void listing(const char *dir, char *buf, size_t cap)
{
    char names[16][64];
    size_t n = 0;
    buf[0] = '\0';
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 16) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    }
    closedir(d);
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char t[64];
            memcpy(t, names[j], sizeof t);
            memcpy(names[j], names[j - 1], sizeof t);
            memcpy(names[j - 1], t, sizeof t);
        }
    for (size_t i = 0; i < n; i++)
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", i ? " " : "", names[i]);
}

static void clear_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[512];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(d);
}

int main(void)
{
    char dir[] = "/tmp/kr_test_outfile.XXXXXX";
    T_CHECK(mkdtemp(dir) != NULL);
    char names[512];
    kr_err err;

    /* Before the commit only hidden temp files exist; after it, the finals. */
    kr_outset *s = kr_outset_new(dir, 0);
    kr_err_clear(&err);
    T_EQ_I64(kr_outset_add(s, "a.txt", "alpha\n", 6, &err), 0);
    T_EQ_I64(kr_outset_add(s, "b.txt", "beta\n", 5, &err), 0);
    listing(dir, names, sizeof names);
    T_CHECK(strncmp(names, ".a.txt.tmp.", 11) == 0 && strstr(names, " .b.txt.tmp.") != NULL);
    T_EQ_I64(kr_outset_commit(s, &err), 0);
    kr_outset_free(s);
    listing(dir, names, sizeof names);
    T_EQ_STR(names, "a.txt b.txt");

    /* No clobbering without force: the set fails at the existing name and
     * removes the temp file it had written for the first one. */
    s = kr_outset_new(dir, 0);
    kr_err_clear(&err);
    T_EQ_I64(kr_outset_add(s, "c.txt", "gamma\n", 6, &err), 0);
    T_EQ_I64(kr_outset_add(s, "a.txt", "other\n", 6, &err), KR_OUTPUT);
    T_EQ_STR(err.msg, "exists; use --force to overwrite");
    kr_outset_free(s);
    listing(dir, names, sizeof names);
    T_EQ_STR(names, "a.txt b.txt");

    /* A signal between writing and committing: the handler removes the temp
     * file and the signal still ends the process. */
    clear_dir(dir);
    pid_t pid = fork();
    if (pid == 0) {
        kr_outfile_signals();
        kr_outset *cs = kr_outset_new(dir, 0);
        kr_err e;
        if (kr_outset_add(cs, "REPORT.md", "# partial\n", 10, &e) != 0)
            _exit(3);
        raise(SIGTERM);
        _exit(4);                     /* not reached */
    }
    int status = 0;
    T_EQ_I64(waitpid(pid, &status, 0), pid);
    T_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    listing(dir, names, sizeof names);
    T_EQ_STR(names, "");

    clear_dir(dir);
    rmdir(dir);
    return t_done("test_outfile");
}
