// Logging setup: spdlog everywhere, one line per event, prefixed by role and rank.
#pragma once

#include <cstdint>
#include <string>

namespace dg {

// Sets the default spdlog logger to stderr with pattern
// "[time] [role rank] level: message". level: trace|debug|info|warn|error.
// DISTGNN_LOG_LEVEL in the environment overrides `level`. The first line it
// logs is "distgnn VERSION".
void SetupLogging(const std::string& role, int rank, const std::string& level = "info");

// Peak resident set size of this process so far, in bytes (getrusage).
int64_t PeakRssBytes();

}  // namespace dg
