/*
 * alloc.c -- counting allocator wrapper (see alloc.h).
 *
 * Each block carries a 16-byte header holding its size (16 keeps the payload
 * aligned for any type).  The byte counters are atomic (relaxed): the
 * parallel engine's threads (core/peq.h) allocate too; the peak is raised
 * by compare-and-swap.
 *
 * Injection builds (CS_ALLOC_INJECT) count every allocation call, read the
 * CS_ALLOC_* variables on the first one, and keep the sites hit in a small
 * open-addressing table of their own (plain malloc: the table is the
 * wrapper's bookkeeping, not the program's memory).
 */
#define _DEFAULT_SOURCE /* sbrk, madvise (transparent huge pages) */
#include "core/alloc.h"

#include <jansson.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

#if defined(__linux__)
#include <malloc.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <unistd.h>
#endif

#define HDR 16

static _Atomic size_t g_in_use;
static _Atomic size_t g_peak;

static _Atomic int g_threads; /* threads besides the main one (cs_alloc_threads) */

void cs_alloc_threads(int delta) { atomic_fetch_add_explicit(&g_threads, delta, memory_order_seq_cst); }

/* The counters: read-modify-write without a locked instruction while the
 * program runs one thread (relaxed loads and stores are plain moves), with
 * atomic ones while the parallel engine's threads run. */
static void in_use_add(size_t n) {
    if (!atomic_load_explicit(&g_threads, memory_order_relaxed)) {
        size_t now = atomic_load_explicit(&g_in_use, memory_order_relaxed) + n;
        atomic_store_explicit(&g_in_use, now, memory_order_relaxed);
        if (now > atomic_load_explicit(&g_peak, memory_order_relaxed))
            atomic_store_explicit(&g_peak, now, memory_order_relaxed);
        return;
    }
    size_t now = atomic_fetch_add_explicit(&g_in_use, n, memory_order_relaxed) + n;
    size_t peak = atomic_load_explicit(&g_peak, memory_order_relaxed);
    while (now > peak &&
           !atomic_compare_exchange_weak_explicit(&g_peak, &peak, now, memory_order_relaxed, memory_order_relaxed)) {
    }
}

static void in_use_sub(size_t n) {
    if (!atomic_load_explicit(&g_threads, memory_order_relaxed)) {
        atomic_store_explicit(&g_in_use, atomic_load_explicit(&g_in_use, memory_order_relaxed) - n,
                              memory_order_relaxed);
        return;
    }
    atomic_fetch_sub_explicit(&g_in_use, n, memory_order_relaxed);
}

/* ---- allocation-failure injection -------------------------------------------- */

#ifdef CS_ALLOC_INJECT
typedef struct site {
    const char *file; /* as given (a string literal), NULL = empty slot */
    int line;
    unsigned long long calls;
} site;

#define NSITES 4096 /* power of two; far above the program's allocation sites */

static struct {
    int init;
    _Atomic unsigned long long calls; /* allocation calls so far (the parallel engine's threads count too) */
    unsigned long long fail_at;    /* CS_ALLOC_FAIL_AT (0 = none) */
    char fail_file[512];           /* CS_ALLOC_FAIL_SITE's file ("" = none) */
    int fail_line;
    unsigned long long fail_nth, fail_hits;
    const char *count_to;          /* CS_ALLOC_COUNT */
    const char *sites_to;          /* CS_ALLOC_SITES */
    site *sites;                   /* NSITES slots, when sites_to */
    unsigned long long lost_sites; /* sites not recorded (table full) */
} g_inj;

static int all_digits(const char *s) {
    if (!*s) return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return 0;
    return 1;
}

/* CS_ALLOC_FAIL_SITE=F:L or F:L:N */
static void parse_site(const char *v) {
    char buf[sizeof g_inj.fail_file];
    snprintf(buf, sizeof buf, "%s", v);
    char *c1 = strrchr(buf, ':');
    if (!c1 || !all_digits(c1 + 1)) goto bad;
    *c1 = '\0';
    unsigned long long a = strtoull(c1 + 1, NULL, 10), nth = 1, line = a;
    char *c2 = strrchr(buf, ':');
    if (c2 && all_digits(c2 + 1)) { /* F:L:N */
        *c2 = '\0';
        line = strtoull(c2 + 1, NULL, 10);
        nth = a;
    }
    if (!buf[0] || !nth || line > 1000000) goto bad;
    snprintf(g_inj.fail_file, sizeof g_inj.fail_file, "%s", buf);
    g_inj.fail_line = (int)line;
    g_inj.fail_nth = nth;
    return;
bad:
    fprintf(stderr, "clustersim: CS_ALLOC_FAIL_SITE=%s: expected FILE:LINE or FILE:LINE:N (ignored)\n", v);
}

