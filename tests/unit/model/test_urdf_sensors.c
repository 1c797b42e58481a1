// test_urdf_sensors.c - Gazebo <sensor>s of URDF robots (model/urdf/urdf_sensor.c): the sample
// samples/models/urdf/sensor_bot (one sensor of each kind: types, ids per type in file order,
// names, links, frames converted to OpenHRP's conventions, specValues, noise info strings),
// references through joints, frame choices of force_torque sensors, the float beam count of
// range sensors, and the warnings (with lines) for what cannot be used.

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "openhrp_fixtures.h"
#include "test_support.h"

static char g_text[16384];

#define INERTIAL                                                                        \
  "<inertial><mass value=\"1\"/><inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" " \
  "iyz=\"0\" izz=\"0.1\"/></inertial>"

// a fixed two-link robot (base, and arm on fixed joint `arm_joint` turned by yaw 90 degrees)
// with `gazebo` text after its links
static const char *robot(const char *gazebo) {
  snprintf(g_text, sizeof g_text,
           "<?xml version=\"1.0\"?>\n"
           "<robot name=\"r\">\n"
           "  <link name=\"world\"/>\n"
           "  <joint name=\"anchor\" type=\"fixed\"><parent link=\"world\"/>"
           "<child link=\"base\"/></joint>\n"
           "  <link name=\"base\">" INERTIAL "</link>\n"
           "  <joint name=\"arm_joint\" type=\"fixed\"><origin xyz=\"0 0 -0.3\" "
           "rpy=\"0 0 1.5707963267948966\"/><parent link=\"base\"/><child link=\"arm\"/>"
           "</joint>\n"
           "  <link name=\"arm\">" INERTIAL "</link>\n"
           "%s"
           "</robot>\n",
           gazebo);
  return g_text;
}

static hsBody *load(const char *name, const char *text, hsmWarning *warnings, int max,
                    int *nwarn) {
  hsError err = {0};
  const char *path = hst_writeFile(name, text);
  hsBody *b = hsm_loadUrdf(path, NULL, warnings, max, nwarn, &err);
  if (!b) {
    char buf[1200];
    fprintf(stderr, "\n  %s\n", hsu_formatError(&err, buf, sizeof buf));
  }
  return b;
}

// the sensor's frame rotation in its link frame
static void sensorR(double R[9], const hsSensor *s) {
  hsu_axisAngleToMat(R, s->rotation);
}

static void checkMat(const double A[9], const double B[9], double tol) {
  for (int k = 0; k < 9; k++) {
    HST_NEAR(A[k], B[k], tol);
  }
}

static void checkSpec(const hsSensor *s, const double *want, int n) {
  CU_ASSERT_EQUAL_FATAL(s->nspecValue, n);
  for (int i = 0; i < n; i++) {
    HST_NEAR(s->specValues[i], (float)want[i], 0);
  }
}

static const hsSensor *sensorNamed(const hsBody *b, const char *name) {
  int i = hsm_sensorIndex(b, name);
  CU_ASSERT_FATAL(i >= 0);
  return &b->sensors[i];
}

// Rz(yaw) Rx(roll), row-major
static void rotZX(double R[9], double yaw, double roll) {
  double cy = cos(yaw), sy = sin(yaw), cr = cos(roll), sr = sin(roll);
  double M[9] = {cy, -sy * cr, sy * sr, sy, cy * cr, -cy * sr, 0, sr, cr};
  memcpy(R, M, sizeof M);
}

// OpenHRP's camera axes (right, up, backwards) in Gazebo's camera frame (x forward, z up)
static const double kRc[9] = {0, 0, -1, -1, 0, 0, 0, 1, 0};

//---------------------------------- the sample ------------------------------------------------

