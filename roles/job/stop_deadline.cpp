#include "roles/job/stop_deadline.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "common/base/stop_request.h"

namespace dg {

StopDeadline::StopDeadline(std::string waiting_for, double seconds)
    : waiting_for_(std::move(waiting_for)), seconds_(seconds) {
  InstallStopOnSigterm();
  thread_ = std::thread([this] { Watch(); });
}

StopDeadline::~StopDeadline() {
  done_ = true;
  thread_.join();
}

void StopDeadline::Watch() {
  using Clock = std::chrono::steady_clock;
  while (!done_ && !StopRequested()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (done_) return;
  spdlog::info("SIGTERM: serving {} until it stops (at most {} s; network.stop_seconds)", waiting_for_, seconds_);
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds_));
  while (!done_ && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (done_) return;
  spdlog::warn("SIGTERM: {} still running after {} s; exiting", waiting_for_, seconds_);
  spdlog::default_logger()->flush();
  std::fflush(nullptr);
  std::_Exit(0);
}

}  // namespace dg
