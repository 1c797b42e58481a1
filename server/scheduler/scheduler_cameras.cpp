// scheduler_cameras.cpp - the scheduler's cameras: a ViewSimulator hosted in the scheduler's
// process for the length of a run (scheduler.h, idl/Scheduler.idl setCameraOutput / view).
//
// At the start of a run whose models declare VisionSensors (or when a camera directory is set)
// the scheduler makes a ViewSimulatorServant, registers every character with the bodies the
// simulation already holds (no second load), and hands its reference to the controllers
// (setViewSimulator). Its scene follows the simulation: link poses are copied from the world
// before the controllers of a step run and before frames are taken.
//
// Frames: each camera that stores frames is a frame stream of the core's run (core.h): frame k
// of a camera of frame rate r is due at the first step count that reaches k / r (the core's
// rule, hs_frameStep), so when 1 / r is a whole multiple of dt the frame times are exactly
// k / r; at most one frame per camera per step (frames due within one step are one picture,
// the first). Frames are decided from step counts only: two runs take the same frames. With a
// camera directory, each frame is written as PNG (colour or mono frame_NNNNNN.png; depth
// depth_NNNNNN.png, 16-bit millimetres) beside frames.csv (frame, step, time). (Stills of a run
// are taken afterwards by `hrpsim run` with hrpsim-stills, at moments chosen from the log:
// python/hrpsim/stills.py.)
// A rendering failure (no headless GL in this process) is logged once and the run goes on
// without cameras.

#include <cinttypes>
#include <filesystem>

#include "format.h"
#include "runtime.h"
#include "scheduler.h"

