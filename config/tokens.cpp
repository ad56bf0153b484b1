// The cluster token from the environment, and which addresses need none.
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "config/job_config.h"

namespace dg {

Result<std::string> TokenFromEnvironment() {
  if (const char* env = std::getenv("DISTGNN_TOKEN"); env && *env) return std::string(env);
  const char* file = std::getenv("DISTGNN_TOKEN_FILE");
  if (!file || !*file) return std::string();
  struct stat st;
  if (::stat(file, &st) != 0) return Status::FromErrno("DISTGNN_TOKEN_FILE " + std::string(file), errno);
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%03o", unsigned(st.st_mode & 0777));
    return Status::InvalidArgument("DISTGNN_TOKEN_FILE " + std::string(file) + " has mode " + mode +
                                   ": a token file must be readable by its owner only (chmod 600)");
  }
  std::ifstream in(file);
  std::string token;
  if (!in || !std::getline(in, token)) return Status::IOError("DISTGNN_TOKEN_FILE " + std::string(file) + ": cannot read");
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
  return token;
}

bool IsLoopbackAddress(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

}  // namespace dg
