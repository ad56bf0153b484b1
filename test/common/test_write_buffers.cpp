// WriteCursor walks a write's buffers as sendmsg takes them (partial writes
// included, empty buffers skipped), and CoalesceSmallBuffers keeps the bytes
// and their order while packing small buffers together for TLS.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "common/net/write_buffers.h"

using namespace dg;

namespace {

std::vector<std::string> Pieces() {
  std::vector<std::string> p;
  for (int i = 0; i < 3000; ++i)  // every seventh empty
    p.push_back(std::string(static_cast<size_t>(i % 7 == 0 ? 0 : 1 + i % 50), char('a' + i % 26)));
  p.push_back(std::string(100000, 'Z'));  // one large buffer among the small ones
  for (int i = 0; i < 10; ++i) p.push_back(std::string(5, char('0' + i)));
  return p;
}

std::string Join(const std::vector<boost::asio::const_buffer>& bufs) {
  std::string s;
  for (const auto& b : bufs) s.append(static_cast<const char*>(b.data()), b.size());
  return s;
}

}  // namespace

TEST_CASE("WriteCursor hands out every byte once, in order, across partial writes", "[net][write]") {
  const std::vector<std::string> pieces = Pieces();
  std::vector<boost::asio::const_buffer> bufs;
  for (const std::string& p : pieces) bufs.emplace_back(p.data(), p.size());
  const std::string want = Join(bufs);
  for (size_t take : {size_t(1), size_t(37), size_t(4096), size_t(1) << 20}) {
    INFO("bytes per write: " << take);
    WriteCursor cursor;
    cursor.Reset(&bufs);
    std::string got;
    iovec iov[1024];
    while (!cursor.done()) {
      const int n = cursor.Fill(iov, 1024);
      REQUIRE(n > 0);
      size_t left = take;
      for (int i = 0; i < n && left > 0; ++i) {  // what a write of `take` bytes would send
        REQUIRE(iov[i].iov_len > 0);
        const size_t k = std::min(left, iov[i].iov_len);
        got.append(static_cast<const char*>(iov[i].iov_base), k);
        left -= k;
      }
      cursor.Advance(take - left);
    }
    CHECK(got == want);
  }
}

TEST_CASE("CoalesceSmallBuffers keeps the bytes and packs the small buffers", "[net][write]") {
  const std::vector<std::string> pieces = Pieces();
  std::vector<boost::asio::const_buffer> bufs;
  for (const std::string& p : pieces) bufs.emplace_back(p.data(), p.size());
  std::deque<std::string> staging;
  const std::vector<boost::asio::const_buffer> out = CoalesceSmallBuffers(bufs, &staging);
  CHECK(Join(out) == Join(bufs));
  CHECK(out.size() <= 5);  // ~75 KB of small pieces in two chunks, the large one, the tail
  for (const auto& b : out) CHECK(b.size() <= kTlsStageBytes + 100000);
}
