// model_jacobian.c - joint paths between two links and the Jacobian of one link relative to
// another (OpenHRP's JointPath and JointPath::calcJacobian).
//
// Links are stored depth-first with parent < child, so the nearest common ancestor of two links
// is found without a buffer: step the larger index to its parent until both meet. The path then
// runs up from base to that ancestor (each link's own joint, crossed child to parent, sign -1)
// and down to target (crossed parent to child, sign +1); the ancestor's own joint moves both
// ends together and is not on the path. The downward part is written from the target end
// backwards so no list has to be reversed. Only 1-dof numbered joints (rotate or slide with a
// jointId) are path joints, as in OpenHRP.

#include <math.h>
#include <string.h>

#include "model.h"

// 1 if link i's joint is a path joint: a numbered rotate or slide joint
static int isPathJoint(const hsLink *l) {
  return l->jointId >= 0 && (l->jointType == hsJOINT_ROTATE || l->jointType == hsJOINT_SLIDE);
}

// nearest common ancestor of a and b (parents have smaller indices than their children)
static int commonAncestor(const hsBody *body, int a, int b) {
  while (a != b) {
    if (a > b) {
      a = body->links[a].parent;
    } else {
      b = body->links[b].parent;
    }
  }
  return a;
}

// count the path joints strictly below ancestor on the way up from link
static int countUp(const hsBody *body, int link, int ancestor) {
  int n = 0;
  for (int i = link; i != ancestor; i = body->links[i].parent) {
    n += isPathJoint(&body->links[i]);
  }
  return n;
}

int hsm_jointPath(const hsBody *body, int base, int target, int *links, int *signs, int maxJoints,
                  hsError *err) {
  if (!body || base < 0 || base >= body->nlink || target < 0 || target >= body->nlink) {
    return HS_ERR(err, hsE_INVALID, "joint path: link index out of range (base %d, target %d)",
                  base, target);
  }
  int anc = commonAncestor(body, base, target);
  int nup = countUp(body, base, anc), n = nup + countUp(body, target, anc);
  // up from base: each link's own joint, crossed from child to parent
  int k = 0;
  for (int i = base; i != anc; i = body->links[i].parent) {
    if (isPathJoint(&body->links[i])) {
      if (k < maxJoints) {
        if (links) {
          links[k] = i;
        }
        if (signs) {
          signs[k] = -1;
        }
      }
      k++;
    }
  }
  // down to target, filled from the target end backwards
  k = n - 1;
  for (int i = target; i != anc; i = body->links[i].parent) {
    if (isPathJoint(&body->links[i])) {
      if (k < maxJoints) {
        if (links) {
          links[k] = i;
        }
        if (signs) {
          signs[k] = 1;
        }
      }
      k--;
    }
  }
  return n;
}

// write the Jacobian column of path joint `link` crossed with `sign` into column c of the
// 6 x n row-major J
static void jacobianColumn(const hsBody *body, const hsBodyState *st, int link, int sign,
                           int target, double *J, int n, int c) {
  const hsLink *l = &body->links[link];
  double w[3], col[6] = {0, 0, 0, 0, 0, 0};
  hsu_rotVec(w, st->linkR + 9 * link, l->axis);
  if (l->jointType == hsJOINT_ROTATE) {
    // rotation about the world axis through the joint origin
    double len = hsu_norm(w);
    for (int k = 0; k < 3; k++) {
      w[k] /= len;
    }
    const double *pt = st->linkP + 3 * target, *pj = st->linkP + 3 * link;
    double arm[3] = {pt[0] - pj[0], pt[1] - pj[1], pt[2] - pj[2]};
    hsu_cross(col, w, arm);
    memcpy(col + 3, w, sizeof w);
  } else {
    // translation along the world axis
    memcpy(col, w, sizeof w);
  }
  for (int r = 0; r < 6; r++) {
    J[r * n + c] = sign * col[r];
  }
}

int hsm_jacobian(const hsBody *body, const hsBodyState *state, int base, int target, double *J,
                 int maxJoints, hsError *err) {
  int n = hsm_jointPath(body, base, target, NULL, NULL, 0, err);
  if (n < 0 || !J) {
    return n;
  }
  if (!state) {
    return HS_ERR(err, hsE_INVALID, "jacobian: no state");
  }
  if (n > maxJoints) {
    return HS_ERR(err, hsE_INVALID, "jacobian: %d joints on the path, room for %d", n,
                  maxJoints);
  }
  // same walk as hsm_jointPath: up from base (crossed backwards), then down from the target end
  int anc = commonAncestor(body, base, target);
  int c = 0;
  for (int i = base; i != anc; i = body->links[i].parent) {
    if (isPathJoint(&body->links[i])) {
      jacobianColumn(body, state, i, -1, target, J, n, c++);
    }
  }
  c = n - 1;
  for (int i = target; i != anc; i = body->links[i].parent) {
    if (isPathJoint(&body->links[i])) {
      jacobianColumn(body, state, i, 1, target, J, n, c--);
    }
  }
  return n;
}
