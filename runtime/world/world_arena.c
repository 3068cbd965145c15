/* Memory for the network's objects.
 *
 * In a world, sockets, connections and their buffers are reached from
 * several processes (a connection's two ends live in two nodes), so they are
 * allocated in the world's shared mapping, which sits at the same address
 * everywhere.  The allocator is the simplest that bounds waste: one free
 * list per power-of-two size class, and a bump pointer; only the baton
 * holder calls it, so it needs no lock.  A run outside a launcher's world
 * uses its own region's arena (proc.h: a child it forks shares the objects);
 * only when that region could not be mapped does the C heap serve.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "world/world.h"

#define S detsim__ws
#define BLOCK_HEADER 16u
#define BLOCK_MAGIC 0x61726e61u /* "arna" */
#define SMALLEST_CLASS 5u       /* 32 bytes */

struct block_header {
  uint32_t magic;
  uint32_t cls;
  uint64_t pad;
};
_Static_assert(sizeof(struct block_header) == BLOCK_HEADER, "arena block header");

static char *arena_base(void) { return (char *)S + DETSIM_WORLD_ARENA_OFFSET; }
static uint64_t arena_bytes(void) { return DETSIM_WORLD_BYTES - DETSIM_WORLD_ARENA_OFFSET; }

static bool in_arena(const void *p) {
  const char *c = p;
  return S != NULL && c >= arena_base() && c < arena_base() + arena_bytes();
}

static _Noreturn void arena_full(uint64_t want) {
  char extra[96];
  snprintf(extra, sizeof extra, "limit=world_arena_bytes=%" PRIu64, arena_bytes());
  detsim__msg("the world's shared memory for network objects is full (%" PRIu64 " bytes used, %" PRIu64
              " more asked; limit world_arena_bytes=%" PRIu64 ")",
              S->arena_used, want, arena_bytes());
  detsim__finish(DETSIM_CLASS_inconclusive, 0, extra);
}

static void *arena_alloc(size_t bytes) {
  unsigned cls = SMALLEST_CLASS;
  while (cls < DETSIM_WORLD_ARENA_CLASSES && ((uint64_t)1 << cls) < (uint64_t)bytes + BLOCK_HEADER) cls++;
  if (cls >= DETSIM_WORLD_ARENA_CLASSES) arena_full(bytes);
  struct block_header *h = S->arena_free[cls];
  if (h != NULL) {
    CHECK_EQ(h->magic, BLOCK_MAGIC);
    S->arena_free[cls] = *(void **)(h + 1);
  } else {
    uint64_t size = (uint64_t)1 << cls;
    if (S->arena_used + size > arena_bytes()) arena_full(size);
    h = (struct block_header *)(arena_base() + S->arena_used);
    S->arena_used += size;
  }
  h->magic = BLOCK_MAGIC;
  h->cls = cls;
  return h + 1;
}

static struct block_header *header_of(void *p) {
  struct block_header *h = (struct block_header *)p - 1;
  CHECK_EQ(h->magic, BLOCK_MAGIC); /* freed twice, or not the arena's */
  return h;
}

void *detsim__net_calloc(size_t n, size_t size) {
  if (S == NULL) return calloc(n, size);
  if (size != 0 && n > SIZE_MAX / size) return NULL;
  void *p = arena_alloc(n * size);
  memset(p, 0, n * size);
  return p;
}

void *detsim__net_malloc(size_t size) {
  if (S == NULL) return malloc(size);
  return arena_alloc(size);
}

void detsim__net_free(void *p) {
  if (p == NULL) return;
  if (!in_arena(p)) {
    free(p);
    return;
  }
  struct block_header *h = header_of(p);
  h->magic = 0;
  *(void **)(h + 1) = S->arena_free[h->cls];
  h->magic = BLOCK_MAGIC;
  S->arena_free[h->cls] = h;
}

void *detsim__net_realloc(void *p, size_t size) {
  if (S == NULL || (p != NULL && !in_arena(p))) return realloc(p, size);
  if (p == NULL) return arena_alloc(size);
  struct block_header *h = header_of(p);
  uint64_t have = ((uint64_t)1 << h->cls) - BLOCK_HEADER;
  if (size <= have) return p;
  void *q = arena_alloc(size);
  memcpy(q, p, have);
  detsim__net_free(p);
  return q;
}
