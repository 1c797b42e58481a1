// util_memory.c - allocation wrappers with failure injection, and a growable array.

#include <stdlib.h>
#include <string.h>

#include "util.h"

// countdown to an injected failure; 0 = injection off
static long g_failAfter = 0;

static int injectFailure(void) {
  if (g_failAfter > 0 && --g_failAfter == 0) {
    return 1;
  }
  return 0;
}

void *hsu_malloc(size_t size) {
  if (injectFailure()) {
    return NULL;
  }
  return malloc(size ? size : 1);
}

void *hsu_calloc(size_t n, size_t size) {
  if (injectFailure()) {
    return NULL;
  }
  return calloc(n ? n : 1, size ? size : 1);
}

void *hsu_realloc(void *p, size_t size) {
  if (injectFailure()) {
    return NULL;
  }
  return realloc(p, size ? size : 1);
}

void hsu_free(void *p) {
  free(p);
}

char *hsu_strdup(const char *s) {
  if (!s) {
    return NULL;
  }
  size_t n = strlen(s) + 1;
  char *copy = hsu_malloc(n);
  if (copy) {
    memcpy(copy, s, n);
  }
  return copy;
}

void hsu_failAllocAfter(long n) {
  g_failAfter = n > 0 ? n : 0;
}

void *hsu_vecPush(hsuVec *v, size_t elemSize, const void *elem) {
  if (v->size == 0) {
    v->size = elemSize;
  }
  HS_ASSERT(v->size == elemSize);
  // grow geometrically
  if (v->n == v->cap) {
    size_t cap = v->cap ? 2 * v->cap : 8;
    void *data = hsu_realloc(v->data, cap * elemSize);
    if (!data) {
      return NULL;
    }
    v->data = data;
    v->cap = cap;
  }
  char *slot = (char *)v->data + v->n * elemSize;
  if (elem) {
    memcpy(slot, elem, elemSize);
  } else {
    memset(slot, 0, elemSize);
  }
  v->n++;
  return slot;
}

void hsu_vecFree(hsuVec *v) {
  hsu_free(v->data);
  v->data = NULL;
  v->n = v->cap = 0;
}

void hsu_bytesPut(hsuBytes *b, const void *src, size_t n) {
  if (b->bad || n == 0) {
    return;
  }
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + n) {
      cap *= 2;
    }
    unsigned char *data = hsu_realloc(b->data, cap);
    if (!data) {
      b->bad = 1;
      return;
    }
    b->data = data;
    b->cap = cap;
  }
  memcpy(b->data + b->n, src, n);
  b->n += n;
}

int hsu_bytesGet(hsuBytes *b, void *dst, size_t n) {
  if (b->bad || n > b->n - b->pos) {
    b->bad = 1;
    if (dst && n) {
      memset(dst, 0, n);
    }
    return -1;
  }
  if (dst && n) {
    memcpy(dst, b->data + b->pos, n);
  }
  b->pos += n;
  return 0;
}

void hsu_bytesField(hsuBytes *b, int save, void *p, size_t n) {
  if (save) {
    hsu_bytesPut(b, p, n);
  } else {
    hsu_bytesGet(b, p, n);
  }
}

void hsu_bytesFree(hsuBytes *b) {
  hsu_free(b->data);
  memset(b, 0, sizeof *b);
}
