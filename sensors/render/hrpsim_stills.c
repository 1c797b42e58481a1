// hrpsim_stills.c - hrpsim-stills: still pictures of a finished run, framed on its characters.
// `hrpsim run` (python/hrpsim/stills.py) writes a job on stdin and reads one JSON line per
// still from stdout. The job is plain text, one directive per line:
//
//   size W H                    image size in pixels (default 640 480)
//   view AZIMUTH ELEVATION FOV  eye direction [rad] and horizontal field of view [rad]
//   fill F                      share of the image the framed box may fill (default 0.85)
//   model PATH                  a model file (VRML or URDF, path or file:// URL); the first is
//                               body 0, the next body 1, ...
//   focus B [B ...]             bodies whose bounding box each still frames (default: all)
//   still OUT.png               start a still written to OUT.png
//   pose B N                    body B's N link poses follow, one line per link in link order:
//                               px py pz R00 R01 R02 R10 R11 R12 R20 R21 R22 (world, R row-major)
//   end                         render the still started last, with the poses given so far
//
// For each `end` it prints {"width", "height", "T" (camera frame 3x4, looks along -z),
// "fov", "near", "far", "lo", "hi" (the framed box), "sky" (the background's colours at the
// top and bottom rows)}. Exit status 0, or 1 with one line on stderr naming the job line that
// failed.
//
// A still's background is a sky: pixels no surface covers (their depth is the far clip
// distance the renderer clears to) take a vertical gradient from kSkyTop in the top row to
// kSkyBottom in the bottom one, so that the scene reads as a picture. Cameras (render_camera.c,
// the view server) keep OpenHRP's black background: this is the stills tool's alone.

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

enum { kMaxBodies = 64, kMaxLine = 4096 };

// the sky of a still: its colour in the top row and in the bottom row (linear in between)
static const unsigned char kSkyTop[3] = {118, 163, 216};
static const unsigned char kSkyBottom[3] = {214, 228, 242};

typedef struct Job {
  int width, height;
  double azimuth, elevation, fov, fill;
  int nbody;
  hsBody *bodies[kMaxBodies];
  int nfocus;
  int focus[kMaxBodies];
  char out[kMaxLine];
} Job;

static int fail(int line, const char *what, const char *detail) {
  fprintf(stderr, "hrpsim-stills: job line %d: %s%s%s\n", line, what, detail ? ": " : "",
          detail ? detail : "");
  return 1;
}

// the framed box of the focus bodies (every body when none is named); -1 when empty
static int focusBounds(const hsrScene *s, const Job *job, double lo[3], double hi[3]) {
  int any = 0;
  for (int j = 0; j < 3; j++) {
    lo[j] = 1e300;
    hi[j] = -1e300;
  }
  int n = job->nfocus ? job->nfocus : job->nbody;
  for (int i = 0; i < n; i++) {
    double blo[3], bhi[3];
    if (hsr_bodyBounds(s, job->nfocus ? job->focus[i] : i, blo, bhi) == 0) {
      for (int j = 0; j < 3; j++) {
        lo[j] = blo[j] < lo[j] ? blo[j] : lo[j];
        hi[j] = bhi[j] > hi[j] ? bhi[j] : hi[j];
      }
      any = 1;
    }
  }
  return any ? 0 : -1;
}

// paint the sky into the w x h rgb image wherever depth is the far clip distance far (no
// surface): row y gets kSkyTop + (kSkyBottom - kSkyTop) y / (h - 1), rounded
static void paintSky(unsigned char *rgb, const float *depth, int w, int h, double far) {
  for (int y = 0; y < h; y++) {
    double t = h > 1 ? (double)y / (h - 1) : 0.0;
    unsigned char c[3];
    for (int j = 0; j < 3; j++) {
      c[j] = (unsigned char)(kSkyTop[j] + (kSkyBottom[j] - kSkyTop[j]) * t + 0.5);
    }
    for (int x = 0; x < w; x++) {
      size_t i = (size_t)y * (size_t)w + (size_t)x;
      if (depth[i] >= (float)far) {
        memcpy(rgb + 3 * i, c, 3);
      }
    }
  }
}

static int renderStill(hsrScene *s, const Job *job, unsigned char *rgb, float *depth,
                       int line) {
  double lo[3], hi[3];
  if (focusBounds(s, job, lo, hi) != 0) {
    return fail(line, "nothing to frame", NULL);
  }
  hsrView v;
  hsr_framingView(&v, lo, hi, job->azimuth, job->elevation, job->fov, job->fill, job->width,
                  job->height);
  hsError err = {0};
  if (hsr_render(s, &v, rgb, depth, &err) != 0) {
    return fail(line, job->out, err.message);
  }
  paintSky(rgb, depth, job->width, job->height, v.farClip);
  if (hsr_writePng(job->out, rgb, job->width, job->height, 3, &err) != 0) {
    return fail(line, job->out, err.message);
  }
  printf("{\"width\": %d, \"height\": %d, \"T\": [", job->width, job->height);
  for (int i = 0; i < 12; i++) {
    printf("%s%.9g", i ? ", " : "", v.T[i]);
  }
  printf("], \"fov\": %.9g, \"near\": %.9g, \"far\": %.9g, \"lo\": [%.9g, %.9g, %.9g], "
         "\"hi\": [%.9g, %.9g, %.9g], \"sky\": [[%d, %d, %d], [%d, %d, %d]]}\n", v.fieldOfView,
         v.nearClip, v.farClip, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], kSkyTop[0], kSkyTop[1],
         kSkyTop[2], kSkyBottom[0], kSkyBottom[1], kSkyBottom[2]);
  fflush(stdout);
  return 0;
}

