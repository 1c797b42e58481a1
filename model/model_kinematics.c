// model_kinematics.c - the mutable body state and forward kinematics.
//
// Links are stored depth-first, so a parent always precedes its children and one pass in index
// order computes every world pose. A link's frame is its parent's frame moved by the link's
// fixed offset (translation, rotation) and then by its joint: a rotation of q about the axis
// (rotate) or a translation of q along it (slide), the axis expressed in the link frame.

#include <string.h>

#include "model.h"

hsBodyState *hsm_makeState(const hsBody *body, hsError *err) {
  if (!body) {
    HS_ERR(err, hsE_INVALID, "no body");
    return NULL;
  }
  size_t n = (size_t)body->nlink;
  hsBodyState *st = hsu_calloc(1, sizeof *st);
  double *pool = hsu_calloc(n * (4 + 3 + 9), sizeof(double));
  if (!st || !pool) {
    hsu_free(st);
    hsu_free(pool);
    HS_ERR(err, hsE_NOMEM, "out of memory");
    return NULL;
  }
  st->body = body;
  st->q = pool;
  st->dq = pool + n;
  st->ddq = pool + 2 * n;
  st->u = pool + 3 * n;
  st->linkP = pool + 4 * n;
  st->linkR = pool + 7 * n;
  // initial configuration: joint values from the model, root where the model puts it
  for (size_t i = 0; i < n; i++) {
    st->q[i] = body->links[i].jointValue;
  }
  memcpy(st->rootP, body->links[0].translation, sizeof st->rootP);
  memcpy(st->rootR, body->links[0].R, sizeof st->rootR);
  hsm_forwardKinematics(body, st);
  return st;
}

void hsm_freeState(hsBodyState *state) {
  if (state) {
    hsu_free(state->q);
    hsu_free(state);
  }
}

void hsm_forwardKinematics(const hsBody *body, hsBodyState *st) {
  memcpy(st->linkP, st->rootP, sizeof st->rootP);
  memcpy(st->linkR, st->rootR, sizeof st->rootR);
  for (int i = 1; i < body->nlink; i++) {
    const hsLink *l = &body->links[i];
    const double *pp = st->linkP + 3 * l->parent, *pR = st->linkR + 9 * l->parent;
    double *p = st->linkP + 3 * i, *R = st->linkR + 9 * i;
    // fixed offset from the parent frame
    double off[3];
    hsu_rotVec(off, pR, l->translation);
    for (int k = 0; k < 3; k++) {
      p[k] = pp[k] + off[k];
    }
    double R0[9];
    hsu_mulMat(R0, pR, l->R);
    // joint motion about or along the axis, in the link frame
    if (l->jointType == hsJOINT_ROTATE) {
      double aa[4] = {l->axis[0], l->axis[1], l->axis[2], st->q[i]}, Rq[9];
      hsu_axisAngleToMat(Rq, aa);
      hsu_mulMat(R, R0, Rq);
    } else {
      memcpy(R, R0, sizeof R0);
      if (l->jointType == hsJOINT_SLIDE) {
        double d[3];
        hsu_rotVec(d, R0, l->axis);
        for (int k = 0; k < 3; k++) {
          p[k] += d[k] * st->q[i];
        }
      }
    }
  }
}
