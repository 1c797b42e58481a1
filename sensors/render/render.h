// render.h - headless rendering of bodies for vision sensors (OpenHRP's VisionSensor) and still
// views: an OpenGL context through EGL with no display, scenes built from hsBody visual shapes,
// and images read back as RGB bytes and metric depth.
//
// A renderer (hsrRenderer) owns one EGL display and one OpenGL 3.3 core context. It picks the
// device by itself: a GPU's driver when EGL lists a hardware device (EGL_EXT_device_enumeration,
// a device with a DRM node or a vendor driver), otherwise Mesa's software rasteriser (llvmpipe)
// on the surfaceless platform (EGL_MESA_platform_surfaceless); HRPSIM_EGL_DEVICE=software forces
// the software path. hsr_rendererInfo names what was chosen. Rendering goes into framebuffer
// objects, never a window.
//
// A GL context is current in one thread at a time: every call below makes the renderer's context
// current in the calling thread; a program that calls from several threads serialises the calls
// and calls hsr_releaseRenderer at the end of each series (then another thread may call).
//
// A scene (hsrScene) holds the GPU copies of the bodies added to it (their visual shapes with
// appearances, materials, per-vertex colours, textures when the body was loaded with images) and
// their lights, and each body's link poses as last set. hsr_render draws it from a view:
// - camera frame as VRML's (and OpenHRP's): the camera looks along its -z axis, y up, x right;
// - fieldOfView is the horizontal angle (as Java3D's View in OpenHRP 3.1's ViewSimulator);
//   pixels are square, so the vertical angle is 2 atan(tan(fov / 2) height / width);
// - near and far are the front and back clip distances [m];
// - images are row-major with the TOP row first; rgb holds 3 bytes per pixel;
// - depth is metric: the distance along the optical axis (-z in the camera frame) to the
//   surface seen at each pixel centre [m], and `far` where nothing is seen. Shading follows
// VRML97's lighting model (emissive + per light: ambient + Lambert diffuse + Blinn specular, with
// attenuation and spot cut-off), directional lights per vertex, point and spot lights per pixel; a
// texture or vertex colours without a Material are unlit (VRML97), and a shape that nothing
// colours (no Material, texture or vertex colours) takes VRML's default Material (diffuse 0.8
// grey, ambientIntensity 0.2), lit, where VRML97 says unlit white. A scene with no
// directional or point light that is on is also lit by a headlight (a white directional light of
// intensity 1 along the view direction, as VRML browsers' default NavigationInfo headlight) so that
// it is never black. At most 8 lights. No anti-aliasing: one sample per pixel centre, so results
// are deterministic for one renderer.

#ifndef HRPSIM_SENSORS_RENDER_RENDER_H_
#define HRPSIM_SENSORS_RENDER_RENDER_H_

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

//---------------------------------- types -----------------------------------------------------

typedef struct hsrRenderer hsrRenderer;  // an EGL display + OpenGL context (opaque)
typedef struct hsrScene hsrScene;        // bodies on the GPU and their poses (opaque)

// where a picture is taken from and how
typedef struct hsrView {
  double T[12];        // camera frame in the world, 3x4 [R t]: looks along -z, y up [m]
  double fieldOfView;  // horizontal [rad], in (0, pi)
  double nearClip;     // front clip distance [m], > 0
  double farClip;      // back clip distance [m], > nearClip
  int width, height;   // [pixel], 1 .. 8192
} hsrView;

// OpenHRP's camera types (Camera::CameraType order)
typedef enum hstCamera {
  hsCAMERA_NONE = 0,
  hsCAMERA_COLOR,
  hsCAMERA_MONO,
  hsCAMERA_DEPTH,
  hsCAMERA_COLOR_DEPTH,
  hsCAMERA_MONO_DEPTH
} hstCamera;

// what a VisionSensor's specValues declare (frontClipDistance, backClipDistance, fieldOfView,
// type, width, height, frameRate)
typedef struct hsrCameraSpec {
  hstCamera type;
  double nearClip, farClip;  // [m]
  double fieldOfView;        // [rad]
  int width, height;         // [pixel]
  double frameRate;          // [1/s]
} hsrCameraSpec;

//---------------------------------- renderer --------------------------------------------------

// open a headless GL context (device chosen as above; the choice goes to the log at INFO).
// NULL with err (hsE_UNSUPPORTED: no usable EGL device or no OpenGL 3.3) on failure. Free with
// hsr_freeRenderer after every scene made from it.
hsrRenderer *hsr_makeRenderer(hsError *err);

// release a renderer; NULL is a no-op
void hsr_freeRenderer(hsrRenderer *r);

// one line naming the device, e.g. "llvmpipe (LLVM 15.0.6, 256 bits), OpenGL 4.5 (Core
// Profile) Mesa 22.3.6, EGL surfaceless"; owned by r
const char *hsr_rendererInfo(const hsrRenderer *r);

// 1 if the renderer is a software rasteriser (llvmpipe, softpipe, swrast), else 0
int hsr_rendererIsSoftware(const hsrRenderer *r);

// make r's context no longer current in the calling thread (so another thread may use it)
void hsr_releaseRenderer(hsrRenderer *r);

// the process's renderer (one GL context per process, made on first use) with the process's
// render lock taken: every user of it in the process draws between this call and
// hsr_unlockProcessRenderer (which releases the context from the thread, then the lock). NULL
// with err (hsE_UNSUPPORTED: no headless GL) and the lock NOT held when it cannot be made (the
// next call tries again). The renderer is the process's: never freed.
hsrRenderer *hsr_lockProcessRenderer(hsError *err);

