/*
 * pool.c -- slab object pool with a stack of free pointers (see pool.h).
 *
 * The free objects are kept as an array of pointers, not as an intrusive
 * list through the objects: taking one reads the top of a small, hot array
 * instead of the object's first word.  In a large simulation thousands of
 * objects are freed between a free and its reuse, so the object itself has
 * usually left the caches; with an intrusive list every get waited for that
 * miss (the full 16,384-NPU all-reduce spent a quarter of its time there,
 * docs/performance.md).  Reuse order is unchanged: last freed, first reused;
 * a new slab hands out its objects in address order.
 */
#include "core/pool.h"

#include <stdint.h>

#include "core/alloc.h"
#include "core/invariant.h"

#define CS_POOL_SLAB 1024
#define CS_POOL_LINE 64 /* cache line bytes */

typedef struct slab {
    struct slab *next;
} slab;

struct cs_pool {
    size_t obj_size;
    void **free;     /* free objects; free[nfree - 1] is reused next */
    size_t nfree;
    slab *slabs;
    size_t in_use, capacity; /* capacity = slots of free */
};

cs_pool *cs_pool_new(size_t obj_size) {
    cs_pool *p = cs_calloc(1, sizeof *p);
    size_t a = sizeof(void *) > 8 ? sizeof(void *) : 8;
    if (obj_size < sizeof(void *)) obj_size = sizeof(void *);
    /* objects of 33-64 bytes take a whole cache line each (slabs start on
     * one): an object read in a handler is then one miss, never two */
    if (obj_size > CS_POOL_LINE / 2 && obj_size < CS_POOL_LINE) obj_size = CS_POOL_LINE;
    p->obj_size = (obj_size + a - 1) / a * a;
    return p;
}

void cs_pool_free(cs_pool *p) {
    if (!p) return;
    slab *s = p->slabs;
    while (s) {
        slab *n = s->next;
        cs_free(s);
        s = n;
    }
    cs_free(p->free);
    cs_free(p);
}

static void add_slab(cs_pool *p) {
    size_t hdr = (sizeof(slab) + 15) / 16 * 16;
    slab *s = cs_malloc(hdr + CS_POOL_LINE + p->obj_size * CS_POOL_SLAB);
    s->next = p->slabs;
    p->slabs = s;
    p->capacity += CS_POOL_SLAB;
    p->free = cs_realloc(p->free, p->capacity * sizeof *p->free);
    char *base = (char *)s + hdr;
    base += (CS_POOL_LINE - (uintptr_t)base % CS_POOL_LINE) % CS_POOL_LINE; /* the first object on a line */
    for (size_t i = CS_POOL_SLAB; i-- > 0;) p->free[p->nfree++] = base + i * p->obj_size;
}

void *cs_pool_get(cs_pool *p) {
    if (!p->nfree) add_slab(p);
    p->in_use++;
    return p->free[--p->nfree];
}

void cs_pool_put(cs_pool *p, void *obj) {
    if (!obj) return;
    CS_ALWAYS(p->nfree < p->capacity, "object pool: more objects returned (%zu) than it holds", p->nfree + 1);
    p->free[p->nfree++] = obj;
    p->in_use--;
}

size_t cs_pool_in_use(const cs_pool *p) { return p->in_use; }
size_t cs_pool_capacity(const cs_pool *p) { return p->capacity; }
