// The byte ranges of one socket write (the headers and payload segments of
// the frames a Connection writes at once) and how they reach the stream.
//
// Plain TCP: WriteCursor hands them to sendmsg up to IOV_MAX (1024) iovecs a
// call -- Asio's own gather writes stop at 64 buffers, so a reply of 10k
// referenced rows would take ~160 system calls instead of ~10.
// TLS: OpenSSL writes one record per buffer (and Asio's TLS stream one buffer
// per write), so CoalesceSmallBuffers first copies runs of small buffers into
// staging chunks; large buffers are still encrypted where they are.
#pragma once

#include <sys/uio.h>

#include <boost/asio/buffer.hpp>
#include <cstddef>
#include <deque>
#include <string>
#include <vector>

namespace dg {

// A position in a list of buffers being written.
class WriteCursor {
 public:
  void Reset(const std::vector<boost::asio::const_buffer>* bufs);
  bool done() const { return bufs_ == nullptr || index_ >= bufs_->size(); }
  // The next buffers from the position as up to `max` iovecs; returns the count.
  int Fill(iovec* iov, int max) const;
  // Moves past n bytes (what a write took).
  void Advance(size_t n);

 private:
  void SkipEmpty();
  const std::vector<boost::asio::const_buffer>* bufs_ = nullptr;
  size_t index_ = 0, offset_ = 0;
};

// Buffers below this size are copied together for TLS.
constexpr size_t kTlsCoalesceBelow = 16 << 10;
// A staging chunk for TLS holds at most about this many bytes (one TLS record's worth each, a few records).
constexpr size_t kTlsStageBytes = 64 << 10;

// `in` with each run of buffers smaller than kTlsCoalesceBelow copied into
// staging chunks appended to *staging (which must outlive the write); the
// bytes and their order are unchanged.
std::vector<boost::asio::const_buffer> CoalesceSmallBuffers(const std::vector<boost::asio::const_buffer>& in,
                                                            std::deque<std::string>* staging);

}  // namespace dg
