// render_context.c - the headless OpenGL context of an hsrRenderer (render.h).
//
// Device choice: with EGL_EXT_device_enumeration and EGL_EXT_platform_device, every EGL device
// is listed; a device that is not Mesa's software device (it has a DRM render node, or its
// extensions do not include EGL_MESA_device_software) is a GPU and is tried first. When no GPU
// gives a context (or HRPSIM_EGL_DEVICE=software), Mesa's surfaceless platform is used, which
// on a machine without a GPU is llvmpipe. The context is OpenGL 3.3 core, with no surface: all
// drawing goes to framebuffer objects (render_scene.c).
//
// The process's renderer (hsr_lockProcessRenderer): one per process, made on first use behind
// one mutex, which every user holds while it draws (the core's views, so the local back end's
// cameras, the ViewSimulator servants and the scheduler's cameras share one GL context).

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <EGL/egl.h>
#include <EGL/eglext.h>
#define GL_GLEXT_PROTOTYPES 1
#include <GL/glcorearb.h>

#include "render_internal.h"

// the EGL extension entry points we look up at run time
static PFNEGLQUERYDEVICESEXTPROC queryDevices;
static PFNEGLQUERYDEVICESTRINGEXTPROC queryDeviceString;
static PFNEGLGETPLATFORMDISPLAYEXTPROC getPlatformDisplay;

static int hasExtension(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *p = list; p && (p = strstr(p, name)) != NULL; p += n) {
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) {
      return 1;
    }
  }
  return 0;
}

// initialise dpy and make a 3.3 core context on it; 0 on success (dpy left initialised)
static int makeContext(hsrRenderer *r, EGLDisplay dpy) {
  EGLint major, minor;
  if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, &major, &minor)) {
    return -1;
  }
  if (!eglBindAPI(EGL_OPENGL_API)) {
    eglTerminate(dpy);
    return -1;
  }
  static const EGLint configAttr[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
  EGLConfig config = NULL;
  EGLint nconfig = 0;
  // no surface is ever made, so any config (or none, with KHR_no_config_context) will do
  const char *ext = eglQueryString(dpy, EGL_EXTENSIONS);
  if (!hasExtension(ext, "EGL_KHR_no_config_context")) {
    if (!eglChooseConfig(dpy, configAttr, &config, 1, &nconfig) || nconfig < 1) {
      eglTerminate(dpy);
      return -1;
    }
  }
  static const EGLint ctxAttr[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                   EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                   EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
  EGLContext ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, ctxAttr);
  if (ctx == EGL_NO_CONTEXT) {
    eglTerminate(dpy);
    return -1;
  }
  if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
    eglDestroyContext(dpy, ctx);
    eglTerminate(dpy);
    return -1;
  }
  r->dpy = dpy;
  r->ctx = ctx;
  return 0;
}

// 1 if device is Mesa's software device
static int isSoftwareDevice(EGLDeviceEXT dev) {
  const char *ext = queryDeviceString(dev, EGL_EXTENSIONS);
  if (hasExtension(ext, "EGL_MESA_device_software")) {
    return 1;
  }
  return 0;
}

static int tryGpuDevices(hsrRenderer *r) {
  const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (!queryDevices || !queryDeviceString || !getPlatformDisplay ||
      !hasExtension(client, "EGL_EXT_platform_device")) {
    return -1;
  }
  EGLDeviceEXT devs[16];
  EGLint n = 0;
  if (!queryDevices(16, devs, &n)) {
    return -1;
  }
  for (EGLint i = 0; i < n; i++) {
    if (isSoftwareDevice(devs[i])) {
      continue;
    }
    EGLDisplay dpy = getPlatformDisplay(EGL_PLATFORM_DEVICE_EXT, devs[i], NULL);
    if (makeContext(r, dpy) == 0) {
      const char *node = NULL;
      if (hasExtension(queryDeviceString(devs[i], EGL_EXTENSIONS), "EGL_EXT_device_drm")) {
        node = queryDeviceString(devs[i], EGL_DRM_DEVICE_FILE_EXT);
      }
      snprintf(r->platform, sizeof r->platform, "EGL device %d%s%s", (int)i, node ? " " : "",
               node ? node : "");
      return 0;
    }
  }
  return -1;
}

