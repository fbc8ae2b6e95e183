/*
 * sweep_local.c -- a sweep's points on -j forked worker processes.
 *
 * The coordinator hands each worker one point index at a time over a pipe
 * and reads back the point's log line (a 4-byte length, then the text).
 * A worker that dies (a crash, an out-of-memory exit) is replaced and the
 * point it held is recorded as failed with the cause, so one bad point
 * does not end the sweep.  On a stop (SIGINT/SIGTERM) the workers are
 * terminated and the points in flight are not recorded.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/time.h"
#include "sweep/proc.h"
#include "sweep/sweep_int.h"

typedef struct worker {
    sw_proc p;        /* first: the workers are an sw_proc array with a stride (sw_proc_spawn) */
    int64_t busy;     /* the point it holds, -1 = idle */
    double since;     /* wall clock when it got the point (s) */
    int over;         /* stopped for --point-max-wall */
} worker;

static void worker_loop(const void *ud, int in, int out) {
    const sweep *s = ud;
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    uint64_t i;
    while (sw_read_full(in, &i, sizeof i) == 0) {
        char *line = sw_run_point(s, i);
        uint32_t len = (uint32_t)strlen(line);
        if (sw_write_full(out, &len, sizeof len) || sw_write_full(out, line, len)) _exit(1);
        cs_free(line);
    }
    _exit(0);
}

static int spawn(const sweep *s, worker *w, worker *all, size_t nall) {
    /* the log and its lock are the coordinator's: a worker that outlives a
     * killed coordinator must not hold them */
    if (sw_proc_spawn(&w->p, all, nall, sizeof *all, s->log_fd, worker_loop, s) != 0) return -1;
    w->busy = -1;
    return 0;
}

static void reap(const sweep *s, worker *w, char *why, size_t n) {
    int st = 0;
    sw_proc_end(&w->p, 0, &st);
    if (w->over)
        snprintf(why, n, "the point ran past --point-max-wall %g s of wall time; its worker was stopped (a result "
                         "that depends on the machine's speed: a longer limit may give it one)",
                 s->o->point_max_wall_s);
    else
        sw_proc_why(st, "running this point", why, n);
}

int sw_run_local(sweep *s, const uint64_t *todo, size_t ntodo, cs_error *err) {
    size_t nw = s->o->jobs ? s->o->jobs : 1;
    if (nw > ntodo) nw = ntodo;
    worker *w = cs_calloc(nw, sizeof *w);
    struct pollfd *pf = cs_calloc(nw, sizeof *pf);
    void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
    int rc = CS_OK;
    size_t next = 0, inflight = 0;
    for (size_t k = 0; k < nw; k++)
        if (spawn(s, &w[k], w, nw) != 0) {
            rc = CS_ERR(err, CS_EIO, "sweep: cannot start worker process %zu: %s", k + 1, strerror(errno));
            break;
        }
    while (rc == CS_OK && (next < ntodo || inflight)) {
        if (sw_stopping(s)) {
            rc = CS_ERR(err, CS_EINTR, "sweep interrupted: %" PRIu64 " points done, %zu in flight not recorded",
                        s->ran, inflight);
            break;
        }
        /* hand out points to idle workers */
        for (size_t k = 0; k < nw && next < ntodo; k++) {
            if (w[k].p.pid <= 0 || w[k].busy >= 0) continue;
            uint64_t i = todo[next];
            if (sw_write_full(w[k].p.to, &i, sizeof i) == 0) {
                w[k].busy = (int64_t)i;
                w[k].since = cs_host_wall_s();
                w[k].over = 0;
                next++;
                inflight++;
            }
        }
        for (size_t k = 0; k < nw; k++) {
            pf[k].fd = w[k].p.pid > 0 ? w[k].p.from : -1;
            pf[k].events = POLLIN;
            pf[k].revents = 0;
        }
        int pr = poll(pf, nw, 200);
        if (pr < 0 && errno != EINTR) {
            rc = CS_ERR(err, CS_EIO, "sweep: poll: %s", strerror(errno));
            break;
        }
        if (s->o->point_max_wall_s > 0) /* a point past its limit: stop its worker (reaped below as gone) */
            for (size_t k = 0; k < nw; k++)
                if (w[k].p.pid > 0 && w[k].busy >= 0 && !w[k].over &&
                    cs_host_wall_s() - w[k].since > s->o->point_max_wall_s) {
                    w[k].over = 1;
                    kill(w[k].p.pid, SIGKILL);
                }
        for (size_t k = 0; pr > 0 && k < nw; k++) {
            if (!(pf[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            uint32_t len;
            char *line = NULL;
            int okread = sw_read_full(w[k].p.from, &len, sizeof len) == 0 && len < (1u << 30);
            if (okread) {
                line = cs_malloc((size_t)len + 1);
                okread = sw_read_full(w[k].p.from, line, len) == 0;
                line[okread ? len : 0] = '\0';
            }
            if (okread) {
                w[k].busy = -1;
                inflight--;
                sw_record(s, line);
                continue;
            }
            cs_free(line);
            /* the worker is gone: record its point, start another */
            char why[200];
            int64_t held = w[k].busy;
            reap(s, &w[k], why, sizeof why);
            if (sw_stopping(s)) continue; /* killed by the same Ctrl-C: not the point's fault */
            if (held >= 0) {
                inflight--;
                sw_record(s, sw_failed_line(s, (uint64_t)held, why));
            }
            if ((next < ntodo || inflight) && spawn(s, &w[k], w, nw) != 0) {
                rc = CS_ERR(err, CS_EIO, "sweep: cannot restart a worker process: %s", strerror(errno));
                break;
            }
        }
    }
    for (size_t k = 0; k < nw; k++) sw_proc_end(&w[k].p, rc != CS_OK ? SIGTERM : 0, NULL); /* EOF: it exits */
    signal(SIGPIPE, old_pipe);
    cs_free(pf);
    cs_free(w);
    return rc;
}
