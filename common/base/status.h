// Status and Result<T>: how every fallible operation reports failure.
//
// Anything that touches the network, a file or a config returns a Status or a
// Result<T> (LevelDB's idiom). The ok path is cheap (no allocation). The message
// names what failed: host, role, rank, file, key or line. Exceptions are only for
// programmer bugs (DG_CHECK), never for peer or user input.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace dg {

class Status {
 public:
  enum class Code : int {
    kOk = 0,
    kInvalidArgument,  // a user mistake: bad flag, key, value, input line
    kNotFound,         // a file, tensor or key that does not exist
    kIOError,          // an OS call failed (errno text in the message)
    kCorruption,       // a file whose content is malformed
    kProtocol,         // a peer sent a malformed or unexpected frame
    kTimeout,          // a deadline passed
    kPeerLost,         // a peer closed, died or stopped answering
    kAlreadyExists,    // an output that would be overwritten
    kUnsupported,      // valid but not handled (e.g. big-endian .npy)
    kInternal,         // should not happen; a bug
    kResourceExhausted,  // a request needs more memory/work than this process allows
    kStopped,          // stopped on request (SIGTERM) at a safe point, state saved
  };

  Status() = default;  // ok
  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string m) { return Status(Code::kInvalidArgument, std::move(m)); }
  static Status NotFound(std::string m) { return Status(Code::kNotFound, std::move(m)); }
  static Status IOError(std::string m) { return Status(Code::kIOError, std::move(m)); }
  static Status Corruption(std::string m) { return Status(Code::kCorruption, std::move(m)); }
  static Status Protocol(std::string m) { return Status(Code::kProtocol, std::move(m)); }
  static Status Timeout(std::string m) { return Status(Code::kTimeout, std::move(m)); }
  static Status PeerLost(std::string m) { return Status(Code::kPeerLost, std::move(m)); }
  static Status AlreadyExists(std::string m) { return Status(Code::kAlreadyExists, std::move(m)); }
  static Status Unsupported(std::string m) { return Status(Code::kUnsupported, std::move(m)); }
  static Status Internal(std::string m) { return Status(Code::kInternal, std::move(m)); }
  static Status ResourceExhausted(std::string m) { return Status(Code::kResourceExhausted, std::move(m)); }
  static Status Stopped(std::string m) { return Status(Code::kStopped, std::move(m)); }
  // IOError with strerror(errno) appended: "open /x/y.npy: No such file or directory".
  static Status FromErrno(const std::string& what, int err);

  bool ok() const { return state_ == nullptr; }
  Code code() const { return ok() ? Code::kOk : state_->code; }
  const std::string& message() const;
  // "InvalidArgument: job.yaml: key 'train.lr': expected a number".
  std::string ToString() const;
  static const char* CodeName(Code c);

  // Returns a copy whose message is "context: message" (same code).
  Status WithContext(const std::string& context) const;

 private:
  struct State {
    Code code;
    std::string msg;
  };
  Status(Code c, std::string m) : state_(std::make_shared<State>(State{c, std::move(m)})) {}
  std::shared_ptr<const State> state_;
};

// Result<T>: a T or a failed Status.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    if (status_.ok()) status_ = Status::Internal("Result constructed from an ok Status");
  }
  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

[[noreturn]] void CheckFailed(const char* file, int line, const char* expr, const std::string& msg);

}  // namespace dg

// Programmer-bug assertion; always on (also in Release).
#define DG_CHECK(cond)                                                      \
  do {                                                                      \
    if (!(cond)) ::dg::CheckFailed(__FILE__, __LINE__, #cond, std::string()); \
  } while (0)
#define DG_CHECK_MSG(cond, msg)                                 \
  do {                                                          \
    if (!(cond)) ::dg::CheckFailed(__FILE__, __LINE__, #cond, (msg)); \
  } while (0)

// Propagate a failed Status from the current function.
#define DG_RETURN_IF_ERROR(expr)          \
  do {                                    \
    ::dg::Status _dg_st = (expr);         \
    if (!_dg_st.ok()) return _dg_st;      \
  } while (0)

#define DG_CONCAT_INNER(a, b) a##b
#define DG_CONCAT(a, b) DG_CONCAT_INNER(a, b)
// DG_ASSIGN_OR_RETURN(auto x, ReadThing()); -- x is the value or we return the Status.
#define DG_ASSIGN_OR_RETURN(lhs, expr)                                  \
  auto DG_CONCAT(_dg_res_, __LINE__) = (expr);                          \
  if (!DG_CONCAT(_dg_res_, __LINE__).ok())                              \
    return DG_CONCAT(_dg_res_, __LINE__).status();                      \
  lhs = std::move(DG_CONCAT(_dg_res_, __LINE__)).value()
