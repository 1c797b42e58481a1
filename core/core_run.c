// core_run.c - hsRun (core.h): the periodic events of a run in whole steps and its log.
//
// A run borrows a started simulation. Ticks keep their period in steps (hs_periodSteps);
// frame streams keep only their rate: which frame is due at a count follows from the rate and
// the frame rule (hs_frameStep), so a rate may change mid-run. The log is a block of doubles
// per record, laid out once at hs_makeRun (offsets per block and character), plus the records'
// contacts and range scans in arrays that grow geometrically; records are made between steps,
// never inside one.

#include <limits.h>
#include <math.h>
#include <string.h>

#include "core_private.h"

//---------------------------------- types -----------------------------------------------------

// the log's contacts and range scans
typedef struct hsRunExtras {
  hsdContact *points;
  long long npoint, capPoint;
  hsdContactGroup *groups;
  long long ngroup, capGroup;
  long long *contactIndex;  // 2 per record + 2
  long long capContactIndex;
  double *beams;
  long long nbeam, capBeam;
  long long *rangeIndex;  // nrange per record + 1
  long long capRangeIndex;
} hsRunExtras;

struct hsRun {
  hsSim *sim;
  double dt;
  long long endSteps;  // 0: none
  long long logSteps;
  int logSensors;
  long long *ticks;  // period in steps per tick
  int ntick, capTick;
  double *rates;  // per frame stream [1/s] (<= 0: off)
  int nframes, capFrames;
  double push[8];  // hsRUN_PUSH
  double stepStart;
  // the log
  int size;              // doubles per record
  int *offsets;          // [block * nchar + ch]; -1: not logged
  int nchar, nloop;
  int *trackLinks;       // every character's crawler links, in order (hsRUN_TRACKS)
  int *rangeSensors;     // (ch, sensor) pairs of the logged range sensors
  int nrange;
  double *records;
  long long nrecord, capRecord;
  hsRunExtras x;
};

//---------------------------------- the frame rule --------------------------------------------

long long hs_frameStep(long long n, double rate, double dt) {
  return n <= 0 ? 0 : hs_stepsToReach((double)n / rate, dt);
}

// the last frame of a stream at rate due by step count k (the largest n with
// hs_frameStep(n) <= k): from the estimate k dt rate, corrected by the rule itself
static long long lastFrame(double rate, double dt, long long k) {
  double estimate = floor((double)k * dt * rate);
  long long n = estimate > 9e18 ? (long long)9e18 : (long long)estimate;
  while (n > 0 && hs_frameStep(n, rate, dt) > k) {
    n--;
  }
  while (hs_frameStep(n + 1, rate, dt) <= k) {
    n++;
  }
  return n;
}

//---------------------------------- make / free -----------------------------------------------

// grow *p (of *cap elements of size) to hold need elements; 0 or hsE_NOMEM
static int grow(void **p, long long *cap, long long need, size_t size, hsError *err) {
  if (need <= *cap) {
    return 0;
  }
  long long cap2 = *cap > 0 ? *cap : 16;
  while (cap2 < need) {
    cap2 *= 2;
  }
  void *q = hsu_realloc(*p, (size_t)cap2 * size);
  if (!q) {
    return HS_ERR(err, hsE_NOMEM, "out of memory for the run's log (%lld entries)", need);
  }
  *p = q;
  *cap = cap2;
  return 0;
}

// the count of sensors of type of character ch
static int sensorsOf(const hsSim *sim, int ch, int type) {
  int n = 0;
  hs_sensorsOfType(sim, ch, type, &n);
  return n;
}

