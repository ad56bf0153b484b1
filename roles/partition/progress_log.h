// PartitionLog: the progress lines of `partition` and `generate` (printf to
// opts.log, flushed at once so a long step shows where it is); a null file
// keeps them quiet.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace dg {

void PartitionLog(std::FILE* f, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

std::string FormatBytes(uint64_t bytes);  // "1.23 GB"

}  // namespace dg
