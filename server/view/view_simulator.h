// view_simulator.h - OpenHRP's ViewSimulator, Camera and ViewSimulatorFactory servants over the
// core's view (hsView, core.h: the one code that builds a render scene and draws a camera, on
// the process's one headless GL context), and ViewCore, the C++ wrapper they share with the
// scheduler, which renders its cameras in its own process.
//
// A ViewCore is one hsView: the characters registered (their BodyInfo read once through
// bodyFromInfo, the conversion every server uses, or the bodies a simulation holds), their link
// poses (updateScene), and one camera per VisionSensor in character order, then each
// character's sensors in sensorId order. Rendering is serialised process-wide by the GL
// context's own lock (sensors/render/), taken inside the core's view calls.
//
// ImageData by camera type (as OpenHRP 3.1's own ViewSimulator fills it):
//   COLOR        format ARGB, longData: one 0xFFRRGGBB per pixel
//   MONO         format GRAY, octetData: one luminance byte per pixel (0.299 R + 0.587 G +
//                0.114 B, truncated)
//   DEPTH        format DEPTH, floatData: metres along the optical axis, the back clip
//                distance where nothing is seen
//   COLOR_DEPTH  format ARGB, longData and floatData
//   MONO_DEPTH   format GRAY, octetData and floatData
//   NONE         format ARGB, no data
// With the factory's colour format set to RGB (hrpsim-view --color-format rgb) colour goes as
// format RGB, octetData with 3 bytes per pixel instead (a quarter less data, no unpacking).
// Rows are top first, width and height as the VisionSensor declares them.
//
// Errors: an unknown character, a link position list of the wrong length, non-finite numbers,
// a registered name registered again, an unreadable BodyInfo raise CORBA::BAD_PARAM with one
// log line; the state is unchanged. A VisionSensor with bad specValues gets no camera (logged).

#ifndef HRPSIM_SERVER_VIEW_VIEW_SIMULATOR_H_
#define HRPSIM_SERVER_VIEW_VIEW_SIMULATOR_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ViewSimulator.hh"
#include "body_info.h"
#include "core.h"
#include "render.h"

namespace hrpsim {

// open the process's GL context if it is not open yet (the log names the device); throws
// CORBA::NO_RESOURCES, logged, when there is no headless GL
void requireRenderer(const char *op);

// how colour crosses the wire
enum class ColorFormat { ARGB, RGB };

// one camera of a ViewCore
struct CameraInfo {
  int character;  // index in the core's characters
  int sensor;     // index into the body's sensors
  int sensorId;   // the VisionSensor's sensorId
  std::string name, defName;
  hsrCameraSpec spec;
};

// one picture of a camera, as the core renders it
struct Frame {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;    // 3 per pixel, rows top first (empty for DEPTH / NONE)
  std::vector<unsigned char> mono;   // 1 per pixel (MONO, MONO_DEPTH)
  std::vector<float> depth;          // [m] (DEPTH, COLOR_DEPTH, MONO_DEPTH)
};

class ViewCore {
 public:
  ViewCore();  // throws CORBA::NO_RESOURCES (logged) when there is no headless GL
  ~ViewCore();
  ViewCore(const ViewCore &) = delete;
  ViewCore &operator=(const ViewCore &) = delete;

  // add a character from a local body (shared); throws CORBA::BAD_PARAM (logged) on a name
  // already registered
  void addCharacter(const char *op, const std::string &name, BodyPtr body);
  // set one character's link poses (3 + 9 per link, as hsBodyState); false if unknown name
  bool setPose(const std::string &name, const double *linkP, const double *linkR);
  // set poses from a WorldState (checked first: nothing changes when any entry is bad)
  void update(const char *op, const OpenHRP::WorldState &state);

  const std::vector<CameraInfo> &cameras() const { return cameras_; }
  int characterIndex(const std::string &name) const;
  const std::string &characterName(int i) const { return chars_[i].name; }

  // render camera c at the current poses into frame (everything its type asks for; all of it
  // when all is true)
  void render(int c, Frame &frame, bool all = false);

 private:
  struct Character {
    std::string name;
    BodyPtr body;
    int index;  // its body's index in view_
  };
  std::vector<Character> chars_;
  std::vector<CameraInfo> cameras_;
  hsView *view_ = nullptr;
};

class ViewSimulatorServant;

class CameraServant : public POA_OpenHRP::Camera {
 public:
  CameraServant(std::shared_ptr<ViewCore> core, std::shared_ptr<std::mutex> mutex, int index,
                ColorFormat format);
  void destroy() override;
  OpenHRP::Camera::CameraParameter *getCameraParameter() override;
  OpenHRP::ImageData *getImageData() override;

 private:
  std::shared_ptr<ViewCore> core_;
  std::shared_ptr<std::mutex> mutex_;
  int index_;
  ColorFormat format_;
  Frame frame_;
};

class ViewSimulatorServant : public POA_OpenHRP::ViewSimulator {
 public:
  explicit ViewSimulatorServant(ColorFormat format = ColorFormat::ARGB);
  ~ViewSimulatorServant() override;

  void registerCharacter(const char *name, OpenHRP::BodyInfo_ptr cinfo) override;
  void destroy() override;
  void getCameraSequence(OpenHRP::CameraSequence_out cameras) override;
  void getCameraSequenceOf(const char *objectName, OpenHRP::CameraSequence_out cameras) override;
  void updateScene(const OpenHRP::WorldState &state) override;

  // the shared core and its lock (for a host that renders in-process, e.g. the scheduler)
  const std::shared_ptr<ViewCore> &core() const { return core_; }
  const std::shared_ptr<std::mutex> &mutex() const { return mutex_; }

 private:
  OpenHRP::Camera_ptr cameraRef(int index);
  std::shared_ptr<ViewCore> core_;
  std::shared_ptr<std::mutex> mutex_;
  ColorFormat format_;
  std::vector<OpenHRP::Camera_var> cameraRefs_;  // by camera index, made on first request
  std::vector<PortableServer::ObjectId_var> cameraIds_;
};

class ViewSimulatorFactoryServant : public POA_OpenHRP::ViewSimulatorFactory {
 public:
  explicit ViewSimulatorFactoryServant(ColorFormat format) : format_(format) {}
  OpenHRP::ViewSimulator_ptr create() override;
  void shutdown() override;

 private:
  ColorFormat format_;
};

}  // namespace hrpsim

#endif  // HRPSIM_SERVER_VIEW_VIEW_SIMULATOR_H_
