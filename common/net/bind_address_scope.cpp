#include "common/net/bind_address_scope.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

namespace {

struct BindOverride {
  int family = 0;  // AF_INET or AF_INET6
  in_addr v4{};
  in6_addr v6{};
};
thread_local const BindOverride* t_override = nullptr;
thread_local BindOverride t_storage;

}  // namespace

extern "C" int bind(int fd, const struct sockaddr* addr, socklen_t len) {
  const BindOverride* o = t_override;
  if (o && addr && addr->sa_family == AF_INET && len >= sizeof(sockaddr_in) && o->family == AF_INET &&
      reinterpret_cast<const sockaddr_in*>(addr)->sin_addr.s_addr == htonl(INADDR_ANY)) {
    sockaddr_in a = *reinterpret_cast<const sockaddr_in*>(addr);
    a.sin_addr = o->v4;
    return static_cast<int>(syscall(SYS_bind, fd, &a, sizeof(a)));
  }
  if (o && addr && addr->sa_family == AF_INET6 && len >= sizeof(sockaddr_in6) &&
      IN6_IS_ADDR_UNSPECIFIED(&reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr)) {
    sockaddr_in6 a = *reinterpret_cast<const sockaddr_in6*>(addr);
    if (o->family == AF_INET6) {
      a.sin6_addr = o->v6;
    } else {  // an IPv4 address on a dual-stack socket: its v4-mapped form
      std::memset(&a.sin6_addr, 0, sizeof(a.sin6_addr));
      a.sin6_addr.s6_addr[10] = a.sin6_addr.s6_addr[11] = 0xff;
      std::memcpy(&a.sin6_addr.s6_addr[12], &o->v4, 4);
    }
    return static_cast<int>(syscall(SYS_bind, fd, &a, sizeof(a)));
  }
  return static_cast<int>(syscall(SYS_bind, fd, addr, len));
}

namespace dg {

Result<BindAddressScope> BindAddressScope::For(const std::string& host) {
  addrinfo hints{}, *res = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  int rc = getaddrinfo(host.c_str(), nullptr, &hints, &res);
  if (rc != 0 || !res) return Status::InvalidArgument("cannot resolve " + host + ": " + gai_strerror(rc));
  BindOverride o;
  o.family = res->ai_family;
  if (o.family == AF_INET) o.v4 = reinterpret_cast<sockaddr_in*>(res->ai_addr)->sin_addr;
  else o.v6 = reinterpret_cast<sockaddr_in6*>(res->ai_addr)->sin6_addr;
  freeaddrinfo(res);
  t_storage = o;
  t_override = &t_storage;
  BindAddressScope s;
  s.active_ = true;
  return s;
}

BindAddressScope::BindAddressScope(BindAddressScope&& other) noexcept : active_(other.active_) { other.active_ = false; }

BindAddressScope::~BindAddressScope() {
  if (active_) t_override = nullptr;
}

}  // namespace dg