// lay the record out: offsets per block and character, the logged range sensors
static int layOut(hsRun *run, hsError *err) {
  hsSim *sim = run->sim;
  int nchar = run->nchar = hs_characterCount(sim);
  run->nloop = hs_extraJointCount(sim);
  int width = nchar > run->nloop ? nchar : run->nloop;
  run->offsets = hsu_malloc(sizeof(int) * (size_t)hsRUN_NBLOCKS * (size_t)(width + 1));
  if (!run->offsets) {
    return HS_ERR(err, hsE_NOMEM, "out of memory for a run");
  }
  for (int i = 0; i < hsRUN_NBLOCKS * (width + 1); i++) {
    run->offsets[i] = -1;
  }
  int at = 0, stride = width + 1;
  run->offsets[hsRUN_TIME * stride] = at++;
  for (int ch = 0; ch < nchar; ch++) {
    int nl = hs_linkCount(sim, ch);
    run->offsets[hsRUN_LINK_P * stride + ch] = at;
    at += 3 * nl;
    run->offsets[hsRUN_LINK_R * stride + ch] = at;
    at += 9 * nl;
  }
  static const int sensorBlocks[3][3] = {{hsRUN_FORCE, hsSENSOR_FORCE, 6},
                                         {hsRUN_GYRO, hsSENSOR_RATEGYRO, 3},
                                         {hsRUN_ACCEL, hsSENSOR_ACCELERATION, 3}};
  for (int ch = 0; ch < nchar && run->logSensors; ch++) {
    int nj = hs_jointIdCount(sim, ch);
    for (int b = hsRUN_Q; b <= hsRUN_U; b++) {
      run->offsets[b * stride + ch] = at;
      at += nj;
    }
    for (int b = 0; b < 3; b++) {
      run->offsets[sensorBlocks[b][0] * stride + ch] = at;
      at += sensorBlocks[b][2] * sensorsOf(sim, ch, sensorBlocks[b][1]);
    }
    run->nrange += sensorsOf(sim, ch, hsSENSOR_RANGE);
  }
  for (int ch = 0; ch < nchar; ch++) {
    run->offsets[hsRUN_JOINT_STOPS * stride + ch] = at;
    at += hs_jointIdCount(sim, ch);
    run->offsets[hsRUN_TRACKS * stride + ch] = at;
    at += hs_tracks(sim, ch, NULL, 0);
  }
  for (int i = 0; i < run->nloop; i++) {
    run->offsets[hsRUN_LOOP * stride + i] = at;
    at += 6;
  }
  run->offsets[hsRUN_PUSH * stride] = at;
  at += 8;
  run->size = at;
  // the crawler links, in the order of their speeds in the record
  int ntrack = 0;
  for (int ch = 0; ch < nchar; ch++) {
    ntrack += hs_tracks(sim, ch, NULL, 0);
  }
  run->trackLinks = hsu_malloc(sizeof(int) * (size_t)(ntrack + 1));
  if (!run->trackLinks) {
    return HS_ERR(err, hsE_NOMEM, "out of memory for a run");
  }
  for (int ch = 0, t = 0; ch < nchar; ch++) {
    t += hs_tracks(sim, ch, run->trackLinks + t, ntrack - t);
  }
  // the range sensors, as (character, sensor) pairs
  run->rangeSensors = hsu_malloc(sizeof(int) * 2 * (size_t)(run->nrange + 1));
  if (!run->rangeSensors) {
    return HS_ERR(err, hsE_NOMEM, "out of memory for a run");
  }
  int r = 0;
  for (int ch = 0; ch < nchar && run->logSensors; ch++) {
    int n = 0;
    const int *list = hs_sensorsOfType(sim, ch, hsSENSOR_RANGE, &n);
    for (int i = 0; i < n; i++, r++) {
      run->rangeSensors[2 * r] = ch;
      run->rangeSensors[2 * r + 1] = list[i];
    }
  }
  return 0;
}

hsRun *hs_makeRun(hsSim *sim, double endTime, double logPeriod, int logSensors, hsError *err) {
  if (!hs_started(sim)) {
    HS_ERR(err, hsE_ORDER, "a run needs a started simulation (hs_start)");
    return NULL;
  }
  double dt = hs_timeStep(sim);
  long long logSteps = logPeriod == 0.0 ? 1 : hs_periodSteps(logPeriod, dt);
  if (logSteps == 0) {
    HS_ERR(err, hsE_INVALID, "the log period %g s is not a whole multiple of the time step %g s",
           logPeriod, dt);
    return NULL;
  }
  if (!(endTime <= 0.0) && !isfinite(endTime)) {
    HS_ERR(err, hsE_INVALID, "the end time %g s is not finite", endTime);
    return NULL;
  }
  hsRun *run = hsu_calloc(1, sizeof *run);
  if (!run) {
    HS_ERR(err, hsE_NOMEM, "out of memory for a run");
    return NULL;
  }
  run->sim = sim;
  run->dt = dt;
  run->logSteps = logSteps;
  run->logSensors = logSensors != 0;
  if (endTime > 0.0) {
    long long n = hs_stepsToReach(endTime, dt);
    run->endSteps = n > 1 ? n : 1;
  }
  run->push[0] = -1.0;
  run->stepStart = hs_time(sim);
  hs_enter(sim);
  int rc = layOut(run, err);
  // the index lists start closed (no record yet); the log sized for the whole run when it ends
  if (rc == 0) {
    rc = grow((void **)&run->x.contactIndex, &run->x.capContactIndex, 2, sizeof(long long), err);
  }
  if (rc == 0) {
    rc = grow((void **)&run->x.rangeIndex, &run->x.capRangeIndex, 1, sizeof(long long), err);
  }
  if (rc == 0 && run->endSteps > 0) {
    // the whole run's records when they fit in 64 MiB; a longer log grows as it goes
    long long records = (run->endSteps - hs_steps(sim)) / logSteps + 2;
    long long most = (64LL << 20) / (8LL * run->size);
    records = records < most ? records : most;
    rc = grow((void **)&run->records, &run->capRecord, records > 1 ? records : 1,
              sizeof(double) * (size_t)run->size, err);
  }
  hs_leave(sim);
  if (rc < 0) {
    hs_freeRun(run);
    return NULL;
  }
  run->x.contactIndex[0] = run->x.contactIndex[1] = 0;
  run->x.rangeIndex[0] = 0;
  return run;
}