// read body b's n link poses (n lines) and set them in the scene
static int readPose(FILE *in, hsrScene *s, const Job *job, int b, int n, int *line) {
  if (b < 0 || b >= job->nbody || n != job->bodies[b]->nlink) {
    return fail(*line, "pose: no such body, or not its number of links", NULL);
  }
  double *p = malloc(sizeof(double) * 3 * (size_t)n), *R = malloc(sizeof(double) * 9 * (size_t)n);
  int rc = 0;
  for (int k = 0; k < n && rc == 0; k++) {
    double *q = &p[3 * k], *r = &R[9 * k];
    (*line)++;
    if (fscanf(in, "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &q[0], &q[1], &q[2], &r[0],
               &r[1], &r[2], &r[3], &r[4], &r[5], &r[6], &r[7], &r[8]) != 12) {
      rc = fail(*line, "pose: expected 12 numbers", NULL);
    }
  }
  hsError err = {0};
  if (rc == 0 && hsr_setPose(s, b, p, R, &err) != 0) {
    rc = fail(*line, "pose", err.message);
  }
  free(p);
  free(R);
  return rc;
}

// run the job read from in; 0 or 1 (a message on stderr)
static int runJob(FILE *in, Job *job) {
  hsrRenderer *r = NULL;
  hsrScene *s = NULL;
  unsigned char *rgb = NULL;
  float *depth = NULL;
  char buf[kMaxLine], word[32];
  int line = 0, rc = 0;
  hsError err = {0};
  while (rc == 0 && fscanf(in, "%31s", word) == 1) {
    line++;
    if (!strcmp(word, "size")) {
      if (s) {  // the image buffers are made at the first still
        rc = fail(line, "size: only before the first still", NULL);
      } else if (fscanf(in, "%d %d", &job->width, &job->height) != 2 || job->width < 1 ||
          job->height < 1 || job->width > 8192 || job->height > 8192) {
        rc = fail(line, "size: expected two numbers of pixels, 1 .. 8192", NULL);
      }
    } else if (!strcmp(word, "view")) {
      if (fscanf(in, "%lf %lf %lf", &job->azimuth, &job->elevation, &job->fov) != 3 ||
          !(job->fov > 0 && job->fov < 3.1)) {
        rc = fail(line, "view: expected azimuth, elevation and a field of view in (0, 3.1)",
                  NULL);
      }
    } else if (!strcmp(word, "fill")) {
      if (fscanf(in, "%lf", &job->fill) != 1 || !(job->fill > 0 && job->fill <= 1)) {
        rc = fail(line, "fill: expected a number in (0, 1]", NULL);
      }
    } else if (!strcmp(word, "model")) {
      if (fscanf(in, " %4095[^\n]", buf) != 1 || job->nbody == kMaxBodies) {
        rc = fail(line, "model: expected a path (at most 64 models)", NULL);
        break;
      }
      hsmLoadOptions opt;
      hsm_defaultLoadOptions(&opt);
      opt.readImage = 1;
      hsBody *body = hsm_loadModel(buf, &opt, NULL, 0, NULL, &err);
      if (!body) {
        rc = fail(line, buf, err.message);
        break;
      }
      job->bodies[job->nbody++] = body;
    } else if (!strcmp(word, "focus")) {
      job->nfocus = 0;
      int b;
      while (job->nfocus < kMaxBodies && fscanf(in, "%d", &b) == 1) {
        if (b < 0 || b >= job->nbody) {
          rc = fail(line, "focus: no such body", NULL);
          break;
        }
        job->focus[job->nfocus++] = b;
      }
      clearerr(in);
    } else if (!strcmp(word, "still")) {
      if (fscanf(in, " %4095[^\n]", job->out) != 1) {
        rc = fail(line, "still: expected a file name", NULL);
        break;
      }
      if (!s) {  // the first still: the process's renderer (held to the end: this process
                 // does nothing else) and the scene of every model so far
        r = r ? r : hsr_lockProcessRenderer(&err);
        s = r ? hsr_makeScene(r, &err) : NULL;
        for (int b = 0; s && b < job->nbody; b++) {
          if (hsr_addBody(s, job->bodies[b], &err) < 0) {
            hsr_freeScene(s);
            s = NULL;
          }
        }
        rgb = malloc((size_t)job->width * (size_t)job->height * 3);
        depth = malloc((size_t)job->width * (size_t)job->height * sizeof *depth);
        if (!s || !rgb || !depth) {
          rc = fail(line, "cannot render", err.message);
        }
      }
    } else if (!strcmp(word, "pose")) {
      int b, n;
      if (!s || fscanf(in, "%d %d", &b, &n) != 2) {
        rc = fail(line, "pose: expected a body and a number of links, after `still`", NULL);
      } else {
        rc = readPose(in, s, job, b, n, &line);
      }
    } else if (!strcmp(word, "end")) {
      rc = s ? renderStill(s, job, rgb, depth, line) : fail(line, "end without still", NULL);
    } else {
      rc = fail(line, "unknown directive", word);
    }
  }
  free(rgb);
  free(depth);
  hsr_freeScene(s);
  if (r) {
    hsr_unlockProcessRenderer();  // (the process's renderer is never freed)
  }
  for (int b = 0; b < job->nbody; b++) {
    hsm_freeBody(job->bodies[b]);
  }
  return rc;
}

int main(int argc, char **argv) {
  if (argc != 1) {
    fprintf(stderr, "usage: %s < JOB (see the top of sensors/render/hrpsim_stills.c)\n",
            argv[0]);
    return 2;
  }
  (void)argv;
  Job job = {.width = 640, .height = 480, .azimuth = -0.785398163, .elevation = 0.34,
             .fov = 0.8, .fill = 0.85};
  return runJob(stdin, &job);
}
