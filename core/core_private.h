// core_private.h - the hsSim record and the locking shared by core/*.c (not for other modules).

#ifndef HRPSIM_CORE_CORE_PRIVATE_H_
#define HRPSIM_CORE_CORE_PRIVATE_H_

#include <pthread.h>

#include "core.h"
#include "dynamics.h"
#include "model.h"
#include "sensors.h"
#include "util.h"

// one character's records beside the world's (the world keeps its name, body and state)
typedef struct hsCharacter {
  hsBody *owned;       // the body when the simulation owns it, else NULL
  hssState *sensors;   // readings of its sensors after the last step
  uint64_t hash;       // saved states' hash of the body (core_state.c), 0 until first needed
} hsCharacter;

struct hsSim {
  pthread_mutex_t mutex;  // recursive; taken before the render lock (core_camera.c)
  hsdWorld *world;        // characters' names, bodies, states, inputs, time and steps
  hsCharacter *chars;     // index = character index in the world
  int nchar, capChar;
  int *fanScratch;        // range sensors' ray scratch (hsc_rayFan) for the world's scene
  int nfanScratch;        // (hsd_stateScene), sized at a start with range sensors
  hsNoise noise;
  int sensors;            // readings computed (else read as zeros)
  int started;
  // query answers, owned here, grown when needed
  int *hits;
  int capHit;
  hsdLinkHit *linkHits;
  int capLinkHit;
  hsdDistance *dists;
  int capDist;
  double *zeros;  // as many zeros as the longest reading
  int nzeros;
  struct hsCameras *cameras;  // the render scene of the cameras (core_camera.c), NULL until used
};

// take / release the simulation's lock (every call that changes or queries it)
void hs_enter(const hsSim *sim);
void hs_leave(const hsSim *sim);

// the cameras' records (core_camera.c): freed with the simulation
void hs_freeCameras(struct hsCameras *c);

// 1 if ch / link index character ch's links, else 0 (and err set when not NULL)
int hs_validChar(const hsSim *sim, int ch, hsError *err);
int hs_validLink(const hsSim *sim, int ch, int link, hsError *err);

// grow the range sensors' ray scratch to what the world's scene needs (core_sim.c; start and
// restore); 0 or hsE_NOMEM with err
int hs_sizeFanScratch(hsSim *sim, hsError *err);

#endif  // HRPSIM_CORE_CORE_PRIVATE_H_
