/*
 * proc.c -- worker processes joined by two pipes (see proc.h).  Owned by
 * the sweep layer.
 */
#include "sweep/proc.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int sw_read_full(int fd, void *buf, size_t n) {
    char *p = buf;
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

int sw_write_full(int fd, const void *buf, size_t n) {
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int sw_proc_spawn(sw_proc *p, const void *others, size_t n, size_t stride, int close_fd,
                  void (*child)(const void *ud, int in, int out), const void *ud) {
    int a[2], b[2];
    if (pipe(a) != 0) return -1;
    if (pipe(b) != 0) {
        close(a[0]);
        close(a[1]);
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(a[0]);
        close(a[1]);
        close(b[0]);
        close(b[1]);
        errno = e;
        return -1;
    }
    if (pid == 0) {
        close(a[1]);
        close(b[0]);
        if (close_fd >= 0) close(close_fd);
        for (size_t k = 0; k < n; k++) { /* the other workers' pipes are not ours */
            const sw_proc *o = (const sw_proc *)(const void *)((const char *)others + k * stride);
            if (o != p && o->pid > 0) {
                close(o->to);
                close(o->from);
            }
        }
        child(ud, a[0], b[1]);
        _exit(1); /* (child does not return) */
    }
    close(a[0]);
    close(b[1]);
    p->pid = pid;
    p->to = a[1];
    p->from = b[0];
    return 0;
}

void sw_proc_end(sw_proc *p, int sig, int *status) {
    if (p->pid <= 0) return;
    if (sig) kill(p->pid, sig);
    close(p->to);
    close(p->from);
    int st = 0;
    waitpid(p->pid, &st, 0);
    if (status) *status = st;
    p->pid = 0;
}

void sw_proc_why(int st, const char *what, char *buf, size_t n) {
    if (WIFSIGNALED(st))
        snprintf(buf, n, "the worker process %s was killed by signal %d (%s)", what, WTERMSIG(st),
                 strsignal(WTERMSIG(st)));
    else if (WIFEXITED(st) && WEXITSTATUS(st) == 3)
        snprintf(buf, n, "the worker process %s ran out of memory (exit status 3)", what);
    else
        snprintf(buf, n, "the worker process %s ended with exit status %d", what, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}
