// dynamics_step.c - hsd_step: prepare -> collide -> step -> write state.
//
// One step of a world, in four phases over its characters in index order:
// 1. prepare (dynamics_prepare.c): each character's teleports and mode changes placed into ODE,
//    its joints driven (torques, servo velocities), external forces applied;
// 2. collide (dynamics_contact.c): the registered pairs' contacts at the current poses, each
//    turned into an ODE contact joint;
// 3. step: ODE advances the world by dt (dWorldStep, or QuickStep for a large island, see
//    hsSTEPPER_AUTO), then the contact forces are read from the joints' feedback;
// 4. write state (dynamics_finish.c): each character's poses, joints, velocities,
//    accelerations, torques and sensor readings from the simulation; its commands cleared.
//
// ODE's QuickStep shuffles constraints with ODE's process-wide random generator; each world
// keeps its own seed and restores it around its QuickStep, under the ODE lock (hsd_lockOde),
// so worlds stepped in any interleaving, or at the same time in several threads, give the
// same results as worlds stepped alone. dWorldStep draws no random numbers and runs unlocked.

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "dynamics_private.h"

int hsd_islandIndex(dBodyID b) {
  return (b && !dBodyIsKinematic(b)) ? (int)(intptr_t)dBodyGetData(b) - 1 : -1;
}

