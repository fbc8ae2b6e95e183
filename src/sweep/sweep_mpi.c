/*
 * sweep_mpi.c -- a sweep across machines on MPI (MPICH from Debian):
 * `mpiexec -n N clustersim sweep SPEC`.
 *
 * Every rank reads the spec and computes every point's id.  Rank 0 keeps
 * the log and the results: it hands out point indices one at a time
 * (each worker holds at most two, so it never waits for rank 0 between
 * points), records each returned line, and runs points itself between
 * requests.  A worker checks that the id it computed for a point is the
 * one rank 0 sent, so ranks that see different input files fail loudly
 * instead of mixing results.  Without MPI at build time (CS_HAVE_MPI
 * unset) the entry points say so.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "sweep/sweep_int.h"

/* Launched by mpiexec with more than one process?  (Hydra, MPICH's
 * launcher, sets PMI_SIZE; Open MPI's sets OMPI_COMM_WORLD_SIZE.) */
int sw_mpi_launched(void) {
    const char *v = getenv("PMI_SIZE");
    if (!v) v = getenv("OMPI_COMM_WORLD_SIZE");
    return v && atoi(v) > 1;
}

#ifdef CS_HAVE_MPI
#include <dlfcn.h>
#include <mpi.h>

/* MPICH is loaded when a sweep runs under mpiexec, not linked: loading it
 * (and the UCX libraries it pulls in, which initialise themselves) was 2 to 3
 * ms of every clustersim process's start, most of a small run's CPU beside
 * its own work.  Its handles and constants are plain integers (mpi.h), so
 * only the functions come from the library: each MPI_X below is the
 * pointer's call. */
static struct {
    int (*Initialized)(int *);
    int (*Init)(int *, char ***);
    int (*Comm_rank)(MPI_Comm, int *);
    int (*Comm_size)(MPI_Comm, int *);
    int (*Finalized)(int *);
    int (*Finalize)(void);
    int (*Recv)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
    int (*Send)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
    int (*Probe)(int, int, MPI_Comm, MPI_Status *);
    int (*Iprobe)(int, int, MPI_Comm, int *, MPI_Status *);
    int (*Get_count)(const MPI_Status *, MPI_Datatype, int *);
} M;
static int m_loaded;

#define MPI_Initialized M.Initialized
#define MPI_Init M.Init
#define MPI_Comm_rank M.Comm_rank
#define MPI_Comm_size M.Comm_size
#define MPI_Finalized M.Finalized
#define MPI_Finalize M.Finalize
#define MPI_Recv M.Recv
#define MPI_Send M.Send
#define MPI_Probe M.Probe
#define MPI_Iprobe M.Iprobe
#define MPI_Get_count M.Get_count

/* dlsym's object pointer into a function pointer (POSIX guarantees the representation). */
#define M_SYM(h, field, name) (memcpy(&M.field, &(void *){dlsym(h, name)}, sizeof(void *)), M.field != NULL)

static int m_load(cs_error *err) {
    if (m_loaded) return CS_OK;
    void *h = dlopen(CS_MPI_LIBRARY, RTLD_NOW | RTLD_GLOBAL);
    if (!h) return CS_ERR(err, CS_EIO, "sweep: cannot load MPI (%s): %s", CS_MPI_LIBRARY, dlerror());
    if (!(M_SYM(h, Initialized, "MPI_Initialized") && M_SYM(h, Init, "MPI_Init") &&
          M_SYM(h, Comm_rank, "MPI_Comm_rank") && M_SYM(h, Comm_size, "MPI_Comm_size") &&
          M_SYM(h, Finalized, "MPI_Finalized") && M_SYM(h, Finalize, "MPI_Finalize") && M_SYM(h, Recv, "MPI_Recv") &&
          M_SYM(h, Send, "MPI_Send") && M_SYM(h, Probe, "MPI_Probe") && M_SYM(h, Iprobe, "MPI_Iprobe") &&
          M_SYM(h, Get_count, "MPI_Get_count")))
        return CS_ERR(err, CS_EIO, "sweep: %s lacks an MPI function: %s", CS_MPI_LIBRARY, dlerror());
    m_loaded = 1;
    return CS_OK;
}

enum { TAG_WORK = 1, TAG_STOP = 2, TAG_RESULT = 3 };

int sw_mpi_available(void) { return 1; }

int sw_mpi_init(int *rank, int *size, cs_error *err) {
    int rc = m_load(err);
    if (rc) return rc;
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited && MPI_Init(NULL, NULL) != MPI_SUCCESS) return CS_ERR(err, CS_EIO, "sweep: MPI_Init failed");
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    return CS_OK;
}

