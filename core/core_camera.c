// core_camera.c - hsSim's vision sensors (core.h): every character drawn in one view
// (hsView, core_view.c) per simulation, posed from the state before each picture, the camera
// placed from its sensor as the ViewSimulator places it (the same code draws the ViewSimulator's
// pictures). The view is made on the first picture; the GL context is the process's one.

#include <string.h>

#include "core_private.h"
#include "render.h"

struct hsCameras {
  hsView *view;
  int *index;  // per character: its body's index in the view
  int nchar;   // characters added so far
};

void hs_freeCameras(struct hsCameras *c) {
  if (!c) {
    return;
  }
  hs_freeView(c->view);  // GL work takes the process's render lock
  hsu_free(c->index);
  hsu_free(c);
}

// the vision sensor s of character ch and its spec; 0 or hsE_INVALID
static int cameraOf(const hsSim *sim, int ch, int s, const hsSensor **sensor, hsrCameraSpec *spec,
                    hsError *err) {
  const hsBody *b = hs_body(sim, ch);
  if (!b || s < 0 || s >= b->nsensor) {
    return HS_ERR(err, hsE_INVALID, "no sensor %d of character %d", s, ch);
  }
  *sensor = &b->sensors[s];
  return hsr_cameraSpec(*sensor, spec, err);
}

int hs_cameraSize(const hsSim *sim, int ch, int s, int *width, int *height, hsError *err) {
  const hsSensor *sensor = NULL;
  hsrCameraSpec spec;
  int rc = cameraOf(sim, ch, s, &sensor, &spec, err);
  *width = rc == 0 ? spec.width : 0;
  *height = rc == 0 ? spec.height : 0;
  return rc;
}

int hs_cameraType(const hsSim *sim, int ch, int s) {
  const hsSensor *sensor = NULL;
  hsrCameraSpec spec;
  return cameraOf(sim, ch, s, &sensor, &spec, NULL) == 0 ? (int)spec.type : -1;
}

double hs_cameraFrameRate(const hsSim *sim, int ch, int s) {
  const hsSensor *sensor = NULL;
  hsrCameraSpec spec;
  return cameraOf(sim, ch, s, &sensor, &spec, NULL) == 0 ? spec.frameRate : 0.0;
}

// core.h's bits are render.h's (core.h includes nothing of sensors/render)
_Static_assert((int)hsIMAGE_COLOR == (int)hsrIMAGE_COLOR &&
                   (int)hsIMAGE_MONO == (int)hsrIMAGE_MONO &&
                   (int)hsIMAGE_DEPTH == (int)hsrIMAGE_DEPTH,
               "core.h's hsIMAGE_* differ from render.h's hsrIMAGE_*");

int hs_cameraImages(int type) {
  return hsr_cameraImages(type);
}

void hs_rgbToMono(unsigned char *mono, const unsigned char *rgb, int n) {
  hsr_rgbToMono(mono, rgb, n);
}

// the view with every character of sim in it; NULL with err
static struct hsCameras *camerasOf(hsSim *sim, hsError *err) {
  struct hsCameras *c = sim->cameras;
  if (!c) {
    c = hsu_calloc(1, sizeof *c);
    if (!c || !(c->view = hs_makeView(err))) {
      hsu_free(c);
      HS_ERR(err, hsE_NOMEM, "out of memory for the cameras' view");
      return NULL;
    }
    sim->cameras = c;
  }
  if (c->nchar < sim->nchar) {
    int *index = hsu_realloc(c->index, (size_t)sim->nchar * sizeof *index);
    if (!index) {
      HS_ERR(err, hsE_NOMEM, "out of memory for the cameras' view");
      return NULL;
    }
    c->index = index;
    for (; c->nchar < sim->nchar; c->nchar++) {
      int k = hs_viewAddBody(c->view, hs_body(sim, c->nchar), err);
      if (k < 0) {
        return NULL;
      }
      c->index[c->nchar] = k;
    }
  }
  return c;
}

int hs_renderCamera(hsSim *sim, int ch, int s, unsigned char *rgb, float *depth, hsError *err) {
  const hsSensor *sensor = NULL;
  hsrCameraSpec spec;
  hs_lock(sim);
  int rc = cameraOf(sim, ch, s, &sensor, &spec, err);
  struct hsCameras *c = rc == 0 ? camerasOf(sim, err) : NULL;
  if (rc == 0 && !c) {
    rc = err && err->code ? err->code : hsE_UNSUPPORTED;
  }
  // every character at its current link poses, then the camera from its link
  for (int k = 0; rc == 0 && k < sim->nchar; k++) {
    rc = hs_viewSetPose(c->view, c->index[k], hs_linkP(sim, k), hs_linkR(sim, k), err);
  }
  if (rc == 0) {
    rc = hs_viewRenderCamera(c->view, c->index[ch], s, rgb, depth, err);
  }
  hs_unlock(sim);
  return rc;
}
