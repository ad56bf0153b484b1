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

}  // namespace dg