static void inj_report(void) {
    if (g_inj.count_to) {
        if (strcmp(g_inj.count_to, "1") == 0) {
            fprintf(stderr, "clustersim: %llu allocation calls\n", (unsigned long long)g_inj.calls);
        } else {
            FILE *f = fopen(g_inj.count_to, "w");
            if (f) {
                fprintf(f, "%llu\n", (unsigned long long)g_inj.calls);
                fclose(f);
            }
        }
    }
    if (g_inj.sites_to && g_inj.sites) {
        FILE *f = fopen(g_inj.sites_to, "w");
        if (f) {
            for (size_t i = 0; i < NSITES; i++)
                if (g_inj.sites[i].file)
                    fprintf(f, "%s:%d %llu\n", cs_src_path(g_inj.sites[i].file), g_inj.sites[i].line,
                            g_inj.sites[i].calls);
            if (g_inj.lost_sites) fprintf(f, "# %llu calls at sites beyond the table\n", g_inj.lost_sites);
            fclose(f);
        }
    }
}

static void inj_init(void) {
    g_inj.init = 1;
    const char *v = getenv("CS_ALLOC_FAIL_AT");
    if (v && *v) g_inj.fail_at = strtoull(v, NULL, 10);
    v = getenv("CS_ALLOC_FAIL_SITE");
    if (v && *v) parse_site(v);
    v = getenv("CS_ALLOC_COUNT");
    if (v && *v && strcmp(v, "0") != 0) g_inj.count_to = v;
    v = getenv("CS_ALLOC_SITES");
    if (v && *v) {
        g_inj.sites_to = v;
        g_inj.sites = calloc(NSITES, sizeof *g_inj.sites);
    }
    if (g_inj.count_to || g_inj.sites_to) atexit(inj_report);
}

