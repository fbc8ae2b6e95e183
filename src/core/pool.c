/*
 * pool.c -- slab + free-list object pool (see pool.h).
 */
#include "core/pool.h"

#include "core/alloc.h"

#define CS_POOL_SLAB 1024

typedef struct slab {
    struct slab *next;
} slab;

struct cs_pool {
    size_t obj_size;
    void *free_list;
    slab *slabs;
    size_t in_use, capacity;
};

cs_pool *cs_pool_new(size_t obj_size) {
    cs_pool *p = cs_calloc(1, sizeof *p);
    size_t a = sizeof(void *) > 8 ? sizeof(void *) : 8;
    if (obj_size < sizeof(void *)) obj_size = sizeof(void *);
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
    cs_free(p);
}

static void add_slab(cs_pool *p) {
    size_t hdr = (sizeof(slab) + 15) / 16 * 16;
    slab *s = cs_malloc(hdr + p->obj_size * CS_POOL_SLAB);
    s->next = p->slabs;
    p->slabs = s;
    char *base = (char *)s + hdr;
    for (size_t i = CS_POOL_SLAB; i-- > 0;) {
        void *o = base + i * p->obj_size;
        *(void **)o = p->free_list;
        p->free_list = o;
    }
    p->capacity += CS_POOL_SLAB;
}

void *cs_pool_get(cs_pool *p) {
    if (!p->free_list) add_slab(p);
    void *o = p->free_list;
    p->free_list = *(void **)o;
    p->in_use++;
    return o;
}

void cs_pool_put(cs_pool *p, void *obj) {
    if (!obj) return;
    *(void **)obj = p->free_list;
    p->free_list = obj;
    p->in_use--;
}

size_t cs_pool_in_use(const cs_pool *p) { return p->in_use; }
size_t cs_pool_capacity(const cs_pool *p) { return p->capacity; }