// release the process's renderer from the calling thread and let go of its lock
void hsr_unlockProcessRenderer(void);

//---------------------------------- scenes ----------------------------------------------------

// an empty scene drawn by r (which must outlive it); NULL with err on failure
hsrScene *hsr_makeScene(hsrRenderer *r, hsError *err);

// release a scene and its GPU objects; NULL is a no-op
void hsr_freeScene(hsrScene *s);

// add body (borrowed: must outlive the scene) at its initial configuration; uploads its visual
// shapes (link shapeRefs; sensor shapes are not drawn) and textures. Returns the body's index in
// the scene (0, 1, ...) or a negative code with err.
int hsr_addBody(hsrScene *s, const hsBody *body, hsError *err);

// set body b's link poses in the world: linkP 3 and linkR 9 (row-major) per link, as in
// hsBodyState. Returns 0, or hsE_INVALID for a bad index or a non-finite number (poses kept).
int hsr_setPose(hsrScene *s, int b, const double *linkP, const double *linkR, hsError *err);

// the world pose of body b's link (as last set) into p[3], R[9]; hsE_INVALID for bad indices
int hsr_linkPose(const hsrScene *s, int b, int link, double p[3], double R[9]);

// draw the scene from view and read the picture back: rgb (width * height * 3 bytes) and depth
// (width * height floats, metres), either may be NULL. Returns 0, or hsE_INVALID (bad view) /
// hsE_NOMEM / hsE_UNSUPPORTED (GL failure) with err.
int hsr_render(hsrScene *s, const hsrView *view, unsigned char *rgb, float *depth, hsError *err);

// the bounding box of everything drawn in the scene at the current poses, world frame; returns 0
// or -1 when the scene is empty
int hsr_sceneBounds(const hsrScene *s, double lo[3], double hi[3]);

//---------------------------------- cameras and images ----------------------------------------

// read a Vision sensor's specValues; hsE_INVALID with err naming the sensor when the sensor is
// not a Vision sensor or the values are missing or out of range (type 0..5, width and height
// 1..8192, 0 < near < far, 0 < fov < pi, frameRate > 0 and finite)
int hsr_cameraSpec(const hsSensor *sensor, hsrCameraSpec *spec, hsError *err);

// the images a camera type makes, the one table of them (core.h's hs_cameraImages answers with
// it; the ViewSimulator reads it): a set of the bits below, 0 for NONE or a bad type. COLOR
// and COLOR_DEPTH give colour, MONO and MONO_DEPTH mono, DEPTH and the two *_DEPTH depth.
enum { hsrIMAGE_COLOR = 1, hsrIMAGE_MONO = 2, hsrIMAGE_DEPTH = 4 };
int hsr_cameraImages(int type);

// the camera frame of sensor in the world, 3x4 [R t], from its link's world pose
void hsr_cameraPose(double T[12], const hsSensor *sensor, const double linkP[3],
                    const double linkR[9]);

// a view for camera spec placed at T
void hsr_cameraView(hsrView *view, const hsrCameraSpec *spec, const double T[12]);

// the luminance of n RGB pixels into mono: (0.299 R + 0.587 G + 0.114 B) truncated to a byte,
// as OpenHRP's viewer computes it
void hsr_rgbToMono(unsigned char *mono, const unsigned char *rgb, int n);

// write an 8-bit PNG (channels 1 gray, 3 RGB), rows top first; 0 or hsE_IO with err
int hsr_writePng(const char *path, const unsigned char *pixels, int width, int height,
                 int channels, hsError *err);

// write a 16-bit grayscale PNG (e.g. depth in millimetres), rows top first; 0 or hsE_IO
int hss_writePng16(const char *path, const unsigned short *pixels, int width, int height,
                   hsError *err);

// metric depth [m] to whole millimetres, rounded, clamped to 0..65535
void hsr_depthToMillimetres(unsigned short *mm, const float *depth, int n);

// the world bounding box of body b's visual shapes at its current pose; 0, -1 when b is out of
// range or has no visual vertices
int hsr_bodyBounds(const hsrScene *s, int b, double lo[3], double hi[3]);

// a view that frames the box lo..hi (a still of the characters): the eye looks at the box's
// centre from azimuth [rad] (about z, from +x) and elevation [rad] (above the horizontal), with
// the horizontal field of view fov [rad], as close as it can be while every corner of the box
// stays inside the middle `fill` (0 < fill <= 1) of the image along both axes; width x height
// pixels; near and far clip leave room for the ground around the box (far: 30 m past the box)
void hsr_framingView(hsrView *view, const double lo[3], const double hi[3], double azimuth,
                     double elevation, double fov, double fill, int width, int height);

// a view of the whole scene from a default viewpoint: from the front-right and above the
// bounding box's centre (direction (1, -1, 0.7) normalised for which = 0; which 1 and 2 turn it
// by 120 and 240 degrees about the vertical), looking at the centre, far enough that the box
// fits the field of view (0.8 rad); width x height pixels. Returns 0, -1 for an empty scene.
int hsr_overviewView(const hsrScene *s, int which, int width, int height, hsrView *view);

#ifdef __cplusplus
}
#endif
#endif  // HRPSIM_SENSORS_RENDER_RENDER_H_
