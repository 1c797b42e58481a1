// viewer_feed.h - the scheduler's link to an online viewer: world states pushed by the
// simulation loop are delivered to OpenHRP::OnlineViewer::update by a thread of the feed's own,
// so the loop never waits on the viewer.
//
// The feed holds at most one frame waiting for delivery: a frame pushed while the previous one
// is still waiting replaces it (the viewer only ever wants the newest state), so a slow viewer
// sees fewer frames and a blocked or dead one costs the loop nothing but the push. Models to
// load (OnlineViewer::load) are delivered before any frame. The first remote call that fails
// detaches the viewer: it is logged once and everything pushed afterwards is dropped. Every
// remote call has a client call timeout (callTimeoutMs), so a viewer that hangs ends up failing
// too.

#ifndef HRPSIM_SERVER_SCHEDULER_VIEWER_FEED_H_
#define HRPSIM_SERVER_SCHEDULER_VIEWER_FEED_H_

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "OnlineViewer.hh"

namespace hrpsim {

class ViewerFeed {
 public:
  // start delivering to viewer (not nil; duplicated) from a new thread
  ViewerFeed(OpenHRP::OnlineViewer_ptr viewer, unsigned long callTimeoutMs);
  // close(true)
  ~ViewerFeed();

  // queue OnlineViewer::load(name, url) for each model, before any frame
  void load(const std::vector<std::pair<std::string, std::string>> &models);
  // queue a world state (owned by the feed from now on), replacing a frame not yet delivered;
  // never blocks on the viewer
  void push(OpenHRP::WorldState *world);
  // stop delivering: a waiting frame is dropped. wait: join the thread (at most one call's
  // timeout); otherwise a call in progress is left to finish on a detached thread
  void close(bool wait);

  // frames delivered / replaced before delivery / pushed after a failure or close
  long delivered() const;
  long replaced() const;
  // the viewer failed (and was detached)
  bool failed() const;

 private:
  struct Shared;  // what the thread and the feed share (outlives a detached thread's call)
  static void run(std::shared_ptr<Shared> s);
  std::shared_ptr<Shared> s_;
  std::thread thread_;
};

}  // namespace hrpsim

#endif  // HRPSIM_SERVER_SCHEDULER_VIEWER_FEED_H_
