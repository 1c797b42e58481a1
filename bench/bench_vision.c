// bench_vision.c - frames per second of the headless renderer (sensors/render) in process: the
// sample humanoid standing in the sample room, seen by the humanoid's head camera re-declared
// as COLOR_DEPTH at a given size; each frame moves a joint (new link poses), renders colour and
// metric depth and reads both back, as the ViewSimulator does for one getImageData.
//
// Usage: hrpsim-bench-vision HUMANOID.wrl ROOM.wrl WIDTH HEIGHT FRAMES
// Prints one JSON object: renderer, triangles, width, height, frames, fps and ms_per_frame (wall
// clock), cpu_ms_per_frame (CPU time of every thread of the process: on a shared machine the
// figure that does not depend on the load).

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "render.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

// CPU time of the whole process (every llvmpipe thread) [s]
static double cpuNow(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s HUMANOID.wrl ROOM.wrl WIDTH HEIGHT FRAMES\n", argv[0]);
    return 2;
  }
  int w = atoi(argv[3]), h = atoi(argv[4]), frames = atoi(argv[5]);
  hsmLoadOptions opt;
  hsm_defaultLoadOptions(&opt);
  opt.readImage = 1;
  hsError err = {0};
  hsBody *robot = hsm_loadVrml(argv[1], &opt, NULL, 0, NULL, &err);
  hsBody *room = robot ? hsm_loadVrml(argv[2], &opt, NULL, 0, NULL, &err) : NULL;
  if (!room) {
    fprintf(stderr, "load: %s\n", err.message);
    return 1;
  }
  hsrRenderer *r = hsr_makeRenderer(&err);
  if (!r) {
    fprintf(stderr, "renderer: %s\n", err.message);
    return 1;
  }
  hsrScene *s = hsr_makeScene(r, &err);
  if (!s || hsr_addBody(s, room, &err) < 0 || hsr_addBody(s, robot, &err) < 0) {
    fprintf(stderr, "scene: %s\n", err.message);
    return 1;
  }
  int cam = -1;
  for (int i = 0; i < robot->nsensor && cam < 0; i++) {
    if (robot->sensors[i].type == hsSENSOR_VISION) {
      cam = i;
    }
  }
  if (cam < 0) {
    fprintf(stderr, "the humanoid has no VisionSensor\n");
    return 1;
  }
  hsrCameraSpec spec;
  if (hsr_cameraSpec(&robot->sensors[cam], &spec, &err) != 0) {
    fprintf(stderr, "camera: %s\n", err.message);
    return 1;
  }
  spec.type = hsCAMERA_COLOR_DEPTH;
  spec.width = w;
  spec.height = h;
  hsBodyState *st = hsm_makeState(robot, &err);
  unsigned char *rgb = malloc((size_t)w * h * 3);
  float *depth = malloc((size_t)w * h * sizeof(float));
  int link = robot->sensors[cam].link;
  // a neck-like joint to move: the camera's own link if it has a joint, else none
  int moving = hsm_hasOneDofJoint(&robot->links[link]) ? link : -1;
  double t0 = 0, c0 = 0;
  for (int k = -5; k < frames; k++) {  // 5 warm-up frames
    if (k == 0) {
      t0 = now();
      c0 = cpuNow();
    }
    if (moving >= 0) {
      st->q[moving] = 0.3 * sin(0.05 * k);
    }
    hsm_forwardKinematics(robot, st);
    hsr_setPose(s, 1, st->linkP, st->linkR, NULL);
    double T[12];
    hsr_cameraPose(T, &robot->sensors[cam], &st->linkP[3 * link], &st->linkR[9 * link]);
    hsrView v;
    hsr_cameraView(&v, &spec, T);
    if (hsr_render(s, &v, rgb, depth, &err) != 0) {
      fprintf(stderr, "render: %s\n", err.message);
      return 1;
    }
  }
  double dt = now() - t0, dc = cpuNow() - c0;
  printf("{\"renderer\": \"%s\", \"software\": %d, \"triangles\": %ld, \"width\": %d, "
         "\"height\": %d, \"frames\": %d, \"fps\": %.1f, \"ms_per_frame\": %.3f, "
         "\"cpu_ms_per_frame\": %.3f}\n",
         hsr_rendererInfo(r), hsr_rendererIsSoftware(r),
         hsm_triangleCount(robot) + hsm_triangleCount(room), w, h, frames, frames / dt,
         1e3 * dt / frames, 1e3 * dc / frames);
  free(rgb);
  free(depth);
  hsm_freeState(st);
  hsr_freeScene(s);
  hsr_freeRenderer(r);
  hsm_freeBody(robot);
  hsm_freeBody(room);
  return 0;
}
