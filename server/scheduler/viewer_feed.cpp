// viewer_feed.cpp - ViewerFeed (viewer_feed.h): one delivery thread per attached viewer.

#include "viewer_feed.h"

#include <omniORB4/CORBA.h>

#include <deque>

#include "util.h"

namespace hrpsim {

struct ViewerFeed::Shared {
  std::mutex mutex;
  std::condition_variable cv;
  OpenHRP::OnlineViewer_var viewer;
  std::deque<std::pair<std::string, std::string>> loads;  // models to load, in order
  std::unique_ptr<OpenHRP::WorldState> frame;              // the newest frame, if any
  bool closing = false;
  bool failed = false;
  long delivered = 0;
  long replaced = 0;
};

ViewerFeed::ViewerFeed(OpenHRP::OnlineViewer_ptr viewer, unsigned long callTimeoutMs)
    : s_(std::make_shared<Shared>()) {
  s_->viewer = OpenHRP::OnlineViewer::_duplicate(viewer);
  omniORB::setClientCallTimeout(s_->viewer, static_cast<CORBA::ULong>(callTimeoutMs));
  thread_ = std::thread(&ViewerFeed::run, s_);
}

ViewerFeed::~ViewerFeed() {
  close(true);
}

void ViewerFeed::load(const std::vector<std::pair<std::string, std::string>> &models) {
  std::lock_guard<std::mutex> lk(s_->mutex);
  if (s_->closing || s_->failed) {
    return;
  }
  s_->loads.insert(s_->loads.end(), models.begin(), models.end());
  s_->cv.notify_all();
}

void ViewerFeed::push(OpenHRP::WorldState *world) {
  std::unique_ptr<OpenHRP::WorldState> owned(world);  // freed here unless queued
  std::lock_guard<std::mutex> lk(s_->mutex);
  if (s_->closing || s_->failed) {
    return;
  }
  if (s_->frame) {
    s_->replaced++;
  }
  s_->frame = std::move(owned);
  s_->cv.notify_all();
}

void ViewerFeed::close(bool wait) {
  {
    std::lock_guard<std::mutex> lk(s_->mutex);
    s_->closing = true;
    s_->loads.clear();
    s_->frame.reset();
    s_->cv.notify_all();
  }
  if (thread_.joinable()) {
    if (wait) {
      thread_.join();
    } else {
      thread_.detach();  // it holds s_ until its call returns, then ends
    }
  }
}

long ViewerFeed::delivered() const {
  std::lock_guard<std::mutex> lk(s_->mutex);
  return s_->delivered;
}

long ViewerFeed::replaced() const {
  std::lock_guard<std::mutex> lk(s_->mutex);
  return s_->replaced;
}

bool ViewerFeed::failed() const {
  std::lock_guard<std::mutex> lk(s_->mutex);
  return s_->failed;
}

// the delivery thread: loads first, then the newest frame; the lock is never held during a call
void ViewerFeed::run(std::shared_ptr<Shared> s) {
  std::unique_lock<std::mutex> lk(s->mutex);
  for (;;) {
    s->cv.wait(lk, [&] {
      return s->closing || !s->loads.empty() || s->frame != nullptr;
    });
    if (s->closing) {
      return;
    }
    std::pair<std::string, std::string> model;
    std::unique_ptr<OpenHRP::WorldState> frame;
    bool isLoad = !s->loads.empty();
    if (isLoad) {
      model = s->loads.front();
      s->loads.pop_front();
    } else {
      frame = std::move(s->frame);
    }
    lk.unlock();
    const char *op = isLoad ? "load" : "update";
    std::string why;
    try {
      if (isLoad) {
        s->viewer->load(model.first.c_str(), model.second.c_str());
      } else {
        s->viewer->update(*frame);
      }
    } catch (const CORBA::SystemException &e) {
      const char *minor = e.NP_minorString();
      why = std::string("CORBA::") + e._name() + (minor ? std::string(" (") + minor + ")" : "");
    } catch (const CORBA::Exception &e) {
      why = e._name();
    }
    lk.lock();
    if (!why.empty()) {
      if (!s->closing) {
        hsu_log(hsLOG_WARNING, "the online viewer failed (%s() raised %s): detached", op,
                why.c_str());
      }
      s->failed = true;
      s->loads.clear();
      s->frame.reset();
      return;
    }
    if (!isLoad) {
      s->delivered++;
    }
  }
}

}  // namespace hrpsim
