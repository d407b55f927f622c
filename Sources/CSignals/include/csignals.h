/* csignals.h: the temporary files a process is writing, and a SIGINT/SIGTERM/SIGHUP handler that
 * removes them before the process exits with 128 + the signal (130, 143, 129). Everything the
 * handler does is async-signal-safe: atomics, unlink, nanosleep and _exit. */
#ifndef CSIGNALS_H
#define CSIGNALS_H

#include <sys/types.h>

/* Creates `path` (O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC) and records it until ifs_tmp_forget(slot).
 * Returns the descriptor and sets *slot (-1 when every slot is taken: the file is then not
 * recorded), or -1 with errno (ECANCELED once the files are being removed for an exit). */
int ifs_tmp_create(const char *path, mode_t mode, int *slot);

/* The same, for `name` in the directory `dirfd` (openat, O_NOFOLLOW); `path` is its full path, kept
 * for the removal. */
int ifs_tmp_create_at(int dirfd, const char *name, const char *path, mode_t mode, int *slot);

/* The file of `slot` was renamed into place or removed. A slot of -1 is ignored. */
void ifs_tmp_forget(int slot);

/* Removes every recorded file and refuses new ones (the process is about to exit); returns how
 * many were removed. Waits (at most 100 ms) for a creation in progress to be recorded first. */
int ifs_tmp_remove_all(void);

/* Installs the handler of SIGINT, SIGTERM and SIGHUP: ifs_tmp_remove_all, then _exit(128 + signal)
 * (130, 143, 129). A signal the process started with ignored stays ignored (a background job of a
 * shell script, whose SIGINT the shell ignores; nohup's SIGHUP). A few syscalls, no thread: cheap
 * enough for every start. */
void ifs_exit_on_signals(void);

/* 1 when `sig` was ignored (SIG_IGN) when the process started, as recorded by ifs_exit_on_signals
 * (which must run first); 0 otherwise. Async-signal-safe. */
int ifs_signal_was_ignored(int sig);

#endif