static void record_site(const char *file, int line) {
    unsigned long long h = (unsigned long long)line * 0x9E3779B97F4A7C15ULL;
    for (const char *p = file; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001B3ULL;
    for (size_t i = 0; i < NSITES; i++) {
        site *s = &g_inj.sites[(h + i) & (NSITES - 1)];
        if (!s->file) {
            s->file = file;
            s->line = line;
        }
        if (s->line == line && (s->file == file || strcmp(s->file, file) == 0)) {
            s->calls++;
            return;
        }
    }
    g_inj.lost_sites++;
}

/* Whether `want` names `file`: equal, or a tail of it after a '/'. */
static int site_matches(const char *file, const char *want) {
    size_t n = strlen(file), m = strlen(want);
    if (m > n) return 0;
    return strcmp(file + n - m, want) == 0 && (m == n || file[n - m - 1] == '/');
}

/* One allocation call at file:line: 1 when it must fail. */
static int inj_call(const char *file, int line) {
    if (!g_inj.init) inj_init();
    unsigned long long call = ++g_inj.calls;
    if (!file) file = "(unknown)";
    if (g_inj.sites) record_site(file, line);
    if (g_inj.fail_at && call == g_inj.fail_at) return 1;
    if (g_inj.fail_file[0] && line == g_inj.fail_line &&
        (site_matches(cs_src_path(file), g_inj.fail_file) || site_matches(file, g_inj.fail_file)))
        return ++g_inj.fail_hits == g_inj.fail_nth;
    return 0;
}
#else
static int inj_call(const char *file, int line) {
    (void)file, (void)line;
    return 0;
}
#endif

/* ---- the wrapper ---------------------------------------------------------------- */

#if defined(__linux__)
/* One limit file's value in bytes, or SIZE_MAX ("max", absent, unreadable,
 * or cgroup v1's "no limit", a number near 2^63). */
static size_t limit_file(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return SIZE_MAX;
    char v[64];
    size_t r = SIZE_MAX;
    if (fgets(v, sizeof v, f) && v[0] >= '0' && v[0] <= '9') {
        unsigned long long b = strtoull(v, NULL, 10);
        if (b > 0 && b < (1ULL << 60)) r = (size_t)b;
    }
    fclose(f);
    return r;
}

/* a + b, at most SIZE_MAX */
static size_t add_sat(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }

/* (alloc.h) */
size_t cs_alloc_cgroup_limit(const char *proc_cgroup, const char *root, size_t swap) {
    FILE *f = fopen(proc_cgroup, "r");
    if (!f) return SIZE_MAX;
    char line[4096], path[4096] = "";
    int v1 = 0;
    while (fgets(line, sizeof line, f)) {
        const char *p = NULL;
        if (strncmp(line, "0::", 3) == 0) p = line + 3;
        else if (strstr(line, ":memory:")) {
            p = strstr(line, ":memory:") + 8;
            v1 = 1;
        }
        if (p) {
            snprintf(path, sizeof path, "%s", p);
            if (v1) break;
        }
    }
    fclose(f);
    size_t n = strlen(path);
    while (n && (path[n - 1] == '\n' || path[n - 1] == '/')) path[--n] = '\0';
    size_t best = SIZE_MAX;
    char file[4300];
    for (;;) { /* path, then its parents up to the root ("") */
        size_t b;
        if (v1) {
            snprintf(file, sizeof file, "%s/memory%s/memory.memsw.limit_in_bytes", root, path);
            b = limit_file(file);
            if (b == SIZE_MAX) {
                snprintf(file, sizeof file, "%s/memory%s/memory.limit_in_bytes", root, path);
                b = limit_file(file);
                if (b != SIZE_MAX) b = add_sat(b, swap);
            }
        } else {
            snprintf(file, sizeof file, "%s%s/memory.max", root, path);
            b = limit_file(file);
            if (b != SIZE_MAX) {
                snprintf(file, sizeof file, "%s%s/memory.swap.max", root, path);
                size_t sw = limit_file(file);
                b = add_sat(b, sw == SIZE_MAX ? swap : sw);
            }
        }
        if (b < best) best = b;
        char *slash = strrchr(path, '/');
        if (!path[0] || !slash) break;
        *slash = '\0';
    }
    return best;
}
#else
size_t cs_alloc_cgroup_limit(const char *proc_cgroup, const char *root, size_t swap) {
    (void)proc_cgroup, (void)root, (void)swap;
    return SIZE_MAX;
}
#endif

size_t cs_alloc_machine_bytes(void) {
    static size_t machine; /* 0 = not read yet */
    if (!machine) {
        size_t m = SIZE_MAX;
#if defined(__linux__)
        struct sysinfo si;
        size_t swap = 0;
        if (sysinfo(&si) == 0 && si.mem_unit > 0) {
            unsigned long long b = ((unsigned long long)si.totalram + si.totalswap) * si.mem_unit;
            if (b > 0 && b < SIZE_MAX) m = (size_t)b;
            unsigned long long sw = (unsigned long long)si.totalswap * si.mem_unit;
            swap = sw < SIZE_MAX ? (size_t)sw : SIZE_MAX;
        }
        size_t cg = cs_alloc_cgroup_limit("/proc/self/cgroup", "/sys/fs/cgroup", swap);
        if (cg < m) m = cg;
        /* CS_MACHINE_BYTES: a smaller machine, for tests of these checks (a whole number of bytes; anything
         * else is ignored) */
        const char *env = getenv("CS_MACHINE_BYTES");
        if (env && env[0] >= '1' && env[0] <= '9') {
            char *end;
            unsigned long long b = strtoull(env, &end, 10);
            if (!*end && b > 0 && b < m) m = (size_t)b;
        }
#endif
        machine = m;
    }
    return machine;
}

static _Noreturn void oom(size_t size, const char *file, int line, int injected);

/* A request of 1 MiB or more that would take the bytes in use past the
 * machine's memory fails here (smaller ones are left to malloc: checking
 * them would cost every hot-path allocation a load). */
#define MACHINE_CHECK_BYTES ((size_t)1 << 20)
static _Noreturn void past_machine(size_t size, const char *file, int line) {
    char at[600] = "";
    if (file) snprintf(at, sizeof at, " at %s:%d", cs_src_path(file), line);
    fprintf(stderr,
            "clustersim: out of memory: %zu bytes more%s would pass this machine's memory (%zu bytes: RAM and "
            "swap, or the memory limit of this process's control group; %zu bytes in use); expected a smaller "
            "input or a larger machine\n",
            size, at, cs_alloc_machine_bytes(), (size_t)g_in_use);
    exit(3);
}
static inline void machine_check(size_t size, const char *file, int line) {
    if (size >= MACHINE_CHECK_BYTES) {
        size_t m = cs_alloc_machine_bytes(), used = atomic_load_explicit(&g_in_use, memory_order_relaxed);
        if (size > m || used > m - size) past_machine(size, file, line);
    }
}

static _Noreturn void oom(size_t size, const char *file, int line, int injected) {
    char at[600] = "";
    if (file) snprintf(at, sizeof at, " at %s:%d", cs_src_path(file), line);
    fprintf(stderr,
            "clustersim: out of memory: could not allocate %zu bytes%s "
            "(%zu bytes in use, peak %zu)%s\n",
            size, at, (size_t)g_in_use, (size_t)g_peak, injected ? " [injected]" : "");
    exit(3);
}

/* ---- transparent huge pages ----------------------------------------------------- */

/* A full simulation's working set (events, packets, flows, ports: tens of
 * MB) is read in no order a cache can follow, so most loads miss the TLB as
 * well as the caches.  Where the kernel gives huge pages only to memory that
 * asks (Debian's default, transparent_hugepage=madvise), the wrapper asks:
 * on its first call it sets glibc's mmap threshold to 2 MiB (blocks below it
 * come from the heap), the heap's top pad to 16 MiB (the heap grows in
 * steps huge pages fit in) and its trim threshold to 32 MiB (freeing does
 * not give back what is soon faulted again, 2 MiB at a time); then, after
 * each allocation, it advises MADV_HUGEPAGE on what the heap grew by since,
 * and on any block of 2 MiB or more (mmap'd by glibc).  What glibc's
 * GLIBC_TUNABLES=glibc.malloc.hugetlb=1 does, asked for by the program
 * instead of by the user.  Only the time
 * changes: the same memory is allocated, every result is the same (the
 * measurements: docs/performance.md, "Huge pages").  CS_THP=0 in the
 * environment turns it off (to compare).  Builds with sanitizers bring their
 * own allocator (their heap is not glibc's: only their large blocks are
 * advised), and allocations while other threads run (the parallel engine's
 * arenas) are left alone. */
#if defined(__linux__) && defined(MADV_HUGEPAGE) && defined(M_MMAP_THRESHOLD) && defined(M_TOP_PAD)
#define THP_BYTES ((uintptr_t)2 << 20)
static int g_thp; /* 0 not yet decided, 1 on, -1 off */
static uintptr_t g_thp_end; /* the heap is advised up to here */

/* Advise the pages [a, b) (a, b on page boundaries), when they can hold a
 * huge page. */
static void thp_advise(uintptr_t a, uintptr_t b) {
    if (b > a && b - a >= THP_BYTES) (void)madvise((void *)a, b - a, MADV_HUGEPAGE);
}

static uintptr_t g_page; /* the page size */

static void thp_after(uintptr_t raw, size_t size) {
    if (g_thp < 0 || atomic_load_explicit(&g_threads, memory_order_relaxed)) return;
    if (!g_thp) {
        const char *v = getenv("CS_THP");
        long pg = sysconf(_SC_PAGESIZE);
        g_thp = (v && strcmp(v, "0") == 0) || pg <= 0 ? -1 : 1;
        if (g_thp < 0) return;
        g_page = (uintptr_t)pg;
        (void)mallopt(M_MMAP_THRESHOLD, (int)THP_BYTES);
        (void)mallopt(M_TOP_PAD, 8 * (int)THP_BYTES);
        (void)mallopt(M_TRIM_THRESHOLD, 16 * (int)THP_BYTES);
        g_thp_end = ((uintptr_t)sbrk(0) + g_page - 1) / g_page * g_page;
    }
    const uintptr_t pg = g_page;
    /* the heap's growth, whole pages (no page of it left out between two
     * advised ranges) */
    uintptr_t brk = (uintptr_t)sbrk(0) / pg * pg;
    if (brk < g_thp_end) g_thp_end = brk; /* trimmed: what grows again is new */
    if (brk > g_thp_end + THP_BYTES) {
        thp_advise(g_thp_end, brk);
        g_thp_end = brk;
    }
    /* a block of its own (above the heap: glibc's mmap), all of its
     * mapping, which ends where the usable bytes do (glibc's headers come
     * before them): advising part of a mapping would split it, and glibc's
     * realloc by mremap works on whole mappings only */
    if (size >= THP_BYTES && raw > brk) {
        uintptr_t end = raw + malloc_usable_size((void *)raw);
        thp_advise(raw / pg * pg, (end + pg - 1) / pg * pg);
    }
}
#else
static void thp_after(uintptr_t raw, size_t size) { (void)raw, (void)size; }
#endif

size_t cs_alloc_huge_bytes(void) {
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (!f) return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "AnonHugePages: %llu kB", &kb) == 1) break;
    fclose(f);
    return (size_t)kb * 1024;
}

