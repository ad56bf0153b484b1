#include "roles/trainer/loop/metrics_log.h"

#include <fstream>

namespace dg {

Status MetricsLog::Start(int64_t first_epoch) {
  std::vector<std::string> keep;
  std::ifstream in(path_);
  for (std::string line; std::getline(in, line);) {
    const auto pos = line.find("\"epoch\":");
    if (pos == std::string::npos) continue;  // the final line of an earlier run
    try {
      if (std::stoll(line.substr(pos + 8)) < first_epoch) keep.push_back(line);
    } catch (const std::exception&) {  // a line cut by a crash
    }
  }
  return WriteLines(keep, /*append=*/false);
}

Status MetricsLog::WriteLines(const std::vector<std::string>& lines, bool append) {
  std::ofstream out(path_, append ? std::ios::app : std::ios::trunc);
  for (const std::string& l : lines) out << l << "\n";
  out.flush();
  if (!out) return Status::IOError("write " + path_ + " failed");
  return Status::OK();
}

}  // namespace dg
