// view_simulator.cpp - the ViewSimulator servants and ViewCore (view_simulator.h).
//
// Locks: a servant's calls take its instance mutex (shared with its cameras); the core's view
// calls take the process's render lock around anything that touches GL and release the context
// from the thread before letting it go, so omniORB's next request thread can take it.

#include "view_simulator.h"

#include <cmath>
#include <cstring>

#include "format.h"
#include "runtime.h"

namespace hrpsim {

namespace {

[[noreturn]] void badParam(const char *op, const std::string &what) {
  logRequestError(op, what);
  throw CORBA::BAD_PARAM(0, CORBA::COMPLETED_NO);
}

}  // namespace

void requireRenderer(const char *op) {
  hsError err = {};
  if (!hs_rendererInfo(&err)) {
    logRequestError(op, describe(err));
    throw CORBA::NO_RESOURCES(0, CORBA::COMPLETED_NO);
  }
}

//---------------------------------- ViewCore --------------------------------------------------

ViewCore::ViewCore() {
  requireRenderer("create");
  hsError err = {};
  view_ = hs_makeView(&err);
  if (!view_) {
    raiseSystemException("create", err);
  }
}

ViewCore::~ViewCore() {
  hs_freeView(view_);
}

int ViewCore::characterIndex(const std::string &name) const {
  for (size_t i = 0; i < chars_.size(); i++) {
    if (chars_[i].name == name) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

void ViewCore::addCharacter(const char *op, const std::string &name, BodyPtr body) {
  if (characterIndex(name) >= 0) {
    badParam(op, format("character '%s' is already registered", name.c_str()));
  }
  hsError err = {};
  int index = hs_viewAddBody(view_, body.get(), &err);
  if (index < 0) {
    raiseSystemException(op, err);
  }
  int ch = static_cast<int>(chars_.size());
  chars_.push_back({name, body, index});
  // its cameras in sensorId order
  const hsBody *b = body.get();
  int n = hsm_sensorCount(b, hsSENSOR_VISION);
  for (int id = 0, found = 0; found < n && id < 100000; id++) {
    int s = hsm_sensorById(b, hsSENSOR_VISION, id);
    if (s < 0) {
      continue;
    }
    found++;
    CameraInfo cam;
    cam.character = ch;
    cam.sensor = s;
    cam.sensorId = id;
    cam.name = b->sensors[s].name;
    cam.defName = b->sensors[s].name;
    hsError err = {};
    if (hsr_cameraSpec(&b->sensors[s], &cam.spec, &err) != 0) {
      hsu_log(hsLOG_WARNING, "%s: character '%s': no camera for %s", op, name.c_str(),
              describe(err).c_str());
      continue;
    }
    cameras_.push_back(cam);
  }
}

bool ViewCore::setPose(const std::string &name, const double *linkP, const double *linkR) {
  int ch = characterIndex(name);
  if (ch < 0) {
    return false;
  }
  return hs_viewSetPose(view_, chars_[ch].index, linkP, linkR, nullptr) == 0;
}

void ViewCore::update(const char *op, const OpenHRP::WorldState &state) {
  // check everything first
  std::vector<int> which(state.characterPositions.length());
  for (CORBA::ULong i = 0; i < state.characterPositions.length(); i++) {
    const OpenHRP::CharacterPosition &cp = state.characterPositions[i];
    int ch = characterIndex(cp.characterName.in());
    if (ch < 0) {
      std::string known;
      for (const Character &c : chars_) {
        known += (known.empty() ? "'" : ", '") + c.name + "'";
      }
      badParam(op, format("unknown character '%s' (registered: %s)", cp.characterName.in(),
                          known.empty() ? "none" : known.c_str()));
    }
    int n = chars_[ch].body->nlink;
    if (cp.linkPositions.length() != static_cast<CORBA::ULong>(n)) {
      badParam(op, format("character '%s': %u link positions for %d links",
                          cp.characterName.in(), cp.linkPositions.length(), n));
    }
    for (int l = 0; l < n; l++) {
      const OpenHRP::LinkPosition &lp = cp.linkPositions[l];
      bool ok = true;
      for (int j = 0; j < 3; j++) {
        ok = ok && std::isfinite(lp.p[j]);
      }
      for (int j = 0; j < 9; j++) {
        ok = ok && std::isfinite(lp.R[j]);
      }
      if (!ok) {
        badParam(op, format("character '%s', link %d: position not finite",
                            cp.characterName.in(), l));
      }
    }
    which[i] = ch;
  }
  for (CORBA::ULong i = 0; i < state.characterPositions.length(); i++) {
    const OpenHRP::CharacterPosition &cp = state.characterPositions[i];
    int n = chars_[which[i]].body->nlink;
    std::vector<double> p(3 * n), R(9 * n);
    for (int l = 0; l < n; l++) {
      for (int j = 0; j < 3; j++) {
        p[3 * l + j] = cp.linkPositions[l].p[j];
      }
      for (int j = 0; j < 9; j++) {
        R[9 * l + j] = cp.linkPositions[l].R[j];
      }
    }
    hs_viewSetPose(view_, chars_[which[i]].index, p.data(), R.data(), nullptr);
  }
}

void ViewCore::render(int c, Frame &frame, bool all) {
  const CameraInfo &cam = cameras_.at(c);
  const Character &ch = chars_[cam.character];
  int images = hsr_cameraImages(cam.spec.type);
  // mono images are made from the colour ones
  bool color = all || (images & (hsrIMAGE_COLOR | hsrIMAGE_MONO)) != 0;
  bool mono = all || (images & hsrIMAGE_MONO) != 0;
  bool depth = all || (images & hsrIMAGE_DEPTH) != 0;
  int w = cam.spec.width, h = cam.spec.height;
  size_t n = static_cast<size_t>(w) * h;
  frame.width = w;
  frame.height = h;
  frame.rgb.resize(color ? 3 * n : 0);
  frame.mono.resize(mono ? n : 0);
  frame.depth.resize(depth ? n : 0);
  if (!color && !depth) {
    return;
  }
  hsError err = {};
  if (hs_viewRenderCamera(view_, ch.index, cam.sensor, color ? frame.rgb.data() : nullptr,
                          depth ? frame.depth.data() : nullptr, &err) != 0) {
    raiseSystemException("getImageData", err);
  }
  if (mono) {
    hsr_rgbToMono(frame.mono.data(), frame.rgb.data(), static_cast<int>(n));
  }
}

//---------------------------------- Camera ----------------------------------------------------

CameraServant::CameraServant(std::shared_ptr<ViewCore> core, std::shared_ptr<std::mutex> mutex,
                             int index, ColorFormat format)
    : core_(std::move(core)), mutex_(std::move(mutex)), index_(index), format_(format) {}

void CameraServant::destroy() {
  // cameras live as long as their ViewSimulator (OpenHRP's destroy only drops its window)
  hsu_log(hsLOG_DEBUG, "Camera::destroy: the camera stays until its ViewSimulator goes");
}

OpenHRP::Camera::CameraParameter *CameraServant::getCameraParameter() {
  std::lock_guard<std::mutex> lock(*mutex_);
  const CameraInfo &cam = core_->cameras().at(index_);
  auto *p = new OpenHRP::Camera::CameraParameter;
  p->type = static_cast<OpenHRP::Camera::CameraType>(cam.spec.type);
  p->frontClipDistance = static_cast<CORBA::Float>(cam.spec.nearClip);
  p->backClipDistance = static_cast<CORBA::Float>(cam.spec.farClip);
  p->fieldOfView = static_cast<CORBA::Float>(cam.spec.fieldOfView);
  p->sensorId = cam.sensorId;
  p->sensorName = cam.name.c_str();
  p->defName = cam.defName.c_str();
  p->width = cam.spec.width;
  p->height = cam.spec.height;
  p->frameRate = static_cast<CORBA::Float>(cam.spec.frameRate);
  return p;
}

OpenHRP::ImageData *CameraServant::getImageData() {
  std::lock_guard<std::mutex> lock(*mutex_);
  const CameraInfo &cam = core_->cameras().at(index_);
  core_->render(index_, frame_);
  auto *img = new OpenHRP::ImageData;
  img->width = frame_.width;
  img->height = frame_.height;
  size_t n = static_cast<size_t>(frame_.width) * frame_.height;
  hstCamera type = cam.spec.type;
  int images = hsr_cameraImages(type);
  bool color = (images & hsrIMAGE_COLOR) != 0;
  bool mono = (images & hsrIMAGE_MONO) != 0;
  img->format = mono ? OpenHRP::GRAY
                : type == hsCAMERA_DEPTH ? OpenHRP::DEPTH
                : (color && format_ == ColorFormat::RGB) ? OpenHRP::RGB
                                                         : OpenHRP::ARGB;
  if (color && format_ == ColorFormat::RGB) {
    img->octetData.length(static_cast<CORBA::ULong>(3 * n));
    std::memcpy(img->octetData.get_buffer(), frame_.rgb.data(), 3 * n);
  } else if (color) {
    img->longData.length(static_cast<CORBA::ULong>(n));
    CORBA::Long *out = img->longData.get_buffer();
    const unsigned char *p = frame_.rgb.data();
    for (size_t i = 0; i < n; i++) {
      uint32_t v = 0xff000000u | (uint32_t(p[3 * i]) << 16) | (uint32_t(p[3 * i + 1]) << 8) |
                   uint32_t(p[3 * i + 2]);
      out[i] = static_cast<CORBA::Long>(v);
    }
  }
  if (mono) {
    img->octetData.length(static_cast<CORBA::ULong>(n));
    std::memcpy(img->octetData.get_buffer(), frame_.mono.data(), n);
  }
  if (!frame_.depth.empty()) {
    img->floatData.length(static_cast<CORBA::ULong>(n));
    std::memcpy(img->floatData.get_buffer(), frame_.depth.data(), n * sizeof(float));
  }
  return img;
}

//---------------------------------- ViewSimulator ---------------------------------------------

ViewSimulatorServant::ViewSimulatorServant(ColorFormat format)
    : core_(std::make_shared<ViewCore>()), mutex_(std::make_shared<std::mutex>()),
      format_(format) {}

ViewSimulatorServant::~ViewSimulatorServant() = default;

void ViewSimulatorServant::registerCharacter(const char *name, OpenHRP::BodyInfo_ptr cinfo) {
  const char *op = "registerCharacter";
  if (CORBA::is_nil(cinfo)) {
    badParam(op, format("'%s': nil BodyInfo", name));
  }
  std::lock_guard<std::mutex> lock(*mutex_);
  if (core_->characterIndex(name) >= 0) {
    badParam(op, format("character '%s' is already registered", name));
  }
  hsError err = {};
  hsBody *raw = nullptr;
  try {
    raw = bodyFromInfo(cinfo, &err);
  } catch (const CORBA::SystemException &e) {
    badParam(op, format("'%s': cannot read its BodyInfo: CORBA %s", name, e._name()));
  }
  if (!raw) {
    badParam(op, format("'%s': bad BodyInfo: %s", name, describe(err).c_str()));
  }
  core_->addCharacter(op, name, shareBody(raw));
  hsu_log(hsLOG_INFO, "registered '%s' (%zu cameras in the scene)", name,
          core_->cameras().size());
}

OpenHRP::Camera_ptr ViewSimulatorServant::cameraRef(int index) {
  while (cameraRefs_.size() <= static_cast<size_t>(index)) {
    cameraRefs_.emplace_back();
    cameraIds_.emplace_back();
  }
  if (CORBA::is_nil(cameraRefs_[index])) {
    auto *cam = new CameraServant(core_, mutex_, index, format_);
    PortableServer::POA_ptr poa = Runtime::instance()->poa();
    cameraIds_[index] = poa->activate_object(cam);
    cam->_remove_ref();
    CORBA::Object_var obj = poa->id_to_reference(cameraIds_[index]);
    cameraRefs_[index] = OpenHRP::Camera::_narrow(obj);
  }
  return OpenHRP::Camera::_duplicate(cameraRefs_[index]);
}

void ViewSimulatorServant::getCameraSequence(OpenHRP::CameraSequence_out cameras) {
  std::lock_guard<std::mutex> lock(*mutex_);
  cameras = new OpenHRP::CameraSequence;
  size_t n = core_->cameras().size();
  cameras->length(static_cast<CORBA::ULong>(n));
  for (size_t i = 0; i < n; i++) {
    (*cameras)[i] = cameraRef(static_cast<int>(i));
  }
}

void ViewSimulatorServant::getCameraSequenceOf(const char *objectName,
                                               OpenHRP::CameraSequence_out cameras) {
  std::lock_guard<std::mutex> lock(*mutex_);
  int ch = core_->characterIndex(objectName);
  if (ch < 0) {
    badParam("getCameraSequenceOf", format("unknown character '%s'", objectName));
  }
  cameras = new OpenHRP::CameraSequence;
  for (size_t i = 0; i < core_->cameras().size(); i++) {
    if (core_->cameras()[i].character == ch) {
      CORBA::ULong k = cameras->length();
      cameras->length(k + 1);
      (*cameras)[k] = cameraRef(static_cast<int>(i));
    }
  }
}

void ViewSimulatorServant::updateScene(const OpenHRP::WorldState &state) {
  std::lock_guard<std::mutex> lock(*mutex_);
  core_->update("updateScene", state);
}

void ViewSimulatorServant::destroy() {
  PortableServer::POA_ptr poa = Runtime::instance()->poa();
  std::lock_guard<std::mutex> lock(*mutex_);
  for (auto &id : cameraIds_) {
    if (id.operator->()) {
      try {
        poa->deactivate_object(id.in());
      } catch (const CORBA::Exception &) {
      }
    }
  }
  PortableServer::ObjectId_var oid = poa->servant_to_id(this);
  poa->deactivate_object(oid);
}

//---------------------------------- factory ---------------------------------------------------

OpenHRP::ViewSimulator_ptr ViewSimulatorFactoryServant::create() {
  auto *vs = new ViewSimulatorServant(format_);
  PortableServer::POA_ptr poa = Runtime::instance()->poa();
  PortableServer::ObjectId_var oid = poa->activate_object(vs);
  vs->_remove_ref();
  CORBA::Object_var obj = poa->id_to_reference(oid);
  return OpenHRP::ViewSimulator::_narrow(obj);
}

void ViewSimulatorFactoryServant::shutdown() {
  hsu_log(hsLOG_INFO, "shutdown requested by a client");
  Runtime::instance()->requestShutdown();
}

}  // namespace hrpsim
