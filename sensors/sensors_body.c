// sensors_body.c - hss_update: the readings of force sensors, rate gyros and accelerometers after
// a step (see sensors.h for what each reads). Each sensor frame is its link's frame moved by the
// sensor's translation and turned by its rotation: origin p_s = p_k + R_k t, orientation
// R_s = R_k R. World quantities are turned into the sensor frame with R_s^T.

#include <string.h>

#include "sensors_private.h"

// the velocity of the point at offset t (link frame) of a link moving with origin velocity v and
// angular velocity w while oriented R: v + w x (R t)
static void pointVelocity(double out[3], const double v[3], const double w[3], const double R[9],
                          const double t[3]) {
  double r[3], x[3];
  hsu_rotVec(r, R, t);
  hsu_cross(x, w, r);
  for (int j = 0; j < 3; j++) {
    out[j] = v[j] + x[j];
  }
}

void hss_update(hssState *s, const hsdWorld *w, int ch) {
  const hsBody *b = s->body;
  memset(s->readings, 0, 6 * (size_t)b->nsensor * sizeof *s->readings);
  const hsBodyState *st = hsd_state(w, ch);
  if (!st || st->body != b || hsd_stepCount(w) == 0) {
    return;  // nothing measured yet
  }
  double g[3], idt = 1.0 / hsd_timeStep(w);
  hsd_gravity(w, g);
  for (int i = 0; i < b->nsensor; i++) {
    const hsSensor *sn = &b->sensors[i];
    int k = sn->link;
    const hsdLinkMotion *m = hsd_linkMotion(w, ch, k);
    const double *pk = st->linkP + 3 * k, *Rk = st->linkR + 9 * k;
    double Rs[9], *out = s->readings + 6 * i;
    hsu_mulMat(Rs, Rk, s->R[i]);
    switch (sn->type) {
      case hsSENSOR_FORCE: {
        double ps[3], r[3], W[6];
        hsu_rotVec(r, Rk, sn->translation);
        for (int j = 0; j < 3; j++) {
          ps[j] = pk[j] + r[j];
        }
        hsd_jointWrench(w, ch, k, ps, W);
        hsu_rotVecT(out, Rs, W);
        hsu_rotVecT(out + 3, Rs, W + 3);
        break;
      }
      case hsSENSOR_RATEGYRO:
        hsu_rotVecT(out, Rs, m->w);
        break;
      case hsSENSOR_ACCELERATION: {
        double v0[3], v[3], a[3];
        pointVelocity(v0, m->vStart, m->wStart, m->RStart, sn->translation);
        pointVelocity(v, m->v, m->w, Rk, sn->translation);
        for (int j = 0; j < 3; j++) {
          a[j] = (v[j] - v0[j]) * idt - g[j];
        }
        hsu_rotVecT(out, Rs, a);
        break;
      }
      default:
        break;
    }
    hss_applyNoise(s, i);
  }
}
