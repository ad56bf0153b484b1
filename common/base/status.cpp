#include "common/base/status.h"

#include <cstring>

namespace dg {

namespace {
const std::string kEmpty;
}

Status Status::FromErrno(const std::string& what, int err) {
  return Status::IOError(what + ": " + std::strerror(err));
}

const std::string& Status::message() const { return ok() ? kEmpty : state_->msg; }

const char* Status::CodeName(Code c) {
  switch (c) {
    case Code::kOk: return "OK";
    case Code::kInvalidArgument: return "InvalidArgument";
    case Code::kNotFound: return "NotFound";
    case Code::kIOError: return "IOError";
    case Code::kCorruption: return "Corruption";
    case Code::kProtocol: return "Protocol";
    case Code::kTimeout: return "Timeout";
    case Code::kPeerLost: return "PeerLost";
    case Code::kAlreadyExists: return "AlreadyExists";
    case Code::kUnsupported: return "Unsupported";
    case Code::kInternal: return "Internal";
    case Code::kResourceExhausted: return "ResourceExhausted";
    case Code::kStopped: return "Stopped";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(CodeName(state_->code)) + ": " + state_->msg;
}

Status Status::WithContext(const std::string& context) const {
  if (ok()) return *this;
  return Status(state_->code, context + ": " + state_->msg);
}

void CheckFailed(const char* file, int line, const char* expr, const std::string& msg) {
  std::fprintf(stderr, "distgnn: internal check failed at %s:%d: %s %s\n", file, line, expr,
               msg.c_str());
  std::abort();
}

}  // namespace dg
