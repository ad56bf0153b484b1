// distgnn's version: `distgnn --version`, the first log line of every role
// process, and the handshake's error when two sides speak different protocol
// versions. CHANGELOG.md lists what each version changed.
#pragma once

namespace dg {

constexpr char kDistgnnVersion[] = "0.9.0";

}  // namespace dg
