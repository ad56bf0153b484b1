#include "common/base/console.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace dg {

bool IsTerminal(int fd) {
  const char* no = std::getenv("DISTGNN_NO_TTY");
  if (no && std::strcmp(no, "0") != 0 && *no) return false;
  const char* term = std::getenv("TERM");
  if (term && std::strcmp(term, "dumb") == 0) return false;
  return isatty(fd) == 1;
}

std::string ShortDuration(double s) {
  if (!(s >= 0) || std::isinf(s)) return "?";
  char buf[32];
  long t = std::lround(s);
  if (t < 60) std::snprintf(buf, sizeof(buf), "%lds", t);
  else if (t < 3600) std::snprintf(buf, sizeof(buf), "%ldm%02lds", t / 60, t % 60);
  else std::snprintf(buf, sizeof(buf), "%ldh%02ldm", t / 3600, (t % 3600) / 60);
  return buf;
}

std::string ProgressBar(int64_t epoch, int64_t epochs, int64_t step, int64_t steps, double loss,
                        double steps_per_second, double eta_seconds) {
  std::string out = "epoch " + std::to_string(epoch);
  if (epochs > 0) out += "/" + std::to_string(epochs);
  char buf[160];
  if (steps > 0) {
    constexpr int kWidth = 20;
    int filled = static_cast<int>(kWidth * std::min<int64_t>(step, steps) / steps);
    out += " [" + std::string(filled, '#') + std::string(kWidth - filled, '.') + "] ";
    out += std::to_string(step) + "/" + std::to_string(steps);
  } else {
    out += " step " + std::to_string(step);
  }
  std::snprintf(buf, sizeof(buf), "  loss %.4f  %.1f steps/s  ETA %s", loss, steps_per_second,
                ShortDuration(eta_seconds).c_str());
  return out + buf;
}

}  // namespace dg
