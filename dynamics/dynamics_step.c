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
// keeps its own seed and restores it around its step, so worlds stepped in any interleaving
// give the same results as worlds stepped alone.

#include <stdint.h>

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

// 1 if this step should use QuickStep (see hsSTEPPER_AUTO): union-find of the bodies over the
// enabled joints and the contact joints, then the constraint rows of the largest island
static int useQuickStep(hsdWorld *w) {
  if (w->opt.stepper != hsSTEPPER_AUTO || w->nloop > 0) {
    // (closed loops' light auxiliary bodies need the direct solver)
    return w->opt.stepper == hsSTEPPER_QUICK;
  }
  int *parent = w->islandParent, *rows = w->islandRows;
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
        if (l->jkind == hsdJ_NONE) {
          continue;
        }
        if (hsd_servoed(c, k)) {
          return 0;  // a servo motor: QuickStep diverges with them
        }
        int a = hsd_islandIndex(l->body);
        int b = hsd_islandIndex(c->links[c->body->links[k].parent].body);
        if (pass == 0) {
          joinIslands(parent, a, b);
        } else if (a >= 0 || b >= 0) {
          rows[findIsland(parent, a >= 0 ? a : b)] += 5;
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
  for (int i = 0; i < w->nbody; i++) {
    if (rows[i] > w->opt.autoRows) {
      return 1;
    }
  }
  return 0;
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
  w->runaway = 0;
  for (int ci = 0; ci < w->nchar; ci++) {
    hsd_prepareCharacter(w, ci);
  }
  hsd_collide(w);
  hsd_replaceLoops(w);
  hsd_noteLoops(w);
  // the step, with this world's random sequence
  dRandSetSeed(w->seed);
  if (useQuickStep(w)) {
    dWorldQuickStep(w->world, w->dt);
    w->quickSteps++;
  } else {
    dWorldStep(w->world, w->dt);
  }
  w->seed = dRandGetSeed();
  hsd_readContactForces(w);
  dJointGroupEmpty(w->contactGroup);
  for (int ci = 0; ci < w->nchar; ci++) {
    hsd_finishCharacter(w, ci);
  }
  hsd_readLoopForces(w);
  w->time += w->dt;
  w->steps++;
  if (w->runaway) {
    return HS_ERR(err, hsE_RUNAWAY,
                  "character %s ran away %s step %ld: its state became non-finite or left the "
                  "bounds (|position| <= %g m, |velocity| <= %g m/s and rad/s); it was stopped "
                  "where the last good step left it",
                  w->chars[w->runaway - 1].name, w->runawayWhen, w->steps, hsdMAX_POSITION,
                  hsdMAX_SPEED);
  }
  return 0;
}