void hs_freeRun(hsRun *run) {
  if (!run) {
    return;
  }
  hsu_free(run->ticks);
  hsu_free(run->rates);
  hsu_free(run->offsets);
  hsu_free(run->trackLinks);
  hsu_free(run->rangeSensors);
  hsu_free(run->records);
  hsu_free(run->x.points);
  hsu_free(run->x.groups);
  hsu_free(run->x.contactIndex);
  hsu_free(run->x.beams);
  hsu_free(run->x.rangeIndex);
  hsu_free(run);
}

long long hs_runEndSteps(const hsRun *run) {
  return run->endSteps;
}

long long hs_runLogSteps(const hsRun *run) {
  return run->logSteps;
}

hsSim *hs_runSim(const hsRun *run) {
  return run->sim;
}

//---------------------------------- events ----------------------------------------------------

int hs_runAddTick(hsRun *run, double period, hsError *err) {
  long long n = hs_periodSteps(period, run->dt);
  if (n == 0) {
    return HS_ERR(err, hsE_INVALID, "the period %g s is not a whole multiple of the time step "
                  "%g s", period, run->dt);
  }
  long long cap = run->capTick;
  if (grow((void **)&run->ticks, &cap, run->ntick + 1, sizeof(long long), err) < 0) {
    return hsE_NOMEM;
  }
  run->capTick = (int)cap;
  run->ticks[run->ntick] = n;
  return run->ntick++;
}

long long hs_runTickSteps(const hsRun *run, int i) {
  return i >= 0 && i < run->ntick ? run->ticks[i] : 0;
}

int hs_runTickDue(const hsRun *run, int i, long long k) {
  return i >= 0 && i < run->ntick && k % run->ticks[i] == 0;
}

// a frame rate is finite and >= 0 (0: off)
static int checkRate(double rate, hsError *err) {
  if (!isfinite(rate) || rate < 0.0) {
    return HS_ERR(err, hsE_INVALID, "a frame rate must be finite and >= 0, got %g", rate);
  }
  return 0;
}

int hs_runAddFrames(hsRun *run, double rate, hsError *err) {
  if (checkRate(rate, err) < 0) {
    return hsE_INVALID;
  }
  long long cap = run->capFrames;
  if (grow((void **)&run->rates, &cap, run->nframes + 1, sizeof(double), err) < 0) {
    return hsE_NOMEM;
  }
  run->capFrames = (int)cap;
  run->rates[run->nframes] = rate;
  return run->nframes++;
}

int hs_runSetFrameRate(hsRun *run, int i, double rate, hsError *err) {
  if (i < 0 || i >= run->nframes) {
    return HS_ERR(err, hsE_INVALID, "no frame stream %d (there are %d)", i, run->nframes);
  }
  if (checkRate(rate, err) < 0) {
    return hsE_INVALID;
  }
  run->rates[i] = rate;
  return 0;
}

long long hs_runFrameDue(const hsRun *run, int i, long long k) {
  if (i < 0 || i >= run->nframes || !(run->rates[i] > 0.0) || k < 0) {
    return -1;
  }
  if (k == 0) {
    return 0;
  }
  long long before = lastFrame(run->rates[i], run->dt, k - 1);
  return hs_frameStep(before + 1, run->rates[i], run->dt) <= k ? before + 1 : -1;
}

long long hs_runNextEvent(const hsRun *run, long long k) {
  long long next = run->endSteps > k ? run->endSteps : LLONG_MAX;
  for (int i = 0; i < run->ntick; i++) {
    long long n = run->ticks[i];
    long long due = (k / n + 1) * n;  // the first multiple after k
    next = due < next ? due : next;
  }
  for (int i = 0; i < run->nframes; i++) {
    double rate = run->rates[i];
    if (rate > 0.0) {
      long long due = hs_frameStep(lastFrame(rate, run->dt, k) + 1, rate, run->dt);
      next = due < next ? due : next;
    }
  }
  return next;
}

