#include "common/base/logging.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <sys/resource.h>

#include <cstdlib>

#include "common/base/version.h"

namespace dg {

void SetupLogging(const std::string& role, int rank, const std::string& level) {
  auto logger = spdlog::stderr_logger_mt("distgnn-" + role + "-" + std::to_string(rank));
  std::string prefix = rank >= 0 ? role + " " + std::to_string(rank) : role;
  logger->set_pattern("[%H:%M:%S.%e] [" + prefix + "] %^%l%$: %v");
  const char* env = std::getenv("DISTGNN_LOG_LEVEL");
  logger->set_level(spdlog::level::from_str(env ? env : level));
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
  logger->info("distgnn {}", kDistgnnVersion);
}

int64_t PeakRssBytes() {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return static_cast<int64_t>(ru.ru_maxrss) * 1024;  // Linux: kilobytes
}

}  // namespace dg
