#include "roles/partition/progress_log.h"

#include <cstdarg>

namespace dg {

void PartitionLog(std::FILE* f, const char* fmt, ...) {
  if (!f) return;
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(f, fmt, ap);
  va_end(ap);
  std::fflush(f);
}

std::string FormatBytes(uint64_t b) {
  char buf[32];
  if (b >= (1ull << 30)) std::snprintf(buf, sizeof buf, "%.2f GB", b / 1073741824.0);
  else if (b >= (1ull << 20)) std::snprintf(buf, sizeof buf, "%.1f MB", b / 1048576.0);
  else std::snprintf(buf, sizeof buf, "%.1f KB", b / 1024.0);
  return buf;
}

}  // namespace dg
