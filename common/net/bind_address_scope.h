// BindAddressScope: while one lives on a thread, a bind() to the wildcard
// address (0.0.0.0 or ::) made on that thread binds to the scope's address
// instead; every other bind() is untouched.
//
// Why: c10d's TCPStore (the trainers' rendezvous store, torch 2.x as packaged
// here) takes no bind address and listens on every interface of trainer 0's
// machine. A job's processes listen on their machine's `host:` address only, so
// GradientSync::Connect creates the store inside a scope for that address.
// Mechanism: this module defines bind() (extern "C"), which the dynamic linker
// prefers over libc's for every library of the executable, torch included; it
// makes the system call itself. It lives in common/ so that it is linked into
// the distgnn executable: defined in libdistgnn_torch.so (loaded later, with
// its own lookup scope) it would not come before libc's for LibTorch.
#pragma once

#include <string>

#include "common/base/status.h"

namespace dg {

class BindAddressScope {
 public:
  // host: a numeric address or a name (resolved here, first address).
  static Result<BindAddressScope> For(const std::string& host);
  BindAddressScope(BindAddressScope&& other) noexcept;
  BindAddressScope(const BindAddressScope&) = delete;
  BindAddressScope& operator=(const BindAddressScope&) = delete;
  ~BindAddressScope();

 private:
  BindAddressScope() = default;
  bool active_ = false;
};

}  // namespace dg
