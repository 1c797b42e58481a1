// model_names.c - name and type lookups on a loaded hsBody.

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

static const char *const kJointNames[] = {"free", "rotate", "slide", "fixed", "crawler"};

// the one table of extra-joint types (hstExtraJoint order; core.h hs_extraJointTypeName)
static const char *const kExtraJointNames[hsEXTRA_NTYPES] = {
    [hsEXTRA_XYZ] = "xyz", [hsEXTRA_XY] = "xy", [hsEXTRA_Z] = "z"};

// the one table of sensor types (model.h, hsmSensorType): a new type is a row here, its enum
// value, its readings in sensors/ and its block in the wire conversion
static const hsmSensorType kSensorTypes[hsSENSOR_NTYPES] = {
    [hsSENSOR_FORCE] = {"Force", "force", 6, 0, 1},
    [hsSENSOR_RATEGYRO] = {"RateGyro", "gyro", 3, 1, 1},
    [hsSENSOR_ACCELERATION] = {"Acceleration", "accel", 3, 2, 1},
    [hsSENSOR_VISION] = {"Vision", "vision", 0, -1, 0},
    [hsSENSOR_RANGE] = {"Range", "range", -1, 3, 1},
};

int hsm_linkIndex(const hsBody *body, const char *name) {
  if (!body || !name) {
    return -1;
  }
  for (int i = 0; i < body->nlink; i++) {
    if (strcmp(body->links[i].name, name) == 0) {
      return i;
    }
  }
  // a link's only segment may name it too (a URDF link beside its joint)
  for (int i = 0; i < body->nlink; i++) {
    const hsLink *l = &body->links[i];
    if (l->nsegment == 1 && strcmp(body->segments[l->segmentAdr].name, name) == 0) {
      return i;
    }
  }
  return -1;
}

int hsm_sensorIndex(const hsBody *body, const char *name) {
  if (!body || !name) {
    return -1;
  }
  for (int i = 0; i < body->nsensor; i++) {
    if (strcmp(body->sensors[i].name, name) == 0) {
      return i;
    }
  }
  return -1;
}

int hsm_sensorById(const hsBody *body, hstSensor type, int id) {
  for (int i = 0; body && i < body->nsensor; i++) {
    if (body->sensors[i].type == type && body->sensors[i].id == id) {
      return i;
    }
  }
  return -1;
}

int hsm_sensorCount(const hsBody *body, hstSensor type) {
  int n = 0;
  for (int i = 0; body && i < body->nsensor; i++) {
    n += body->sensors[i].type == type;
  }
  return n;
}

const char *hsm_jointTypeName(hstJoint type) {
  return (unsigned)type < 5 ? kJointNames[type] : "?";
}

const char *hsm_sensorTypeName(hstSensor type) {
  return (unsigned)type < hsSENSOR_NTYPES ? kSensorTypes[type].name : "?";
}

const hsmSensorType *hsm_sensorType(hstSensor type) {
  return (unsigned)type < hsSENSOR_NTYPES ? &kSensorTypes[type] : NULL;
}

int hsm_parseJointType(const char *name, hstJoint *type) {
  for (int i = 0; name && i < 5; i++) {
    if (strcmp(name, kJointNames[i]) == 0) {
      *type = (hstJoint)i;
      return 0;
    }
  }
  return -1;
}

const char *hsm_extraJointTypeName(hstExtraJoint type) {
  return (unsigned)type < hsEXTRA_NTYPES ? kExtraJointNames[type] : NULL;
}

int hsm_parseExtraJointType(const char *name, hstExtraJoint *type) {
  for (int i = 0; name && i < hsEXTRA_NTYPES; i++) {
    if (strcmp(name, kExtraJointNames[i]) == 0) {
      *type = (hstExtraJoint)i;
      return 0;
    }
  }
  return -1;
}

int hsm_treeOrder(const int *parent, const int *rank, int n, int *order, hsError *err) {
  if (n < 1) {
    return HS_ERR(err, hsE_INVALID, "no links");
  }
  int root = -1;
  for (int i = 0; i < n; i++) {
    if (parent[i] < -1 || parent[i] >= n || parent[i] == i) {
      return HS_ERR(err, hsE_INVALID, "link %d: parentIndex %d out of range", i, parent[i]);
    }
    if (parent[i] == -1) {
      if (root >= 0) {
        return HS_ERR(err, hsE_INVALID, "more than one root link (%d and %d)", root, i);
      }
      root = i;
    }
  }
  if (root < 0) {
    return HS_ERR(err, hsE_INVALID, "no root link");
  }
  // children of each link, grouped by parent (counting sort), each group sorted by rank:
  // kids[start[p] .. start[p + 1]) are p's children
  int *start = hsu_calloc((size_t)n + 1, sizeof *start);
  int *fill = hsu_malloc((size_t)n * sizeof *fill);
  int *kids = hsu_malloc((size_t)n * sizeof *kids);
  int *stack = hsu_malloc((size_t)n * sizeof *stack);
  if (!start || !fill || !kids || !stack) {
    hsu_free(start);
    hsu_free(fill);
    hsu_free(kids);
    hsu_free(stack);
    return HS_ERR(err, hsE_NOMEM, "out of memory");
  }
  for (int i = 0; i < n; i++) {
    if (parent[i] >= 0) {
      start[parent[i] + 1]++;
    }
  }
  for (int i = 0; i < n; i++) {
    start[i + 1] += start[i];
    fill[i] = start[i];
  }
  for (int i = 0; i < n; i++) {
    int p = parent[i];
    if (p < 0) {
      continue;
    }
    int k = fill[p]++;
    for (; k > start[p] && rank && rank[kids[k - 1]] > rank[i]; k--) {
      kids[k] = kids[k - 1];
    }
    kids[k] = i;
  }
  // depth first: children pushed in reverse so they come off in rank order
  int count = 0, top = 0;
  stack[top++] = root;
  while (top > 0) {
    int l = stack[--top];
    order[count++] = l;
    for (int k = start[l + 1] - 1; k >= start[l]; k--) {
      stack[top++] = kids[k];
    }
  }
  hsu_free(start);
  hsu_free(fill);
  hsu_free(kids);
  hsu_free(stack);
  if (count != n) {
    return HS_ERR(err, hsE_INVALID, "some links are not connected to the root");
  }
  return 0;
}

long hsm_triangleCount(const hsBody *body) {
  long n = 0;
  for (int i = 0; body && i < body->nshape; i++) {
    n += body->shapes[i].ntriangle;
  }
  return n;
}

int hsm_warningLine(const hsBody *body, const char *name) {
  if (!body || !body->url || !name) {
    return 0;
  }
  char quoted[300];
  snprintf(quoted, sizeof quoted, "'%s'", name);
  size_t nurl = strlen(body->url);
  for (int i = 0; i < body->ninfo; i++) {
    // "warning: <url>:<line>: <message>" (hsm_addWarningInfo)
    const char *s = body->info[i];
    if (strncmp(s, "warning: ", 9) != 0 || strncmp(s + 9, body->url, nurl) != 0 ||
        s[9 + nurl] != ':') {
      continue;
    }
    char *end;
    long line = strtol(s + 10 + nurl, &end, 10);
    if (end != s + 10 + nurl && *end == ':' && line > 0 && line <= INT_MAX &&
        strstr(end, quoted)) {
      return (int)line;
    }
  }
  return 0;
}
