#include "common/net/table_rows.h"

#include <cstdlib>
#include <cstring>

namespace dg {
namespace {

// Rows copied back to back into malloc'd chunks, each handed to the Encoder
// by reference once it is full (or a referenced run comes between).
class Stage {
 public:
  Stage(Encoder* e, size_t row_bytes) : e_(e), cap_(row_bytes > kStageBytes ? row_bytes : kStageBytes) {}
  ~Stage() { Flush(); }
  void Copy(const uint8_t* row, size_t bytes) {
    if (buf_ && used_ + bytes > cap_) Flush();
    if (!buf_) {
      buf_ = std::shared_ptr<uint8_t>(static_cast<uint8_t*>(std::malloc(cap_)), [](uint8_t* p) { std::free(p); });
      DG_CHECK(buf_ != nullptr);
    }
    std::memcpy(buf_.get() + used_, row, bytes);
    used_ += bytes;
  }
  void Flush() {
    if (buf_ && used_ > 0) e_->BytesRef(buf_.get(), used_, std::shared_ptr<void>(buf_));
    buf_.reset();
    used_ = 0;
  }

 private:
  Encoder* e_;
  size_t cap_;
  std::shared_ptr<uint8_t> buf_;
  size_t used_ = 0;
};

template <typename Id>
void AppendRows(Encoder* e, const RowTable& t, const Id* ids, size_t n) {
  const size_t rb = t.row_bytes;
  if (rb == 0) return;
  Stage stage(e, rb);
  constexpr size_t kAhead = 6;
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && static_cast<int64_t>(ids[j]) == static_cast<int64_t>(ids[j - 1]) + 1) ++j;
    const uint8_t* first = t.base + static_cast<size_t>(static_cast<int64_t>(ids[i]) - t.first_id) * rb;
    const size_t bytes = (j - i) * rb;
    if (bytes >= kMinRefBytes) {
      stage.Flush();
      e->BytesRef(first, bytes, t.holder);
    } else {
      if (j + kAhead < n)  // copied rows are read in random order: fetch a later one early
        __builtin_prefetch(t.base + static_cast<size_t>(static_cast<int64_t>(ids[j + kAhead]) - t.first_id) * rb);
      stage.Copy(first, bytes);
    }
    i = j;
  }
}

}  // namespace

void AppendTableRows(Encoder* e, const RowTable& table, const int64_t* ids, size_t n) {
  AppendRows(e, table, ids, n);
}

void AppendTableRows(Encoder* e, const RowTable& table, const int32_t* ids, size_t n) {
  AppendRows(e, table, ids, n);
}

}  // namespace dg
