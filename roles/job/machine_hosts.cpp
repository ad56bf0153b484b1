#include "roles/job/machine_hosts.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdio>
#include <thread>

namespace dg {
namespace {

bool IsNumericAddress(const std::string& host) {
  unsigned char buf[sizeof(in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

// The host's first IPv4 address, else its first address; the resolver's
// message when there is none.
Result<std::string> Resolve(const std::string& host) {
  int rc = EAI_NONAME;
  for (int family : {AF_INET, AF_UNSPEC}) {
    addrinfo hints{}, *res = nullptr;
    hints.ai_family = family;
    hints.ai_socktype = SOCK_STREAM;
    rc = getaddrinfo(host.c_str(), nullptr, &hints, &res);
    if (rc != 0 || !res) continue;
    char text[INET6_ADDRSTRLEN] = {0};
    const void* addr = res->ai_family == AF_INET
                           ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(res->ai_addr)->sin_addr)
                           : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(res->ai_addr)->sin6_addr);
    const bool ok = inet_ntop(res->ai_family, addr, text, sizeof(text)) != nullptr;
    freeaddrinfo(res);
    if (ok) return std::string(text);
  }
  return Status::NotFound(gai_strerror(rc));
}

std::string Names(const JobConfig& job, int m) {
  return job.path + ": machines[" + std::to_string(m) + "].host " + job.machines[m].host;
}

}  // namespace

Status ResolveMachineHosts(JobConfig* job, int machine) {
  const std::string own = job->machines.at(machine).host;
  if (!IsNumericAddress(own)) {
    auto addr = Resolve(own);
    if (!addr.ok())
      return Status::InvalidArgument(Names(*job, machine) + " (this machine) does not resolve: " +
                                     addr.status().message());
    for (MachineConfig& m : job->machines)
      if (m.host == own) m.host = *addr;
  }
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(job->connect_wait_seconds);
  for (int m = 0; m < job->num_machines(); ++m) {
    const std::string& host = job->machines[m].host;
    if (IsNumericAddress(host)) continue;
    for (;;) {
      auto addr = Resolve(host);
      if (addr.ok()) break;
      if (std::chrono::steady_clock::now() >= deadline) {
        char waited[32];
        std::snprintf(waited, sizeof(waited), "%g", job->connect_wait_seconds);
        return Status::InvalidArgument(Names(*job, m) + " does not resolve: " + addr.status().message() +
                                       " (waited network.connect_wait_seconds = " + waited + " s)");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  }
  return Status::OK();
}

}  // namespace dg