void hs_runSetPush(hsRun *run, int ch, int link, const double wrench[6]) {
  run->push[0] = ch;
  run->push[1] = link;
  for (int i = 0; i < 6; i++) {
    run->push[2 + i] = ch >= 0 ? wrench[i] : 0.0;
  }
}

//---------------------------------- stepping --------------------------------------------------

int hs_runStep(hsRun *run, hsError *err) {
  hsSim *sim = run->sim;
  hs_enter(sim);
  run->stepStart = hs_time(sim);
  int rc = hs_step(sim, err);
  hs_leave(sim);
  return rc;
}

int hs_runLog(hsRun *run, hsError *err) {
  return hs_steps(run->sim) % run->logSteps == 0 ? hs_runRecord(run, err) : 0;
}

int hs_runAdvance(hsRun *run, long long until, hsError *err) {
  hsSim *sim = run->sim;
  hs_enter(sim);
  long long k = hs_steps(sim);
  long long stop = hs_runNextEvent(run, k);
  stop = until < stop ? until : stop;
  int rc = 0;
  for (; k < stop && rc == 0; k++) {
    rc = hs_runStep(run, err);
    if (rc == 0) {
      rc = hs_runLog(run, err);
    }
  }
  hs_leave(sim);
  return rc;
}

double hs_runStepStart(const hsRun *run) {
  return run->stepStart;
}

//---------------------------------- the log ---------------------------------------------------

// n readings of sensors of type of character ch, width numbers each, into out (zeros where a
// reading is shorter, as the wire's SensorState)
static void readingsInto(const hsSim *sim, int ch, int type, int width, double *out) {
  int n = 0;
  const int *list = hs_sensorsOfType(sim, ch, type, &n);
  for (int i = 0; i < n; i++) {
    int k = 0;
    const double *v = hs_reading(sim, ch, list[i], &k);
    for (int j = 0; j < width; j++) {
      out[width * i + j] = v && j < k ? v[j] : 0.0;
    }
  }
}

// the joint array src (per link) in jointId order into out (a gap reads 0)
static void jointsInto(const hsSim *sim, int ch, const double *src, double *out) {
  int nj = hs_jointIdCount(sim, ch);
  const int *links = hs_jointLinks(sim, ch);
  for (int j = 0; j < nj; j++) {
    out[j] = links[j] >= 0 ? src[links[j]] : 0.0;
  }
}

// make room for one more record with npoint contacts in ngroup groups and nbeam range beams
// (nothing written)
static int reserve(hsRun *run, long long npoint, long long ngroup, long long nbeam,
                   hsError *err) {
  hsRunExtras *x = &run->x;
  long long n = run->nrecord + 1;
  if (grow((void **)&run->records, &run->capRecord, n, sizeof(double) * (size_t)run->size,
           err) < 0 ||
      grow((void **)&x->contactIndex, &x->capContactIndex, 2 * n + 2, sizeof(long long),
           err) < 0 ||
      grow((void **)&x->rangeIndex, &x->capRangeIndex, run->nrange * n + 1, sizeof(long long),
           err) < 0 ||
      grow((void **)&x->points, &x->capPoint, x->npoint + npoint, sizeof(hsdContact), err) < 0 ||
      grow((void **)&x->groups, &x->capGroup, x->ngroup + ngroup, sizeof(hsdContactGroup),
           err) < 0 ||
      grow((void **)&x->beams, &x->capBeam, x->nbeam + nbeam, sizeof(double), err) < 0) {
    return hsE_NOMEM;
  }
  return 0;
}

