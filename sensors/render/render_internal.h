// render_internal.h - what the files of sensors/render share: the renderer's fields and its
// shader program (private; other modules include render.h only).

#ifndef HRPSIM_SENSORS_RENDER_RENDER_INTERNAL_H_
#define HRPSIM_SENSORS_RENDER_RENDER_INTERNAL_H_

#include <EGL/egl.h>

#include "render.h"

// lights one draw may use (more are dropped with a warning when a scene is drawn)
#define HSS_MAX_LIGHTS 8

// uniform locations of the scene program
typedef struct hssUniforms {
  int modelView, proj, normal;
  int diffuse, emissive, specular, shininess, ambient, transparency;
  int useVertexColor, useTexture, texComponents, tex;
  int nlight, positional, lightPos, lightDir, lightColor, lightParams, lightAtten, lightCos;
} hssUniforms;

struct hsrRenderer {
  EGLDisplay dpy;
  EGLContext ctx;
  char platform[128];  // "EGL surfaceless", "EGL device 0 /dev/dri/card0"
  char info[512];      // renderer, GL version, platform
  int software;        // 1 for llvmpipe and other software rasterisers
  unsigned program;    // the scene shader program
  unsigned depthProgram;               // the depth pre-pass program
  int depthModelView, depthProj;       // its uniforms
  hssUniforms u;
};

// make r's context current in the calling thread (if it is not already)
void hss_bindRenderer(hsrRenderer *r);

// compile the scene program into r (context current); 0 or hsE_UNSUPPORTED with err
int hss_initPrograms(hsrRenderer *r, hsError *err);

// delete r's programs (context current)
void hss_freePrograms(hsrRenderer *r);

#endif  // HRPSIM_SENSORS_RENDER_RENDER_INTERNAL_H_
