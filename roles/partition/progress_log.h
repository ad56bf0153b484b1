// PartitionLog: the progress lines of `partition` and `generate` (printf to
// opts.log, flushed at once so a long step shows where it is); a null file
// keeps them quiet.
#pragma once

#include <cstdio>

namespace dg {

void PartitionLog(std::FILE* f, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

}  // namespace dg
