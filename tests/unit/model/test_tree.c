// test_tree.c - hsm_treeOrder (depth-first order of a link tree given as parent indices, siblings
// by rank) and hsm_hasOneDofJoint.

#include <string.h>

#include "model.h"
#include "test_support.h"

// a tree listed out of order: 0 <- 3 (root) ; 3 -> 1, 3 -> 4 ; 1 -> 2 ; 4 -> 0
static void testOrder(void) {
  int parent[5] = {4, 3, 1, -1, 3};
  int order[5];
  hsError err = {0};
  CU_ASSERT_EQUAL_FATAL(hsm_treeOrder(parent, NULL, 5, order, &err), 0);
  int want[5] = {3, 1, 2, 4, 0};  // siblings 1 and 4 in index order
  CU_ASSERT_EQUAL(memcmp(order, want, sizeof want), 0);
  // ranks reverse the siblings
  int rank[5] = {0, 9, 0, 0, 1};
  CU_ASSERT_EQUAL_FATAL(hsm_treeOrder(parent, rank, 5, order, &err), 0);
  int wantRanked[5] = {3, 4, 0, 1, 2};
  CU_ASSERT_EQUAL(memcmp(order, wantRanked, sizeof wantRanked), 0);
  // a parent always comes before its children
  for (int k = 0; k < 5; k++) {
    for (int j = k + 1; j < 5; j++) {
      CU_ASSERT_NOT_EQUAL(parent[order[k]], order[j]);
    }
  }
}

static void testBadTrees(void) {
  struct {
    int parent[4];
    const char *why;
  } cases[] = {
      {{-1, 0, 7, 1}, "out of range"},
      {{-1, 0, -1, 1}, "more than one root"},
      {{1, 0, 1, 2}, "no root"},
      {{-1, 0, 3, 2}, "not connected"},  // 2 and 3 form a cycle beside the tree
      {{-1, 1, 0, 0}, "out of range"},   // a link that is its own parent
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int order[4];
    hsError err = {0};
    CU_ASSERT_EQUAL(hsm_treeOrder(cases[i].parent, NULL, 4, order, &err), hsE_INVALID);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, cases[i].why));
  }
}

static void testOneDof(void) {
  hsLink l;
  memset(&l, 0, sizeof l);
  l.parent = 0;
  hstJoint one[] = {hsJOINT_ROTATE, hsJOINT_SLIDE};
  hstJoint other[] = {hsJOINT_FREE, hsJOINT_FIXED, hsJOINT_CRAWLER};
  for (int i = 0; i < 2; i++) {
    l.jointType = one[i];
    CU_ASSERT_EQUAL(hsm_hasOneDofJoint(&l), 1);
  }
  for (int i = 0; i < 3; i++) {
    l.jointType = other[i];
    CU_ASSERT_EQUAL(hsm_hasOneDofJoint(&l), 0);
  }
  l.jointType = hsJOINT_ROTATE;
  l.parent = -1;  // a root's joint connects it to the world
  CU_ASSERT_EQUAL(hsm_hasOneDofJoint(&l), 0);
  CU_ASSERT_EQUAL(hsm_hasOneDofJoint(NULL), 0);
}

void register_tree(void) {
  CU_pSuite s = hst_addSuite("model_tree");
  CU_add_test(s, "depth-first order, siblings by rank", testOrder);
  CU_add_test(s, "what is not one tree is refused", testBadTrees);
  CU_add_test(s, "1-dof joints", testOneDof);
}