static int trySurfaceless(hsrRenderer *r) {
  const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (!getPlatformDisplay || !hasExtension(client, "EGL_MESA_platform_surfaceless")) {
    return -1;
  }
  EGLDisplay dpy = getPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
  if (makeContext(r, dpy) != 0) {
    return -1;
  }
  snprintf(r->platform, sizeof r->platform, "EGL surfaceless");
  return 0;
}

#if defined(__SANITIZE_ADDRESS__)
// LeakSanitizer: the OpenGL driver stack (Mesa's EGL and drivers, LLVM) keeps allocations until
// the process ends; they are not ours (test.sh's ASan stage fails on any report otherwise)
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) {
  return "leak:_dri.so\nleak:libgallium\nleak:libEGL_mesa\nleak:libLLVM\nleak:libglapi\n";
}
#endif

hsrRenderer *hsr_makeRenderer(hsError *err) {
  hsrRenderer *r = hsu_malloc(sizeof *r);
  if (!r) {
    HS_ERR(err, hsE_NOMEM, "no memory for a renderer");
    return NULL;
  }
  memset(r, 0, sizeof *r);
  queryDevices = (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
  queryDeviceString =
      (PFNEGLQUERYDEVICESTRINGEXTPROC)eglGetProcAddress("eglQueryDeviceStringEXT");
  getPlatformDisplay =
      (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
  const char *force = getenv("HRPSIM_EGL_DEVICE");
  int softwareOnly = force && strcmp(force, "software") == 0;
  if ((softwareOnly || tryGpuDevices(r) != 0) && trySurfaceless(r) != 0) {
    HS_ERR(err, hsE_UNSUPPORTED,
           "no headless OpenGL 3.3: EGL found neither a GPU device nor Mesa's surfaceless "
           "platform (install libegl-mesa0 and libgl1-mesa-dri)");
    hsu_free(r);
    return NULL;
  }
  const char *renderer = (const char *)glGetString(GL_RENDERER);
  const char *version = (const char *)glGetString(GL_VERSION);
  snprintf(r->info, sizeof r->info, "%s, OpenGL %s, %s", renderer ? renderer : "?",
           version ? version : "?", r->platform);
  r->software = renderer && (strstr(renderer, "llvmpipe") || strstr(renderer, "softpipe") ||
                             strstr(renderer, "swrast") || strstr(renderer, "Software"));
  if (hss_initPrograms(r, err) != 0) {
    hsr_freeRenderer(r);
    return NULL;
  }
  hsu_log(hsLOG_INFO, "renderer: %s%s", r->info, r->software ? " (software)" : "");
  return r;
}

void hsr_freeRenderer(hsrRenderer *r) {
  if (!r) {
    return;
  }
  if (r->ctx != EGL_NO_CONTEXT && r->ctx) {
    hss_bindRenderer(r);
    hss_freePrograms(r);
    eglMakeCurrent(r->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(r->dpy, r->ctx);
    // the display is not terminated: EGL displays are per process (the next renderer gets the
    // same one back), and terminating unloads the driver, whose few never-freed allocations
    // leak checkers could then no longer attribute to it
  }
  hsu_free(r);
}

const char *hsr_rendererInfo(const hsrRenderer *r) {
  return r ? r->info : "";
}

int hsr_rendererIsSoftware(const hsrRenderer *r) {
  return r ? r->software : 0;
}

void hss_bindRenderer(hsrRenderer *r) {
  if (eglGetCurrentContext() != r->ctx) {
    eglMakeCurrent(r->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, r->ctx);
  }
}

void hsr_releaseRenderer(hsrRenderer *r) {
  if (r && eglGetCurrentContext() == r->ctx) {
    eglMakeCurrent(r->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  }
}

//---------------------------------- the process's renderer ------------------------------------

static pthread_mutex_t gProcessLock = PTHREAD_MUTEX_INITIALIZER;
static hsrRenderer *gProcess;

hsrRenderer *hsr_lockProcessRenderer(hsError *err) {
  pthread_mutex_lock(&gProcessLock);
  if (!gProcess) {
    gProcess = hsr_makeRenderer(err);
    if (!gProcess) {
      pthread_mutex_unlock(&gProcessLock);
      return NULL;
    }
  }
  hss_bindRenderer(gProcess);
  return gProcess;
}

void hsr_unlockProcessRenderer(void) {
  hsr_releaseRenderer(gProcess);
  pthread_mutex_unlock(&gProcessLock);
}
