#include "common/logging.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>

namespace dg {

void SetupLogging(const std::string& role, int rank, const std::string& level) {
  auto logger = spdlog::stderr_logger_mt("distgnn-" + role + "-" + std::to_string(rank));
  std::string prefix = rank >= 0 ? role + " " + std::to_string(rank) : role;
  logger->set_pattern("[%H:%M:%S.%e] [" + prefix + "] %^%l%$: %v");
  const char* env = std::getenv("DISTGNN_LOG_LEVEL");
  logger->set_level(spdlog::level::from_str(env ? env : level));
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
}

}  // namespace dg
