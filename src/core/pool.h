/*
 * pool.h -- fixed-size object pool for hot objects (messages, flows, packets).
 *
 * Objects are carved from slabs of CS_POOL_SLAB objects and recycled through a
 * stack of free pointers (last freed, first reused), so steady-state
 * simulation does no malloc/free and a get does not read the object.  The
 * pool owns its slabs; cs_pool_free releases everything at once (objects still
 * in use become invalid).  Not thread-safe (one pool per simulation partition).
 */
#ifndef CS_CORE_POOL_H
#define CS_CORE_POOL_H

#include <stddef.h>

typedef struct cs_pool cs_pool;

cs_pool *cs_pool_new(size_t obj_size);
void cs_pool_free(cs_pool *p);
void *cs_pool_get(cs_pool *p);   /* uninitialised object */
void cs_pool_put(cs_pool *p, void *obj);
size_t cs_pool_in_use(const cs_pool *p);
size_t cs_pool_capacity(const cs_pool *p); /* objects allocated in slabs */

#endif
