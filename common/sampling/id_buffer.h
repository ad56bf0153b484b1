// IdBuffer: an int64 id array of a block (its indptr or indices).
//
// Sampling builds it as a growable vector; a received MINIBATCH makes it a
// view of the frame's payload (kept alive by the frame's holder), so a
// trainer decodes a batch's blocks without copying them. Anything that
// changes the size first moves a view's ids into owned storage (one copy);
// element writes go to whichever memory backs it. Copies of a view share the
// payload. Not thread-safe (as std::vector).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

namespace dg {

class IdBuffer {
 public:
  IdBuffer() = default;
  IdBuffer(std::initializer_list<int64_t> ids) : own_(ids) { Sync(); }
  IdBuffer(std::vector<int64_t> ids) : own_(std::move(ids)) { Sync(); }  // NOLINT: implicit, as a vector
  // A view of n ids at data, kept alive by holder.
  static IdBuffer View(int64_t* data, size_t n, std::shared_ptr<void> holder) {
    IdBuffer b;
    b.data_ = data;
    b.size_ = n;
    b.holder_ = std::move(holder);
    return b;
  }

  IdBuffer(const IdBuffer& o) : own_(o.own_), holder_(o.holder_) { o.holder_ ? CopyView(o) : Sync(); }
  IdBuffer(IdBuffer&& o) noexcept : own_(std::move(o.own_)), holder_(std::move(o.holder_)) {
    holder_ ? CopyView(o) : Sync();
    o.Clear();
  }
  IdBuffer& operator=(IdBuffer o) noexcept {
    own_ = std::move(o.own_);
    holder_ = std::move(o.holder_);
    holder_ ? CopyView(o) : Sync();
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool is_view() const { return holder_ != nullptr; }
  int64_t* data() { return data_; }
  const int64_t* data() const { return data_; }
  int64_t& operator[](size_t i) { return data_[i]; }
  int64_t operator[](size_t i) const { return data_[i]; }
  int64_t* begin() { return data_; }
  int64_t* end() { return data_ + size_; }
  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + size_; }
  int64_t front() const { return data_[0]; }
  int64_t back() const { return data_[size_ - 1]; }

  void resize(size_t n) { Mutate([&] { own_.resize(n); }); }
  void push_back(int64_t v) { Mutate([&] { own_.push_back(v); }); }
  template <typename It>
  void assign(It first, It last) {
    holder_.reset();
    own_.assign(first, last);
    Sync();
  }
  template <typename It>
  void insert(const int64_t* pos, It first, It last) {
    const size_t at = static_cast<size_t>(pos - data_);
    Mutate([&] { own_.insert(own_.begin() + static_cast<std::ptrdiff_t>(at), first, last); });
  }
  // The ids as a vector, leaving this empty (no copy unless it was a view).
  std::vector<int64_t> Release() {
    if (holder_) Own();
    std::vector<int64_t> out = std::move(own_);
    Clear();
    return out;
  }

  friend bool operator==(const IdBuffer& a, const IdBuffer& b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator!=(const IdBuffer& a, const IdBuffer& b) { return !(a == b); }

 private:
  void Sync() {
    data_ = own_.data();
    size_ = own_.size();
  }
  void CopyView(const IdBuffer& o) {
    data_ = o.data_;
    size_ = o.size_;
  }
  void Clear() {
    own_.clear();
    holder_.reset();
    Sync();
  }
  void Own() {
    own_.assign(data_, data_ + size_);
    holder_.reset();
    Sync();
  }
  template <typename F>
  void Mutate(F f) {
    if (holder_) Own();
    f();
    Sync();
  }

  std::vector<int64_t> own_;
  int64_t* data_ = nullptr;
  size_t size_ = 0;
  std::shared_ptr<void> holder_;  // set: data_ is a view into memory it keeps alive
};

}  // namespace dg
