// Small helpers the trainer role's files share:
//  - Since(t): seconds elapsed on the steady clock since t.
//  - FirstLine(s): s up to (not including) its first '\n' (torch's exception
//    texts carry a stack trace after the first line).
//  - MetricNumber(v): v with 6 significant digits ("%.6g"), or "null" for NaN
//    and infinities: the numbers of metrics.jsonl lines.
//  - AppendLine(path, line): appends line and '\n' to the file at path
//    (created if missing) and flushes; IOError "write PATH failed" otherwise.
#pragma once

#include <chrono>
#include <string>

#include "common/base/status.h"

namespace dg {

double Since(std::chrono::steady_clock::time_point t);

std::string FirstLine(const std::string& s);

std::string MetricNumber(double v);

Status AppendLine(const std::string& path, const std::string& line);

}  // namespace dg
