/*
 * proc.h -- worker processes joined to their parent by two pipes: the
 * mechanism under a sweep's -j workers (sweep_local.c) and the plan search's
 * (search.c).  Full reads and writes over a pipe, a fork with the pipes
 * wired (the child keeps none of the other workers' ends), the end of a
 * worker, and the words for how a worker died.  Owned by the sweep layer.
 */
#ifndef CS_SWEEP_PROC_H
#define CS_SWEEP_PROC_H

#include <stddef.h>
#include <sys/types.h>

typedef struct sw_proc {
    pid_t pid;    /* > 0 while it runs */
    int to, from; /* pipe ends: work to the worker, results from it */
} sw_proc;

/* All n bytes, retrying on EINTR: 0, or -1 at end of file or on an error. */
int sw_read_full(int fd, void *buf, size_t n);
int sw_write_full(int fd, const void *buf, size_t n);

/* Forks a worker into *p.  In the child: the pipes of the running workers
 * among `others` (n sw_proc, one every `stride` bytes; p itself skipped) and
 * close_fd (>= 0) are closed, then child(ud, in, out) runs; it must not
 * return (_exit).  0, or -1 with errno and nothing left open. */
int sw_proc_spawn(sw_proc *p, const void *others, size_t n, size_t stride, int close_fd,
                  void (*child)(const void *ud, int in, int out), const void *ud);

/* Signals it (sig 0: none; closing the pipe is its cue to exit), closes the
 * pipes and waits for it; *status (may be NULL) gets its wait status.
 * Nothing when it does not run. */
void sw_proc_end(sw_proc *p, int sig, int *status);

/* How a worker that held `what` (e.g. "running this point") ended, from
 * its wait status, into buf. */
void sw_proc_why(int status, const char *what, char *buf, size_t n);

#endif
