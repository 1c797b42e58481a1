// test_bytes.c - hsuBytes, the byte record saved states are written in: fields come back in
// the order they were put, a read past the end fails (zeroing what it was to fill) and every
// read after it too, a failed allocation marks the record bad and drops what follows.

#include <CUnit/CUnit.h>

#include <string.h>

#include "test_support.h"
#include "util.h"

static void testRoundTrip(void) {
  hsuBytes b = {0};
  double x = 1.0 / 3.0, v[3] = {1e-300, -0.0, 4.5};
  int n = 7;
  hsu_bytesField(&b, 1, &x, sizeof x);
  hsu_bytesField(&b, 1, v, sizeof v);
  hsu_bytesPut(&b, &n, sizeof n);
  for (int i = 0; i < 1000; i++) {
    hsu_bytesPut(&b, &i, sizeof i);  // grows past its first allocation
  }
  CU_ASSERT_EQUAL(b.n, sizeof x + sizeof v + sizeof n + 1000 * sizeof(int));
  CU_ASSERT_FALSE(b.bad);
  double y = 0, w[3] = {0};
  int m = 0, last = -1;
  hsu_bytesField(&b, 0, &y, sizeof y);
  hsu_bytesField(&b, 0, w, sizeof w);
  CU_ASSERT_EQUAL(hsu_bytesGet(&b, &m, sizeof m), 0);
  CU_ASSERT_EQUAL(hsu_bytesGet(&b, NULL, 999 * sizeof(int)), 0);  // skipped
  CU_ASSERT_EQUAL(hsu_bytesGet(&b, &last, sizeof last), 0);
  CU_ASSERT(memcmp(&x, &y, sizeof x) == 0 && memcmp(v, w, sizeof v) == 0);  // the same bits
  CU_ASSERT_EQUAL(m, 7);
  CU_ASSERT_EQUAL(last, 999);
  // past the end: -1, the destination zeroed, and the record stays bad
  int more = 5;
  CU_ASSERT_EQUAL(hsu_bytesGet(&b, &more, sizeof more), -1);
  CU_ASSERT_EQUAL(more, 0);
  CU_ASSERT_TRUE(b.bad);
  CU_ASSERT_EQUAL(hsu_bytesGet(&b, NULL, 0), -1);
  hsu_bytesFree(&b);
  CU_ASSERT_PTR_NULL(b.data);
  CU_ASSERT_EQUAL(b.n, 0);
}

static void testAllocationFailure(void) {
  hsuBytes b = {0};
  int i = 1;
  hsu_failAllocAfter(1);
  hsu_bytesPut(&b, &i, sizeof i);
  hsu_failAllocAfter(0);
  CU_ASSERT_TRUE(b.bad);
  CU_ASSERT_EQUAL(b.n, 0);
  hsu_bytesPut(&b, &i, sizeof i);  // dropped: the record is already bad
  CU_ASSERT_EQUAL(b.n, 0);
  hsu_bytesFree(&b);
}

void register_bytes(void) {
  CU_pSuite s = hst_addSuite("util_bytes");
  CU_add_test(s, "fields come back in order, bit for bit; reads past the end fail",
              testRoundTrip);
  CU_add_test(s, "a failed allocation marks the record bad", testAllocationFailure);
}
