/*
 * alloc.h -- the one allocator wrapper.
 *
 * All heap memory in clustersim goes through cs_malloc/cs_calloc/cs_realloc/
 * cs_free so that the bytes in use and the peak are known (reported in
 * summary.json and checked by the scale benchmarks).  Exhaustion is not a
 * recoverable condition for a simulator: the wrapper prints how much was asked
 * for and how much is in use, then exits with status 3 (like Redis' zmalloc);
 * exit() runs the handlers that remove unfinished result files (core/afile.h,
 * the CLI's --out).  Sizes are tracked with a small header in front of each
 * block.  The wrapper also asks the kernel for transparent huge pages for the
 * heap and for large blocks (alloc.c; CS_THP=0 turns it off): only the time
 * changes.  jansson's allocations come here too while the command line runs
 * (cs_alloc_jansson), and the Chakra reader's protobuf-c and zlib ones.
 *
 * Allocation-failure injection (builds with CS_ALLOC_INJECT: every
 * CS_SANITIZE=ON or CS_INVARIANTS=ON build; docs/testing.md).  There the
 * names below are macros passing the caller's site (__FILE__, __LINE__) to
 * the *_at functions, and the environment controls the wrapper:
 *   CS_ALLOC_FAIL_AT=N          the N-th allocation call (from 1) fails
 *   CS_ALLOC_FAIL_SITE=F:L[:N]  the first (N-th) call at site F:L fails; F may
 *                               be any tail of the path after a '/', e.g.
 *                               afile.c:14 or src/core/afile.c:14
 *   CS_ALLOC_COUNT=1|PATH       at exit, the number of allocation calls to
 *                               stderr ("clustersim: N allocation calls") or PATH
 *   CS_ALLOC_SITES=PATH         at exit, every site hit, one "FILE:LINE CALLS"
 *                               line each, to PATH
 * A failure injected is a real exhaustion as far as the program can tell (the
 * message adds "[injected]").  Calls are cs_malloc, cs_calloc, cs_realloc,
 * cs_strdup, cs_grow (when it grows) and the libraries' allocations, whose
 * sites are "(jansson)", "(protobuf-c)" and the reader's zlib hook.  Without
 * CS_ALLOC_INJECT the names are plain functions and none of this exists.
 */
#ifndef CS_CORE_ALLOC_H
#define CS_CORE_ALLOC_H

#include <stddef.h>
#include <stdint.h>

/* The functions (their names stay usable as functions: `(cs_malloc)(n)`,
 * or as pointers). */
void *(cs_malloc)(size_t size);
void *(cs_calloc)(size_t n, size_t size);
void *(cs_realloc)(void *ptr, size_t size);
void cs_free(void *ptr);
char *(cs_strdup)(const char *s);

/* Grow *arr (element size elem) so that it can hold at least need elements;
 * capacity doubles. */
void (cs_grow)(void **arr, size_t *cap, size_t need, size_t elem);

/* The same, naming the caller's site (file as __FILE__ gives it, line). */
void *cs_malloc_at(size_t size, const char *file, int line);
void *cs_calloc_at(size_t n, size_t size, const char *file, int line);
void *cs_realloc_at(void *ptr, size_t size, const char *file, int line);
char *cs_strdup_at(const char *s, const char *file, int line);
void cs_grow_at(void **arr, size_t *cap, size_t need, size_t elem, const char *file, int line);

#ifdef CS_ALLOC_INJECT
#define cs_malloc(size) cs_malloc_at((size), __FILE__, __LINE__)
#define cs_calloc(n, size) cs_calloc_at((n), (size), __FILE__, __LINE__)
#define cs_realloc(ptr, size) cs_realloc_at((ptr), (size), __FILE__, __LINE__)
#define cs_strdup(s) cs_strdup_at((s), __FILE__, __LINE__)
#define CS_GROW(arr, cap, need) cs_grow_at((void **)&(arr), &(cap), (need), sizeof *(arr), __FILE__, __LINE__)
#else
/* (the test inline: most calls, on hot paths, find room) */
static inline void cs_grow_if_needed(void **arr, size_t *cap, size_t need, size_t elem) {
    if (__builtin_expect(need > *cap, 0)) (cs_grow)(arr, cap, need, elem);
}
#define CS_GROW(arr, cap, need) cs_grow_if_needed((void **)&(arr), &(cap), (need), sizeof *(arr))
#endif

size_t cs_alloc_bytes_in_use(void);
size_t cs_alloc_bytes_peak(void);
/* The machine's memory in bytes: RAM and swap (sysinfo), or the memory limit
 * of the process's control group with its swap when lower
 * (cs_alloc_cgroup_limit: a container's, a batch job's), or CS_MACHINE_BYTES
 * from the environment when lower still (a whole number of bytes: a small
 * machine for tests); SIZE_MAX where none says.  No allocation (or
 * growth of a block) of 1 MiB or more may take the bytes in use past it:
 * such a request exits 3 at once, saying so, instead of handing the process
 * to the kernel's out-of-memory killer (signal 9, no message) once the pages
 * are touched.  What is in use counts this wrapper's blocks only, and the
 * process holds more (its code, the C library's own, page rounding): a run
 * that passes may still come near the limit; --max-memory stops one at a
 * limit of the user's choosing. */
size_t cs_alloc_machine_bytes(void);
/* The memory limit of a process's control group, swap included as the
 * machine's figure includes it, read from proc_cgroup (a /proc/PID/cgroup)
 * and the cgroup file system at root (/sys/fs/cgroup; tests pass their
 * own): the least, over its cgroup v2 and every ancestor, of memory.max plus
 * what the group may swap (memory.swap.max, or swap -- the machine's --
 * when that says "max" or is absent); on cgroup v1 the memory controller's
 * memory.memsw.limit_in_bytes (memory and swap), else memory.limit_in_bytes
 * plus swap.  SIZE_MAX when none is set or none can be read. */
size_t cs_alloc_cgroup_limit(const char *proc_cgroup, const char *root, size_t swap);
/* The process' anonymous memory in transparent huge pages now, in bytes (0
 * where the system does not say: /proc/self/smaps_rollup). */
size_t cs_alloc_huge_bytes(void);
/* Threads other than the main one are starting (delta > 0) or have been
 * joined (delta < 0): the counters above stay exact with them (atomic
 * updates), and cost no locked instruction without them.  Call it before
 * pthread_create and after pthread_join. */
void cs_alloc_threads(int delta);

/* jansson's allocations through this wrapper (counted; exhaustion exits 3)
 * between cs_alloc_jansson(1) and the matching cs_alloc_jansson(0), which
 * restores the functions jansson had (nesting counts).  Every JSON value
 * must be freed on the same side it was made.  The command line (cli.c)
 * does so around each command. */
void cs_alloc_jansson(int on);
/* Free what jansson returned (json_dumps' text) with jansson's current free
 * function: right on either side of cs_alloc_jansson. */
void cs_json_free(void *p);

#endif