static int findIsland(int *parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

static void joinIslands(int *parent, int a, int b) {
  if (a >= 0 && b >= 0) {
    a = findIsland(parent, a);
    b = findIsland(parent, b);
    if (a != b) {
      parent[a < b ? b : a] = a < b ? a : b;  // the smaller index leads: deterministic
    }
  }
}

// the constraint rows of the world's largest island (union-find of the bodies over the enabled
// joints and the contact joints; 5 rows per hinge or slider, 6 with a servo motor); *servo is
// set when an articulated joint is servoed, *chain when that island holds an articulated joint,
// *robot when an island with constraint rows holds a body that is not a free rigid object
static int largestIsland(hsdWorld *w, int *servo, int *chain, int *robot) {
  int *parent = w->islandParent, *rows = w->islandRows;
  *servo = *chain = *robot = 0;
  for (int i = 0; i < w->nbody; i++) {
    parent[i] = i;
    rows[i] = 0;
  }
  for (int pass = 0; pass < 2; pass++) {
    for (int ci = 0; ci < w->nchar; ci++) {
      const hsdCharacter *c = &w->chars[ci];
      if (c->rep != hsdREP_ARTICULATED) {
        continue;
      }
      for (int k = 1; k < c->body->nlink; k++) {
        const hsdLinkOde *l = &c->links[k];
        if (l->jkind == hsdODE_NONE) {
          continue;
        }
        int motor = hsd_servoed(c, k);
        *servo |= motor;
        int a = hsd_islandIndex(l->body);
        int b = hsd_islandIndex(c->links[c->body->links[k].parent].body);
        if (pass == 0) {
          joinIslands(parent, a, b);
        } else if (a >= 0 || b >= 0) {
          rows[findIsland(parent, a >= 0 ? a : b)] += 5 + motor;
        }
      }
    }
    for (int i = 0; i < w->ncontact; i++) {
      const int *isl = w->contactIsland + 3 * i;
      if (!w->contactJoint[i]) {
        continue;
      }
      if (pass == 0) {
        joinIslands(parent, isl[0], isl[1]);
      } else if (isl[0] >= 0 || isl[1] >= 0) {
        rows[findIsland(parent, isl[0] >= 0 ? isl[0] : isl[1])] += isl[2];
      }
    }
  }
  for (int ci = 0; ci < w->nchar && !*robot; ci++) {
    const hsdCharacter *c = &w->chars[ci];
    for (int k = 0; k < c->body->nlink && !*robot && !c->still && !hsd_sleeper(c); k++) {
      int a = hsd_islandIndex(c->links[k].body);
      *robot = a >= 0 && rows[findIsland(parent, a)] > 0;
    }
  }
  int most = 0, best = -1;
  for (int i = 0; i < w->nbody; i++) {
    if (rows[i] > most) {
      most = rows[i];
      best = i;
    }
  }
  for (int ci = 0; best >= 0 && ci < w->nchar && !*chain; ci++) {
    const hsdCharacter *c = &w->chars[ci];
    for (int k = 1; c->rep == hsdREP_ARTICULATED && k < c->body->nlink && !*chain; k++) {
      int a = hsd_islandIndex(c->links[k].body);
      *chain = c->links[k].jkind != hsdODE_NONE && a >= 0 && findIsland(parent, a) == best;
    }
  }
  return most;
}

// the SOR iterations if this step should use QuickStep, else 0 (see hsSTEPPER_AUTO): the
// largest island has more than autoRows constraint rows and no servo motor is in use (QuickStep
// diverges with them); chainIterations when that island is an articulated character's. Also
// quickIterations when only free rigid objects touch anything and the largest island has more
// than pileRows rows (a pile: dWorldStep's cost grows with the cube of an island's rows)
static int useQuickStep(hsdWorld *w) {
  int servo, chain, robot;
  w->lastRows = largestIsland(w, &servo, &chain, &robot);
  if (w->opt.stepper != hsSTEPPER_AUTO || w->nloop > 0) {
    // (closed loops' light auxiliary bodies need the direct solver)
    return w->opt.stepper == hsSTEPPER_QUICK ? w->opt.quickIterations : 0;
  }
  if (!servo && !robot && w->lastRows > w->opt.pileRows) {
    return w->opt.quickIterations;
  }
  if (servo || w->lastRows <= w->opt.autoRows) {
    return 0;
  }
  return chain ? w->opt.chainIterations : w->opt.quickIterations;
}

void hsd_stepStats(const hsdWorld *w, hsdStepStats *out) {
  memset(out, 0, sizeof *out);
  if (!w || !w->initialised) {
    return;
  }
  out->steps = w->steps;
  if (w->opt.engine == hsENGINE_JOINT_SPACE) {
    return;  // nothing was asked of ODE
  }
  out->quickSteps = w->quickSteps;
  out->rows = w->steps > 0 ? w->lastRows : 0;
  for (int i = 0; w->steps > 0 && i < w->ncontact; i++) {
    out->contactJoints += w->contactJoint[i] != 0;
  }
  for (int ci = 0; ci < w->nchar; ci++) {
    const hsdCharacter *c = &w->chars[ci];
    if (c->rep == hsdREP_COMPOSITE) {
      out->bodies++;
    } else if (c->rep == hsdREP_ARTICULATED) {
      for (int k = 0; k < c->body->nlink; k++) {
        const hsdLinkOde *l = &c->links[k];
        out->bodies += l->body && l->top == k && !dBodyIsKinematic(l->body);
        if (l->jkind == hsdODE_HINGE && dJointIsEnabled(l->joint)) {
          dVector3 a1, a2;
          dJointGetHingeAnchor(l->joint, a1);
          dJointGetHingeAnchor2(l->joint, a2);
          double d = sqrt((a1[0] - a2[0]) * (a1[0] - a2[0]) + (a1[1] - a2[1]) * (a1[1] - a2[1]) +
                          (a1[2] - a2[2]) * (a1[2] - a2[2]));
          out->jointGap = d > out->jointGap ? d : out->jointGap;
        }
      }
    }
  }
}

int hsd_step(hsdWorld *w, hsError *err) {
  if (!w) {
    return HS_ERR(err, hsE_INVALID, "no world");
  }
  if (!w->initialised) {
    return HS_ERR(err, hsE_INVALID, "step before the simulation was initialised (hsd_init)");
  }
  if (w->nloop > 0 && hsd_checkLoops(w, err) < 0) {
    return hsE_INVALID;  // drive modes changed since hsd_init over-constrain a loop
  }
  if (w->opt.engine == hsENGINE_JOINT_SPACE) {
    return hsd_jsStepWorld(w, err);
  }
  w->runaway = 0;
  for (int ci = 0; ci < w->nchar; ci++) {
    hsd_prepareCharacter(w, ci);
  }
  hsd_collide(w);
  hsd_replaceLoops(w);
  hsd_noteLoops(w);
  int iterations = useQuickStep(w);
  hsd_autoDisable(w);  // where ODE's steppers would apply it, first thing
  if (iterations > 0) {
    // QuickStep draws from ODE's one random generator: under the lock, with this world's seed
    hsd_lockOde();
    dRandSetSeed(w->seed);
    dWorldSetQuickStepNumIterations(w->world, iterations);
    dWorldQuickStep(w->world, w->dt);
    w->seed = dRandGetSeed();
    hsd_unlockOde();
    w->quickSteps++;
  } else {
    dWorldStep(w->world, w->dt);  // draws no random numbers: needs no lock
  }
  hsd_readContactForces(w);
  dJointGroupEmpty(w->contactGroup);
  for (int ci = 0; ci < w->nchar; ci++) {
    hsd_finishCharacter(w, ci);
  }
  hsd_readLoopForces(w);
  w->time += w->dt;
  w->steps++;
  if (w->runaway) {
    char text[512];
    hsd_runawayMessage(text, sizeof text, w->chars[w->runaway - 1].name, w->runawayWhen,
                       w->steps);
    return HS_ERR(err, hsE_RUNAWAY, "%s", text);
  }
  return 0;
}
