// core_view.c - hsView (core.h): bodies drawn for cameras and stills, the one place that
// builds a render scene and draws a camera from its sensor. Its users: a simulation's cameras
// (core_camera.c: the local back end, `hrpsim run --local`), the ViewSimulator servants and the
// scheduler's cameras (server/view/), so every back end's pictures come from one code path.
//
// The GL context is the process's one (hsr_lockProcessRenderer, sensors/render/): every call
// here that touches GL takes it and releases it before returning, after whatever lock the
// caller holds (a simulation's, a servant's). The render scene is made on the first body.

#include <string.h>

#include "core_private.h"
#include "render.h"

struct hsView {
  hsrScene *scene;        // made with the first body (GL); NULL before
  const hsBody **bodies;  // borrowed; index = the body's index in the scene
  int nbody, cap;
};

hsView *hs_makeView(hsError *err) {
  hsView *v = hsu_calloc(1, sizeof *v);
  if (!v) {
    HS_ERR(err, hsE_NOMEM, "out of memory for a view");
  }
  return v;
}

void hs_freeView(hsView *view) {
  if (!view) {
    return;
  }
  if (view->scene) {
    // a scene exists only if the process's renderer was made: this takes it without failing
    hsr_lockProcessRenderer(NULL);
    hsr_freeScene(view->scene);
    hsr_unlockProcessRenderer();
  }
  hsu_free(view->bodies);
  hsu_free(view);
}

int hs_viewAddBody(hsView *view, const hsBody *body, hsError *err) {
  if (!view || !body) {
    return HS_ERR(err, hsE_INVALID, "no view or no body");
  }
  if (view->nbody == view->cap) {
    int cap = view->cap ? 2 * view->cap : 4;
    const hsBody **b = hsu_realloc(view->bodies, (size_t)cap * sizeof *b);
    if (!b) {
      return HS_ERR(err, hsE_NOMEM, "out of memory for a view");
    }
    view->bodies = b;
    view->cap = cap;
  }
  hsrRenderer *r = hsr_lockProcessRenderer(err);
  if (!r) {
    return err && err->code ? err->code : hsE_UNSUPPORTED;
  }
  int rc = 0;
  if (!view->scene && !(view->scene = hsr_makeScene(r, err))) {
    rc = err && err->code ? err->code : hsE_NOMEM;
  }
  int k = rc == 0 ? hsr_addBody(view->scene, body, err) : rc;
  hsr_unlockProcessRenderer();
  if (k < 0) {
    return k;
  }
  view->bodies[k] = body;
  view->nbody = k + 1;
  return k;
}

int hs_viewBodyCount(const hsView *view) {
  return view ? view->nbody : 0;
}

int hs_viewSetPose(hsView *view, int b, const double *linkP, const double *linkR, hsError *err) {
  if (!view || b < 0 || b >= view->nbody) {
    return HS_ERR(err, hsE_INVALID, "no body %d in the view", b);
  }
  return hsr_setPose(view->scene, b, linkP, linkR, err);  // poses only: no GL
}

int hs_viewRenderCamera(hsView *view, int b, int s, unsigned char *rgb, float *depth,
                        hsError *err) {
  if (!view || b < 0 || b >= view->nbody) {
    return HS_ERR(err, hsE_INVALID, "no body %d in the view", b);
  }
  const hsBody *body = view->bodies[b];
  if (s < 0 || s >= body->nsensor) {
    return HS_ERR(err, hsE_INVALID, "body '%s' has no sensor %d", body->name, s);
  }
  const hsSensor *sensor = &body->sensors[s];
  hsrCameraSpec spec;
  int rc = hsr_cameraSpec(sensor, &spec, err);
  if (rc < 0 || (!rgb && !depth)) {
    return rc;
  }
  // the camera from its link's pose as last set, as OpenHRP's ViewSimulator places it
  double p[3], R[9], T[12];
  hsr_linkPose(view->scene, b, sensor->link, p, R);
  hsr_cameraPose(T, sensor, p, R);
  hsrView v;
  hsr_cameraView(&v, &spec, T);
  if (!hsr_lockProcessRenderer(err)) {
    return err && err->code ? err->code : hsE_UNSUPPORTED;
  }
  rc = hsr_render(view->scene, &v, rgb, depth, err);
  hsr_unlockProcessRenderer();
  return rc;
}

const char *hs_rendererInfo(hsError *err) {
  hsrRenderer *r = hsr_lockProcessRenderer(err);
  if (!r) {
    return NULL;
  }
  const char *info = hsr_rendererInfo(r);
  hsr_unlockProcessRenderer();
  return info;
}
