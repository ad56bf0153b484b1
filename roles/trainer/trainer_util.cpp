#include "roles/trainer/trainer_util.h"

#include <cmath>
#include <cstdio>
#include <fstream>

namespace dg {

double Since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

std::string MetricNumber(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

Status AppendLine(const std::string& path, const std::string& line) {
  std::ofstream f(path, std::ios::app);
  f << line << "\n";
  f.flush();
  if (!f) return Status::IOError("write " + path + " failed");
  return Status::OK();
}

}  // namespace dg