void sw_mpi_finalize(void) {
    if (!m_loaded) return;
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) MPI_Finalize();
}

/* A work message: the point and the id rank 0 computed for it. */
typedef struct work { uint64_t point, id; } work;

int sw_mpi_worker(sweep *s, cs_error *err) {
    for (;;) {
        MPI_Status st;
        work wk;
        MPI_Recv(&wk, 2, MPI_UINT64_T, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == TAG_STOP) return CS_OK;
        char *line;
        if (wk.point >= s->n || s->ids[wk.point] != wk.id) {
            char why[300];
            snprintf(why, sizeof why,
                     "MPI rank computed a different scenario for this point (id %016" PRIx64 "); expected every "
                     "rank to read the same spec, scenario and input files",
                     wk.point < s->n ? s->ids[wk.point] : 0);
            line = sw_failed_line(s, wk.point < s->n ? wk.point : 0, why);
        } else {
            line = sw_run_point(s, wk.point);
        }
        MPI_Send(line, (int)strlen(line), MPI_CHAR, 0, TAG_RESULT, MPI_COMM_WORLD);
        cs_free(line);
    }
    (void)err;
}

/* Receive one result (blocking when wait, else only if one is there);
 * returns the sender's rank or -1. */
static int take_result(sweep *s, int wait) {
    MPI_Status st;
    int flag = 1;
    if (wait) MPI_Probe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st);
    else MPI_Iprobe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &flag, &st);
    if (!flag) return -1;
    int n = 0;
    MPI_Get_count(&st, MPI_CHAR, &n);
    char *line = cs_malloc((size_t)n + 1);
    MPI_Recv(line, n, MPI_CHAR, st.MPI_SOURCE, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    line[n] = '\0';
    sw_record(s, line);
    return st.MPI_SOURCE;
}

int sw_run_mpi(sweep *s, const uint64_t *todo, size_t ntodo, cs_error *err) {
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *held = cs_calloc((size_t)size, sizeof *held);
    size_t next = 0, out = 0;
    int rc = CS_OK;
    /* two points per worker to start */
    for (int round = 0; round < 2; round++)
        for (int r = 1; r < size && next < ntodo; r++) {
            work wk = {todo[next], s->ids[todo[next]]};
            MPI_Send(&wk, 2, MPI_UINT64_T, r, TAG_WORK, MPI_COMM_WORLD);
            next++;
            held[r]++;
            out++;
        }
    while (next < ntodo || out) {
        if (sw_stopping(s)) {
            rc = CS_ERR(err, CS_EINTR, "sweep interrupted: %" PRIu64 " points done", s->ran);
            break;
        }
        /* serve every result waiting; refill its worker */
        int from;
        while ((from = take_result(s, 0)) >= 0 || (next >= ntodo && out && (from = take_result(s, 1)) >= 0)) {
            held[from]--;
            out--;
            if (next < ntodo) {
                work wk = {todo[next], s->ids[todo[next]]};
                MPI_Send(&wk, 2, MPI_UINT64_T, from, TAG_WORK, MPI_COMM_WORLD);
                next++;
                held[from]++;
                out++;
            }
            if (!out && next >= ntodo) break;
        }
        /* then one point here */
        if (next < ntodo) sw_record(s, sw_run_point(s, todo[next++]));
    }
    /* drain what is still out (after a stop: wait for it, it is recorded) */
    while (out) {
        int from = take_result(s, 1);
        held[from]--;
        out--;
    }
    for (int r = 1; r < size; r++) MPI_Send(NULL, 0, MPI_UINT64_T, r, TAG_STOP, MPI_COMM_WORLD);
    cs_free(held);
    return rc;
}

#else /* no MPI at build time */

int sw_mpi_available(void) { return 0; }
int sw_mpi_init(int *rank, int *size, cs_error *err) {
    *rank = 0;
    *size = 1;
    return CS_ERR(err, CS_EINVAL, "this clustersim was built without MPI");
}
void sw_mpi_finalize(void) {}
int sw_run_mpi(sweep *s, const uint64_t *todo, size_t ntodo, cs_error *err) {
    (void)s;
    (void)todo;
    (void)ntodo;
    return CS_ERR(err, CS_EINVAL, "this clustersim was built without MPI");
}
int sw_mpi_worker(sweep *s, cs_error *err) {
    (void)s;
    return CS_ERR(err, CS_EINVAL, "this clustersim was built without MPI");
}

#endif