static void testSensorBot(void) {
  hsmWarning w[4];
  int nwarn = -1;
  hsError err = {0};
  hsBody *b = hsm_loadUrdf(HST_SAMPLES_DIR "/urdf/sensor_bot/sensor_bot.urdf", NULL, w, 4, &nwarn,
                   &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(nwarn, 0);
  CU_ASSERT_EQUAL(b->nlink, 3);
  CU_ASSERT_EQUAL(b->nsensor, 8);
  CU_ASSERT_EQUAL(hsm_sensorCount(b, hsSENSOR_VISION), 2);
  CU_ASSERT_EQUAL(hsm_sensorCount(b, hsSENSOR_RANGE), 1);
  CU_ASSERT_EQUAL(hsm_sensorCount(b, hsSENSOR_RATEGYRO), 2);
  CU_ASSERT_EQUAL(hsm_sensorCount(b, hsSENSOR_ACCELERATION), 2);
  CU_ASSERT_EQUAL(hsm_sensorCount(b, hsSENSOR_FORCE), 1);
  // ids per type in file order
  static const struct {
    const char *name;
    hstSensor type;
    int id, link;
  } want[] = {{"front_camera", hsSENSOR_VISION, 0, 0},
              {"front_depth", hsSENSOR_VISION, 1, 0},
              {"front_lidar", hsSENSOR_RANGE, 0, 0},
              {"imu", hsSENSOR_RATEGYRO, 0, 0},
              {"imu_accel", hsSENSOR_ACCELERATION, 0, 0},
              {"imu_tilted", hsSENSOR_RATEGYRO, 1, 0},
              {"imu_tilted_accel", hsSENSOR_ACCELERATION, 1, 0},
              {"wrist_ft", hsSENSOR_FORCE, 0, 2}};
  for (int i = 0; i < 8; i++) {
    const hsSensor *s = sensorNamed(b, want[i].name);
    CU_ASSERT_EQUAL(s->type, want[i].type);
    CU_ASSERT_EQUAL(s->id, want[i].id);
    CU_ASSERT_EQUAL(s->link, want[i].link);
    CU_ASSERT_EQUAL(hsm_sensorById(b, want[i].type, want[i].id), hsm_sensorIndex(b, want[i].name));
  }
  CU_ASSERT_STRING_EQUAL(b->links[2].name, "ft_joint");
  // cameras: at (0.1, 0, 0), looking along the link's +x with +z up
  double R[9], I[9];
  hsu_setIdentity(I);
  const hsSensor *cam = sensorNamed(b, "front_camera");
  HST_NEAR(cam->translation[0], 0.1, 1e-15);
  HST_NEAR(cam->translation[1], 0, 1e-15);
  HST_NEAR(cam->translation[2], 0, 1e-15);
  sensorR(R, cam);
  checkMat(R, kRc, 1e-12);
  double camSpec[7] = {0.05, 20, 1.0, 1, 160, 120, 10};
  checkSpec(cam, camSpec, 7);
  const hsSensor *depth = sensorNamed(b, "front_depth");
  sensorR(R, depth);
  checkMat(R, kRc, 1e-12);
  double depthSpec[7] = {0.05, 20, 1.0, 4, 80, 60, 10};  // COLOR_DEPTH
  checkSpec(depth, depthSpec, 7);
  // lidar: beam i of OpenHRP's fan, (-sin a, 0, -cos a) at a = (i - 40) scanStep in the sensor
  // frame, points along Gazebo's beam i, yaw -0.3 + 0.01 i in the link frame
  const hsSensor *lidar = sensorNamed(b, "front_lidar");
  HST_NEAR(lidar->translation[0], 0.1, 1e-15);
  HST_NEAR(lidar->translation[2], 0.2, 1e-15);
  CU_ASSERT_EQUAL_FATAL(lidar->nspecValue, 4);
  double angle = lidar->specValues[0], step = lidar->specValues[1];
  CU_ASSERT_EQUAL((int)(angle / 2 / step), 40);
  HST_NEAR(step, 0.01, 1e-8);
  HST_NEAR(angle, 0.8, 1e-6);
  HST_NEAR(lidar->specValues[2], 100, 0);
  HST_NEAR(lidar->specValues[3], 10, 0);
  sensorR(R, lidar);
  for (int i = 0; i <= 80; i += 20) {
    double a = (i - 40) * step, d[3] = {-sin(a), 0, -cos(a)}, v[3];
    hsu_rotVec(v, R, d);
    double yaw = -0.3 + 0.01 * i;
    HST_NEAR(v[0], cos(yaw), 1e-7);
    HST_NEAR(v[1], sin(yaw), 1e-7);
    HST_NEAR(v[2], 0, 1e-12);
  }
  // imus: the pose as written
  double none3[3] = {-1, -1, -1}, none6[6] = {-1, -1, -1, -1, -1, -1};
  const char *imus[4] = {"imu", "imu_accel", "imu_tilted", "imu_tilted_accel"};
  for (int i = 0; i < 4; i++) {
    const hsSensor *s = sensorNamed(b, imus[i]);
    HST_NEAR(s->translation[2], 0.1, 1e-15);
    sensorR(R, s);
    double Rx[9];
    rotZX(Rx, 0, i < 2 ? 0 : 0.5);
    checkMat(R, Rx, 1e-12);
    checkSpec(s, none3, 3);
  }
  // the force sensor: at the fixed joint (the load's origin), in the load's frame
  const hsSensor *ft = sensorNamed(b, "wrist_ft");
  for (int k = 0; k < 3; k++) {
    HST_NEAR(ft->translation[k], 0, 0);
  }
  sensorR(R, ft);
  checkMat(R, I, 1e-15);
  checkSpec(ft, none6, 6);
  // noise as info strings: the lidar's and the imu gyro's (no accelerometer noise given)
  CU_ASSERT_EQUAL_FATAL(b->ninfo, 2);
  CU_ASSERT_STRING_EQUAL(b->info[0], "urdf noise front_lidar range std 0.01 bias 0");
  CU_ASSERT_STRING_EQUAL(b->info[1], "urdf noise imu gyro std 0.002 0.002 0.002 bias 0 0 0");
  hsm_freeBody(b);
}

//---------------------------------- references and frames -------------------------------------

static void testJointReferenceAndFrames(void) {
  const char *text = robot(
      "  <gazebo reference=\"arm_joint\">\n"
      "    <sensor type=\"force_torque\" name=\"ft_parent\"><force_torque><frame>parent</frame>"
      "</force_torque></sensor>\n"
      "    <sensor type=\"force_torque\" name=\"ft_sensor\"><pose>0 0 0 0.3 0 0</pose>"
      "<force_torque><frame>sensor</frame></force_torque></sensor>\n"
      "    <sensor type=\"camera\" name=\"arm_cam\"><pose>1 2 3 0 0 0.4</pose></sensor>\n"
      "  </gazebo>\n"
      "  <gazebo reference=\"arm\">\n"
      "    <sensor type=\"force_torque\" name=\"ft_child\"/>\n"
      "    <sensor type=\"gpu_ray\" name=\"scan\"><ray><scan><horizontal><samples>1</samples>"
      "<min_angle>-1</min_angle><max_angle>1</max_angle></horizontal></scan>"
      "<range><max>4</max></range></ray></sensor>\n"
      "  </gazebo>\n");
  hsmWarning w[4];
  int nwarn = -1;
  hst_expectLog(1);  // arm_cam has no <camera>: Gazebo's defaults, with a warning
  hsBody *b = load("frames.urdf", text, w, 4, &nwarn);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL_FATAL(nwarn, 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(w[0].message, "'arm_cam' has no <camera>"));
  CU_ASSERT_EQUAL(w[0].line, hst_lineOf(text, "name=\"arm_cam\""));
  // every sensor sits on the arm (the joint's child); ids per type in file order
  CU_ASSERT_EQUAL(b->nsensor, 5);
  for (int i = 0; i < b->nsensor; i++) {
    CU_ASSERT_EQUAL(b->sensors[i].link, 1);
  }
  CU_ASSERT_EQUAL(sensorNamed(b, "ft_parent")->id, 0);
  CU_ASSERT_EQUAL(sensorNamed(b, "ft_sensor")->id, 1);
  CU_ASSERT_EQUAL(sensorNamed(b, "ft_child")->id, 2);
  double R[9], want[9], Rz[9];
  // parent: the base's orientation seen from the arm, Rz(90)^T
  rotZX(Rz, M_PI / 2, 0);
  hsu_transpose(want, Rz);
  sensorR(R, sensorNamed(b, "ft_parent"));
  checkMat(R, want, 1e-12);
  // sensor: the pose's rotation
  rotZX(want, 0, 0.3);
  sensorR(R, sensorNamed(b, "ft_sensor"));
  checkMat(R, want, 1e-12);
  // child: identity
  hsu_setIdentity(want);
  sensorR(R, sensorNamed(b, "ft_child"));
  checkMat(R, want, 1e-12);
  // the camera: pose (yaw 0.4) turned to OpenHRP's axes; Gazebo's defaults
  const hsSensor *cam = sensorNamed(b, "arm_cam");
  HST_NEAR(cam->translation[0], 1, 1e-15);
  HST_NEAR(cam->translation[1], 2, 1e-15);
  HST_NEAR(cam->translation[2], 3, 1e-15);
  rotZX(Rz, 0.4, 0);
  hsu_mulMat(want, Rz, kRc);
  sensorR(R, cam);
  checkMat(R, want, 1e-12);
  double camSpec[7] = {0.1, 100, 1.047, 1, 320, 240, 30};
  checkSpec(cam, camSpec, 7);
  // one sample: one beam along Gazebo's yaw 0 whatever the angles; update_rate 0: every step
  const hsSensor *scan = sensorNamed(b, "scan");
  CU_ASSERT_EQUAL((int)(scan->specValues[0] / 2 / scan->specValues[1]), 0);
  HST_NEAR(scan->specValues[2], 0, 0);
  HST_NEAR(scan->specValues[3], 4, 0);
  sensorR(R, scan);
  double d[3] = {0, 0, -1}, v[3];
  hsu_rotVec(v, R, d);
  HST_NEAR(v[0], 1, 1e-15);
  HST_NEAR(v[1], 0, 1e-15);
  hsm_freeBody(b);
}

//---------------------------------- range fans ------------------------------------------------

// beam counts survive the float specValues for common scanners
static void testBeamCounts(void) {
  static const struct {
    int samples;
    const char *min, *max;
    int beams;
  } cases[] = {{721, "-3.141592653589793", "3.141592653589793", 721},
               {1081, "-2.356194490192345", "2.356194490192345", 1081},
               {683, "-2.0862", "2.0862", 683},
               {181, "-1.5707963", "1.5707963", 181},
               {3, "-0.7", "0.1", 3},
               {640, "-1.5", "1.5", 639}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char g[1024];
    snprintf(g, sizeof g,
             "  <gazebo reference=\"base\"><sensor type=\"ray\" name=\"s\"><ray><scan>"
             "<horizontal><samples>%d</samples><min_angle>%s</min_angle>"
             "<max_angle>%s</max_angle></horizontal></scan><range><max>30</max></range>"
             "</ray></sensor></gazebo>\n",
             cases[c].samples, cases[c].min, cases[c].max);
    int even = cases[c].samples % 2 == 0;
    hst_expectLog(even);
    hsmWarning w[2];
    int nwarn = -1;
    hsBody *b = load("beams.urdf", robot(g), w, 2, &nwarn);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_EQUAL(nwarn, even);
    if (even) {
      CU_ASSERT_PTR_NOT_NULL(strstr(w[0].message, "640 samples, an even number"));
      CU_ASSERT_PTR_NOT_NULL(strstr(w[0].message, "639"));
    }
    const hsSensor *s = sensorNamed(b, "s");
    int beams = 2 * (int)(s->specValues[0] / 2 / s->specValues[1]) + 1;
    CU_ASSERT_EQUAL(beams, cases[c].beams);
    // the spacing is Gazebo's
    double min = atof(cases[c].min), max = atof(cases[c].max);
    HST_NEAR(s->specValues[1], (max - min) / (cases[c].samples - 1), 1e-6);
    hsm_freeBody(b);
  }
}

//---------------------------------- warnings --------------------------------------------------

static void testWarnings(void) {
  const char *text = robot(
      "  <gazebo reference=\"base\">\n"
      "    <sensor type=\"sonar\" name=\"sonar\"/>\n"
      "    <sensor type=\"camera\" name=\"wide\"><camera><horizontal_fov>-1</horizontal_fov>"
      "</camera></sensor>\n"
      "    <sensor type=\"ray\" name=\"empty\"><ray><scan><horizontal><samples>0</samples>"
      "</horizontal></scan><range><max>1</max></range></ray></sensor>\n"
      "    <sensor type=\"ray\" name=\"rows\"><ray><scan><horizontal><samples>5</samples>"
      "<min_angle>-1</min_angle><max_angle>1</max_angle></horizontal>"
      "<vertical><samples>3</samples><min_angle>-0.2</min_angle><max_angle>0.4</max_angle>"
      "</vertical></scan><range><max>1</max></range></ray></sensor>\n"
      "    <sensor type=\"imu\"/>\n"
      "    <sensor type=\"camera\" name=\"bad_rate\"><update_rate>fast</update_rate></sensor>\n"
      "    <sensor type=\"force_torque\" name=\"ft\"><force_torque>"
      "<measure_direction>parent_to_child</measure_direction></force_torque></sensor>\n"
      "    <sensor type=\"ray\" name=\"huge\"><ray><scan><horizontal><samples>1</samples>"
      "</horizontal></scan><range><max>1e39</max></range></ray></sensor>\n"
      "    <sensor type=\"force_torque\" name=\"base_imu_accel\"/>\n"
      "  </gazebo>\n"
      "  <gazebo><sensor type=\"imu\" name=\"nowhere\"/></gazebo>\n"
      "  <gazebo><plugin name=\"control\"/></gazebo>\n"
      "  <gazebo reference=\"ghost\"><material>Gazebo/Red</material></gazebo>\n"
      "  <gazebo reference=\"world\"><sensor type=\"imu\" name=\"on_world\"/></gazebo>\n");
  hsmWarning w[16];
  int nwarn = -1;
  hst_expectLog(1);
  hsBody *b = load("warn.urdf", text, w, 16, &nwarn);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  static const struct {
    const char *needle;  // in the message
    const char *at;      // the line that holds this text
  } want[] = {
      {"type 'sonar' is not supported", "type=\"sonar\""},
      {"'wide': horizontal_fov -1 is outside (0, pi): the sensor is skipped", "name=\"wide\""},
      {"'empty': <samples> 0 must be a whole number", "name=\"empty\""},
      {"'rows': 3 vertical samples", "name=\"rows\""},
      {"a <sensor> without a name: named 'base_imu'", "<sensor type=\"imu\"/>"},
      {"'bad_rate': <update_rate>fast</update_rate> is not 1 finite number", "bad_rate"},
      {"'ft': measure_direction parent_to_child is not supported", "parent_to_child"},
      {"'huge': a value of 1e+39 is beyond the range of float", "name=\"huge\""},
      {"a <gazebo> block without reference holds 1 <sensor>", "name=\"nowhere\""},
      {"<gazebo reference=\"ghost\">: no link or joint has that name", "ghost"},
      // then, as the body is built, in file order
      {"two sensors are named 'base_imu_accel' (the first on line 13)",
       "name=\"base_imu_accel\""},
      {"'on_world': link 'world' is the world link the body drops", "on_world"},
  };
  int n = (int)(sizeof want / sizeof want[0]);
  if (nwarn != n) {
    for (int i = 0; i < nwarn && i < 16; i++) {
      fprintf(stderr, "\n  warning %d (line %d): %s", i, w[i].line, w[i].message);
    }
  }
  CU_ASSERT_EQUAL_FATAL(nwarn, n);
  for (int i = 0; i < n; i++) {
    if (!strstr(w[i].message, want[i].needle)) {
      fprintf(stderr, "\n  warning %d: %s\n", i, w[i].message);
    }
    CU_ASSERT_PTR_NOT_NULL(strstr(w[i].message, want[i].needle));
    CU_ASSERT_EQUAL(w[i].line, hst_lineOf(text, want[i].at));
  }
  // the kept sensors: rows (middle row: a plane tilted up by 0.1 rad), the unnamed imu, ft and
  // the force sensor named as the imu's accelerometer
  CU_ASSERT_EQUAL(b->nsensor, 5);
  CU_ASSERT_EQUAL(hsm_sensorCount(b, hsSENSOR_RANGE), 1);
  CU_ASSERT_EQUAL(sensorNamed(b, "rows")->id, 0);
  CU_ASSERT_EQUAL(sensorNamed(b, "base_imu")->id, 0);
  CU_ASSERT_EQUAL(sensorNamed(b, "base_imu_accel")->id, 0);
  CU_ASSERT_EQUAL(sensorNamed(b, "ft")->id, 0);
  CU_ASSERT_EQUAL(b->sensors[hsm_sensorById(b, hsSENSOR_FORCE, 1)].type, hsSENSOR_FORCE);
  double R[9], d[3] = {0, 0, -1}, v[3];
  sensorR(R, sensorNamed(b, "rows"));
  hsu_rotVec(v, R, d);
  HST_NEAR(v[0], cos(0.1), 1e-12);
  HST_NEAR(v[1], 0, 1e-12);
  HST_NEAR(v[2], sin(0.1), 1e-12);
  hsm_freeBody(b);
}

// noise of both imu blocks and of a force_torque sensor as info strings
static void testNoiseInfo(void) {
  const char *text = robot(
      "  <gazebo reference=\"base\">\n"
      "    <sensor type=\"imu\" name=\"old\"><imu><noise><type>gaussian</type>"
      "<rate><mean>0.1</mean><stddev>0.2</stddev><bias_mean>0.05</bias_mean></rate>"
      "<accel><mean>0</mean><stddev>0.3</stddev></accel></noise></imu></sensor>\n"
      "    <sensor type=\"imu\" name=\"new\"><imu><linear_acceleration>"
      "<z><noise type=\"gaussian\"><mean>1</mean><stddev>0.5</stddev></noise></z>"
      "</linear_acceleration></imu></sensor>\n"
      "  </gazebo>\n"
      "  <gazebo reference=\"arm_joint\"><sensor type=\"force_torque\" name=\"ft\">"
      "<force_torque><torque><y><noise type=\"gaussian\"><stddev>0.25</stddev></noise></y>"
      "</torque></force_torque></sensor></gazebo>\n");
  hsBody *b = load("noise.urdf", text, NULL, 0, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL_FATAL(b->ninfo, 4);
  CU_ASSERT_STRING_EQUAL(b->info[0], "urdf noise old gyro std 0.2 0.2 0.2 bias 0.15000000000000002 "
                         "0.15000000000000002 0.15000000000000002");
  CU_ASSERT_STRING_EQUAL(b->info[1], "urdf noise old_accel accel std 0.3 0.3 0.3 bias 0 0 0");
  CU_ASSERT_STRING_EQUAL(b->info[2], "urdf noise new_accel accel std 0 0 0.5 bias 0 0 1");
  CU_ASSERT_STRING_EQUAL(b->info[3], "urdf noise ft force std 0 0 0 0 0.25 0 bias 0 0 0 0 0 0");
  hsm_freeBody(b);
}

// every allocation of a load with sensors fails in turn: hsE_NOMEM, never a crash or a leak
static void testAllocationFailure(void) {
  int loaded = 0;
  long n;
  for (n = 1; n < 20000 && !loaded; n++) {
    hsError err = {0};
    hsu_failAllocAfter(n);
    hsBody *b = hsm_loadUrdf(HST_SAMPLES_DIR "/urdf/sensor_bot/sensor_bot.urdf", NULL, NULL, 0,
                             NULL, &err);
    hsu_failAllocAfter(0);
    CU_ASSERT(b != NULL || err.code == hsE_NOMEM);
    if (b) {
      loaded = 1;
      CU_ASSERT_EQUAL(b->nsensor, 8);
    }
    hsm_freeBody(b);
  }
  CU_ASSERT(loaded);
}

void register_urdf_sensors(void) {
  CU_pSuite s = hst_addSuite("urdf_sensors");
  CU_add_test(s, "sensor_bot: every kind, ids, frames, specs, noise", testSensorBot);
  CU_add_test(s, "joint references and force_torque frames", testJointReferenceAndFrames);
  CU_add_test(s, "range beam counts through float specValues", testBeamCounts);
  CU_add_test(s, "unusable and unsupported sensors warn with lines", testWarnings);
  CU_add_test(s, "noise info strings", testNoiseInfo);
  CU_add_test(s, "allocation failure", testAllocationFailure);
}
