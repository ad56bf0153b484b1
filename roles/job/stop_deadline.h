// For a role that keeps working after SIGTERM because others depend on it: a
// sampler serves its trainer until the trainer stops (after its step and
// checkpoint; roles/trainer/loop/epoch_loop.h) and says SHUTDOWN.
//
// StopDeadline makes SIGTERM set the stop flag (common/base/stop_request.h)
// instead of ending the process, logs when it arrives, and ends the process
// (exit 0, logs flushed) if it still runs `seconds` later (network.stop_seconds).
#pragma once

#include <atomic>
#include <string>
#include <thread>

namespace dg {

class StopDeadline {
 public:
  // `waiting_for`: what the process serves meanwhile, for the log line.
  StopDeadline(std::string waiting_for, double seconds);
  ~StopDeadline();
  StopDeadline(const StopDeadline&) = delete;
  StopDeadline& operator=(const StopDeadline&) = delete;

 private:
  void Watch();

  std::string waiting_for_;
  double seconds_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace dg