int hs_runRecord(hsRun *run, hsError *err) {
  hsSim *sim = run->sim;
  hsRunExtras *x = &run->x;
  hs_enter(sim);
  // the sizes of this record's variable parts first: nothing is written unless all fit
  int npoint = 0, ngroup = 0;
  const hsdContact *points = hs_contacts(sim, &npoint);
  const hsdContactGroup *groups = hs_contactGroups(sim, &ngroup);
  long long nbeam = 0;
  for (int r = 0; r < run->nrange; r++) {
    int n = 0;
    hs_reading(sim, run->rangeSensors[2 * r], run->rangeSensors[2 * r + 1], &n);
    nbeam += n;
  }
  if (reserve(run, npoint, ngroup, nbeam, err) < 0) {
    hs_leave(sim);
    return hsE_NOMEM;
  }
  double *rec = run->records + run->nrecord * run->size;
  int stride = (run->nchar > run->nloop ? run->nchar : run->nloop) + 1;
  const int *off = run->offsets;
  const int *trackLink = run->trackLinks;
  rec[0] = hs_time(sim);
  for (int ch = 0; ch < run->nchar; ch++) {
    int nl = hs_linkCount(sim, ch);
    memcpy(rec + off[hsRUN_LINK_P * stride + ch], hs_linkP(sim, ch), sizeof(double) * 3 * nl);
    memcpy(rec + off[hsRUN_LINK_R * stride + ch], hs_linkR(sim, ch), sizeof(double) * 9 * nl);
    if (run->logSensors) {
      jointsInto(sim, ch, hs_q(sim, ch), rec + off[hsRUN_Q * stride + ch]);
      jointsInto(sim, ch, hs_dq(sim, ch), rec + off[hsRUN_DQ * stride + ch]);
      jointsInto(sim, ch, hs_u(sim, ch), rec + off[hsRUN_U * stride + ch]);
      readingsInto(sim, ch, hsSENSOR_FORCE, 6, rec + off[hsRUN_FORCE * stride + ch]);
      readingsInto(sim, ch, hsSENSOR_RATEGYRO, 3, rec + off[hsRUN_GYRO * stride + ch]);
      readingsInto(sim, ch, hsSENSOR_ACCELERATION, 3, rec + off[hsRUN_ACCEL * stride + ch]);
    }
    int nj = hs_jointIdCount(sim, ch);
    hs_jointStopTorques(sim, ch, rec + off[hsRUN_JOINT_STOPS * stride + ch], nj);
    int ntrack = hs_tracks(sim, ch, NULL, 0);
    double *tracks = rec + off[hsRUN_TRACKS * stride + ch];
    const double *u = hs_u(sim, ch);
    for (int t = 0; t < ntrack; t++) {
      tracks[t] = u[trackLink[t]];
    }
    trackLink += ntrack;
  }
  for (int i = 0; i < run->nloop; i++) {
    hs_extraJointForce(sim, i, rec + off[hsRUN_LOOP * stride + i]);
  }
  memcpy(rec + off[hsRUN_PUSH * stride], run->push, sizeof run->push);
  // the contacts and scans, and the indices closed by the new totals
  if (npoint > 0) {  // (the buffers stay NULL until a record has contacts)
    memcpy(x->points + x->npoint, points, sizeof(hsdContact) * (size_t)npoint);
  }
  if (ngroup > 0) {
    memcpy(x->groups + x->ngroup, groups, sizeof(hsdContactGroup) * (size_t)ngroup);
  }
  x->npoint += npoint;
  x->ngroup += ngroup;
  x->contactIndex[2 * run->nrecord + 2] = x->npoint;
  x->contactIndex[2 * run->nrecord + 3] = x->ngroup;
  for (int r = 0; r < run->nrange; r++) {
    int n = 0;
    const double *v = hs_reading(sim, run->rangeSensors[2 * r], run->rangeSensors[2 * r + 1], &n);
    if (n > 0) {
      memcpy(x->beams + x->nbeam, v, sizeof(double) * (size_t)n);
    }
    x->nbeam += n;
    x->rangeIndex[run->nrange * run->nrecord + r + 1] = x->nbeam;
  }
  run->nrecord++;
  hs_leave(sim);
  return 0;
}

long long hs_runRecordCount(const hsRun *run) {
  return run->nrecord;
}

int hs_runRecordSize(const hsRun *run) {
  return run->size;
}

const double *hs_runRecords(const hsRun *run) {
  return run->records;
}

int hs_runOffset(const hsRun *run, int block, int ch) {
  int stride = (run->nchar > run->nloop ? run->nchar : run->nloop) + 1;
  if (block < 0 || block >= hsRUN_NBLOCKS) {
    return -1;
  }
  if (block == hsRUN_TIME || block == hsRUN_PUSH) {
    ch = 0;
  } else if (ch < 0 || ch >= (block == hsRUN_LOOP ? run->nloop : run->nchar)) {
    return -1;
  }
  return run->offsets[block * stride + ch];
}

const hsdContact *hs_runContacts(const hsRun *run, long long *n) {
  *n = run->x.npoint;
  return run->x.points;
}

const hsdContactGroup *hs_runContactGroups(const hsRun *run, long long *n) {
  *n = run->x.ngroup;
  return run->x.groups;
}

const long long *hs_runContactIndex(const hsRun *run) {
  return run->x.contactIndex;
}

int hs_runRangeCount(const hsRun *run) {
  return run->nrange;
}

const double *hs_runRanges(const hsRun *run, long long *n) {
  *n = run->x.nbeam;
  return run->x.beams;
}

const long long *hs_runRangeIndex(const hsRun *run) {
  return run->x.rangeIndex;
}
