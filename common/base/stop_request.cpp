#include "common/base/stop_request.h"

#include <signal.h>

#include <atomic>

namespace dg {
namespace {

std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler needs a lock-free flag");

void OnSigterm(int) { g_stop.store(true, std::memory_order_relaxed); }

}  // namespace

void InstallStopOnSigterm() {
  struct sigaction sa {};
  sa.sa_handler = OnSigterm;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // blocking calls carry on; the flag is read at safe points
  sigaction(SIGTERM, &sa, nullptr);
}

bool StopRequested() { return g_stop.load(std::memory_order_relaxed); }

void RequestStop() { g_stop.store(true, std::memory_order_relaxed); }

void ClearStopRequest() { g_stop.store(false, std::memory_order_relaxed); }

}  // namespace dg
