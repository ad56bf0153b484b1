#include "common/net/write_buffers.h"

namespace dg {

void WriteCursor::Reset(const std::vector<boost::asio::const_buffer>* bufs) {
  bufs_ = bufs;
  index_ = 0;
  offset_ = 0;
  SkipEmpty();
}

void WriteCursor::SkipEmpty() {
  while (bufs_ != nullptr && index_ < bufs_->size() && offset_ >= (*bufs_)[index_].size()) {
    ++index_;
    offset_ = 0;
  }
}

int WriteCursor::Fill(iovec* iov, int max) const {
  int count = 0;
  for (size_t i = index_; bufs_ != nullptr && i < bufs_->size() && count < max; ++i) {
    const boost::asio::const_buffer& b = (*bufs_)[i];
    const size_t skip = i == index_ ? offset_ : 0;
    if (b.size() <= skip) continue;
    iov[count].iov_base = const_cast<char*>(static_cast<const char*>(b.data()) + skip);
    iov[count].iov_len = b.size() - skip;
    ++count;
  }
  return count;
}

void WriteCursor::Advance(size_t n) {
  while (n > 0 && !done()) {
    const size_t left = (*bufs_)[index_].size() - offset_;
    if (n < left) {
      offset_ += n;
      return;
    }
    n -= left;
    ++index_;
    offset_ = 0;
  }
  SkipEmpty();
}

std::vector<boost::asio::const_buffer> CoalesceSmallBuffers(const std::vector<boost::asio::const_buffer>& in,
                                                            std::deque<std::string>* staging) {
  std::vector<boost::asio::const_buffer> out;
  std::string* open = nullptr;  // the staging chunk being filled, already the last of `out`
  for (const boost::asio::const_buffer& b : in) {
    if (b.size() == 0) continue;
    if (b.size() >= kTlsCoalesceBelow) {
      open = nullptr;
      out.push_back(b);
      continue;
    }
    if (open == nullptr || open->size() + b.size() > kTlsStageBytes) {
      staging->emplace_back();
      open = &staging->back();
      open->reserve(kTlsStageBytes);
      out.emplace_back();  // set below, once the chunk stops growing
    }
    open->append(static_cast<const char*>(b.data()), b.size());
    out.back() = boost::asio::const_buffer(open->data(), open->size());
  }
  return out;
}

}  // namespace dg
