/* signals.c: see csignals.h. A creation registers its path before open() and counts itself in
 * `creating`; removal sets `closing` first, then waits for `creating` to drain, so a file is either
 * refused (ECANCELED) or recorded before the removal scans the slots: none is left behind. */
#define _GNU_SOURCE
#include "csignals.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SLOTS 256

enum { FREE = 0, CLAIMED = 1, RECORDED = 2 };

static atomic_int closing;
static atomic_int creating;
static atomic_int slot_state[SLOTS];
static char slot_path[SLOTS][PATH_MAX];

int ifs_tmp_create(const char *path, mode_t mode, int *slot) {
    return ifs_tmp_create_at(AT_FDCWD, path, path, mode, slot);
}

int ifs_tmp_create_at(int dirfd, const char *name, const char *path, mode_t mode, int *slot) {
    *slot = -1;
    size_t len = strlen(path);
    if (len >= PATH_MAX) {
        errno = ENAMETOOLONG;
        return -1;
    }
    atomic_fetch_add(&creating, 1);
    if (atomic_load(&closing)) {
        atomic_fetch_sub(&creating, 1);
        errno = ECANCELED;
        return -1;
    }
    for (int i = 0; i < SLOTS; i++) {
        int expected = FREE;
        if (atomic_compare_exchange_strong(&slot_state[i], &expected, CLAIMED)) {
            memcpy(slot_path[i], path, len + 1);
            atomic_store(&slot_state[i], RECORDED);
            *slot = i;
            break;
        }
    }
    int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    int saved = errno;
    if (fd < 0 && *slot >= 0) {
        atomic_store(&slot_state[*slot], FREE);
        *slot = -1;
    }
    atomic_fetch_sub(&creating, 1);
    errno = saved;
    return fd;
}

void ifs_tmp_forget(int slot) {
    if (slot >= 0 && slot < SLOTS) atomic_store(&slot_state[slot], FREE);
}

int ifs_tmp_remove_all(void) {
    int saved = errno;
    atomic_store(&closing, 1);
    struct timespec pause = {0, 100000};   /* 0.1 ms, at most 1000 times */
    for (int i = 0; i < 1000 && atomic_load(&creating) > 0; i++) nanosleep(&pause, NULL);
    int removed = 0;
    for (int i = 0; i < SLOTS; i++) {
        if (atomic_load(&slot_state[i]) == RECORDED && unlink(slot_path[i]) == 0) removed++;
    }
    errno = saved;
    return removed;
}

static void on_signal(int sig) {
    ifs_tmp_remove_all();
    _exit(128 + sig);
}

static atomic_int ignored_at_start; /* bit `sig` set: inherited SIG_IGN */

void ifs_exit_on_signals(void) {
    const int signals[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) sigaddset(&action.sa_mask, signals[i]);
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction old;
        if (sigaction(signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) {
            atomic_fetch_or(&ignored_at_start, 1 << signals[i]);
            continue;
        }
        sigaction(signals[i], &action, NULL);
    }
}

int ifs_signal_was_ignored(int sig) {
    if (sig <= 0 || sig >= 31) return 0;
    return (atomic_load(&ignored_at_start) >> sig) & 1;
}