namespace hrpsim {

namespace {

// a file-name-safe version of a model or sensor name
std::string safeName(const std::string &s) {
  std::string out;
  for (char c : s) {
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') ? c : '_';
  }
  return out.empty() ? "_" : out;
}

}  // namespace

// make the run's view (mutex_ not held; before the loop starts)
void SchedulerServant::makeView(const char *op) {
  {
    std::lock_guard<std::mutex> lk(mutex_);  // view() reads viewRef_ under it
    releaseView();
  }
  int vision = 0;
  {
    SimLock core(sim_);
    for (int ch = 0; ch < hs_characterCount(sim_.get()); ch++) {
      int n = 0;
      hs_sensorsOfType(sim_.get(), ch, hsSENSOR_VISION, &n);
      vision += n;
    }
  }
  if (vision == 0 && runCameraDir_.empty()) {
    return;
  }
  PortableServer::POA_ptr poa = Runtime::instance()->poa();
  try {
    view_ = new ViewSimulatorServant(ColorFormat::ARGB);
  } catch (const CORBA::Exception &e) {
    hsu_log(hsLOG_WARNING, "%s: cameras are not rendered: no headless OpenGL here (%s)", op,
            e._name());
    return;
  }
  viewOid_ = poa->activate_object(view_);
  CORBA::Object_var obj = poa->id_to_reference(viewOid_);
  {
    std::lock_guard<std::mutex> lk(mutex_);
    viewRef_ = OpenHRP::ViewSimulator::_narrow(obj);
  }
  {
    SimLock core(sim_);
    std::lock_guard<std::mutex> lock(*view_->mutex());
    for (int ch = 0; ch < hs_characterCount(sim_.get()); ch++) {
      // the body as the simulation holds it; the alias keeps the simulation (and so the body)
      // alive
      BodyPtr body(sim_, hs_body(sim_.get(), ch));
      view_->core()->addCharacter(op, hs_characterName(sim_.get(), ch), body);
    }
  }
  cams_.clear();
  const auto &cams = view_->core()->cameras();
  for (size_t i = 0; i < cams.size(); i++) {
    RunCamera rc;
    rc.index = static_cast<int>(i);
    rc.rate = cams[i].spec.frameRate;
    if (!runCameraDir_.empty() && cams[i].spec.type != hsCAMERA_NONE) {
      std::filesystem::path dir = std::filesystem::path(runCameraDir_) / "cameras" /
                                  (safeName(view_->core()->characterName(cams[i].character)) +
                                   "-" + safeName(cams[i].name));
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      rc.dir = dir.string();
      rc.csv = std::fopen((dir / "frames.csv").c_str(), "w");
      if (ec || !rc.csv) {
        hsu_log(hsLOG_WARNING, "%s: cannot write camera frames to %s", op, rc.dir.c_str());
        rc.dir.clear();
      } else {
        std::fprintf(rc.csv, "frame,step,time\n");
      }
    }
    // its frames in the run (none when it stores none: getImageData renders anew)
    rc.stream = hs_runAddFrames(plan_, rc.dir.empty() ? 0.0 : rc.rate, nullptr);
    cams_.push_back(rc);
  }
  hsu_log(hsLOG_INFO, "%zu cameras (%s)", cams_.size(),
          runCameraDir_.empty() ? "frames not stored" : runCameraDir_.c_str());
}

// drop the view of the last run (no loop running; mutex_ held, or no request can race)
void SchedulerServant::releaseView() {
  for (RunCamera &c : cams_) {
    if (c.csv) {
      std::fclose(c.csv);
      c.csv = nullptr;
    }
  }
  cams_.clear();
  if (!view_) {
    return;
  }
  try {
    view_->destroy();  // its cameras too
  } catch (const CORBA::Exception &e) {
    hsu_log(hsLOG_DEBUG, "could not deactivate the old ViewSimulator: %s", e._name());
  }
  viewRef_ = OpenHRP::ViewSimulator::_nil();
  view_->_remove_ref();
  view_ = nullptr;
}

// copy every character's link poses from the world into the view's scene
void SchedulerServant::syncView() {
  if (!view_) {
    return;
  }
  SimLock core(sim_);
  std::lock_guard<std::mutex> lock(*view_->mutex());
  for (int ch = 0; ch < hs_characterCount(sim_.get()); ch++) {
    view_->core()->setPose(hs_characterName(sim_.get(), ch), hs_linkP(sim_.get(), ch),
                           hs_linkR(sim_.get(), ch));
  }
}

// take the frames due at step k (time: the world's time after it)
void SchedulerServant::renderDueFrames(long long k, double time) {
  if (!view_ || cams_.empty()) {
    return;
  }
  bool synced = false;
  try {
    for (RunCamera &c : cams_) {
      long long frame = c.dir.empty() ? -1 : hs_runFrameDue(plan_, c.stream, k);
      if (frame < 0) {
        continue;  // only cameras that store frames count theirs (getImageData renders anew)
      }
      if (!synced) {
        syncView();
        synced = true;
      }
      {
        std::lock_guard<std::mutex> lock(*view_->mutex());
        view_->core()->render(c.index, frame_);
      }
      const CameraInfo &cam = view_->core()->cameras()[static_cast<size_t>(c.index)];
      hsError err = {};
      int w = frame_.width, h = frame_.height, rc = 0;
      std::string name = format("%s/frame_%06lld.png", c.dir.c_str(), frame);
      if (!frame_.mono.empty()) {
        rc = hsr_writePng(name.c_str(), frame_.mono.data(), w, h, 1, &err);
      } else if (!frame_.rgb.empty()) {
        rc = hsr_writePng(name.c_str(), frame_.rgb.data(), w, h, 3, &err);
      }
      if (rc == 0 && !frame_.depth.empty()) {
        std::vector<unsigned short> mm(frame_.depth.size());
        hsr_depthToMillimetres(mm.data(), frame_.depth.data(), static_cast<int>(mm.size()));
        rc = hss_writePng16(format("%s/depth_%06lld.png", c.dir.c_str(), frame).c_str(),
                            mm.data(), w, h, &err);
      }
      if (rc != 0) {
        hsu_log(hsLOG_WARNING, "camera '%s': %s; its frames are no longer stored",
                cam.name.c_str(), describe(err).c_str());
        c.dir.clear();
        hs_runSetFrameRate(plan_, c.stream, 0.0, nullptr);
        continue;
      }
      std::fprintf(c.csv, "%lld,%lld,%.17g\n", frame, k, time);
      std::fflush(c.csv);
    }
  } catch (const CORBA::Exception &e) {
    hsu_log(hsLOG_WARNING, "rendering failed (%s): the cameras stop for this run", e._name());
    for (RunCamera &c : cams_) {
      if (c.csv) {
        std::fclose(c.csv);
      }
      hs_runSetFrameRate(plan_, c.stream, 0.0, nullptr);
    }
    cams_.clear();
  }
}

}  // namespace hrpsim