static void *account(unsigned char *raw, size_t size) {
    thp_after((uintptr_t)raw, size);
    memcpy(raw, &size, sizeof size);
    in_use_add(size);
    return raw + HDR;
}

void *cs_malloc_at(size_t size, const char *file, int line) {
    if (size > SIZE_MAX - HDR) oom(size, file, line, 0);
    machine_check(size, file, line);
    int inj = inj_call(file, line);
    unsigned char *raw = inj ? NULL : malloc(size + HDR);
    if (!raw) oom(size, file, line, inj);
    return account(raw, size);
}

void *cs_calloc_at(size_t n, size_t size, const char *file, int line) {
    if (size && n > (SIZE_MAX - HDR) / size) oom(SIZE_MAX, file, line, 0);
    size_t total = n * size;
    machine_check(total, file, line);
    int inj = inj_call(file, line);
    unsigned char *raw = inj ? NULL : calloc(1, total + HDR);
    if (!raw) oom(total, file, line, inj);
    return account(raw, total);
}

void *cs_realloc_at(void *ptr, size_t size, const char *file, int line) {
    if (!ptr) return cs_malloc_at(size, file, line);
    if (size > SIZE_MAX - HDR) oom(size, file, line, 0);
    unsigned char *raw = (unsigned char *)ptr - HDR;
    size_t old;
    memcpy(&old, raw, sizeof old);
    if (size > old) machine_check(size - old, file, line);
    int inj = inj_call(file, line);
    unsigned char *nraw = inj ? NULL : realloc(raw, size + HDR);
    if (!nraw) oom(size, file, line, inj); /* (the old block stays valid and counted) */
    in_use_sub(old);
    return account(nraw, size);
}

void cs_free(void *ptr) {
    if (!ptr) return;
    unsigned char *raw = (unsigned char *)ptr - HDR;
    size_t old;
    memcpy(&old, raw, sizeof old);
    in_use_sub(old);
    free(raw);
}

char *cs_strdup_at(const char *s, const char *file, int line) {
    size_t n = strlen(s) + 1;
    char *d = cs_malloc_at(n, file, line);
    memcpy(d, s, n);
    return d;
}

void cs_grow_at(void **arr, size_t *cap, size_t need, size_t elem, const char *file, int line) {
    if (need <= *cap) return;
    size_t ncap = *cap ? *cap : 8;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2 / elem) oom(SIZE_MAX, file, line, 0);
        ncap *= 2;
    }
    *arr = cs_realloc_at(*arr, ncap * elem, file, line);
    *cap = ncap;
}

/* The plain functions (no site). */
void *(cs_malloc)(size_t size) { return cs_malloc_at(size, NULL, 0); }
void *(cs_calloc)(size_t n, size_t size) { return cs_calloc_at(n, size, NULL, 0); }
void *(cs_realloc)(void *ptr, size_t size) { return cs_realloc_at(ptr, size, NULL, 0); }
char *(cs_strdup)(const char *s) { return cs_strdup_at(s, NULL, 0); }
void (cs_grow)(void **arr, size_t *cap, size_t need, size_t elem) { cs_grow_at(arr, cap, need, elem, NULL, 0); }

size_t cs_alloc_bytes_in_use(void) { return atomic_load_explicit(&g_in_use, memory_order_relaxed); }
size_t cs_alloc_bytes_peak(void) { return atomic_load_explicit(&g_peak, memory_order_relaxed); }

/* ---- jansson ---------------------------------------------------------------------- */

static void *json_alloc(size_t n) { return cs_malloc_at(n, "(jansson)", 0); }

static int g_json_depth;
static json_malloc_t g_json_saved_malloc;
static json_free_t g_json_saved_free;

void cs_alloc_jansson(int on) {
    if (on) {
        if (g_json_depth++ == 0) {
            json_get_alloc_funcs(&g_json_saved_malloc, &g_json_saved_free);
            json_set_alloc_funcs(json_alloc, cs_free);
        }
    } else if (g_json_depth > 0 && --g_json_depth == 0) {
        json_set_alloc_funcs(g_json_saved_malloc, g_json_saved_free);
    }
}

void cs_json_free(void *p) {
    json_free_t f;
    json_get_alloc_funcs(NULL, &f);
    f(p);
}
