// Rows of a table in memory, appended to a payload as the data of one array
// in the order of their ids (duplicates and any order allowed), without
// gathering them into a new buffer first: the bytes are those of the rows
// gathered into an Array and sent with Encoder::ArrayRef.
//
// A run of adjacent ids (id, id + 1, ...) of at least kMinRefBytes is one
// segment referencing the table (its holder is kept alive); shorter runs are
// copied, with prefetching, into bounded staging chunks instead: the kernel's
// cost per iovec and its unprefetched reads of scattered rows make many small
// segments no faster than a copy (docs/performance.md, "Data plane").
// The table must not change until the payload is written: partition data
// (mmap'd read-only), never a mutable tensor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "common/base/array.h"
#include "common/net/codec.h"

namespace dg {

// Runs of at least this many bytes go by reference, shorter ones are copied
// (measured: 64 B rows by reference ran at 0.3x the copy; random 400 B rows
// ran no faster by reference than copied, page-sized runs did).
constexpr size_t kMinRefBytes = 4096;
// Copied rows go into staging chunks of at most this many bytes (one row
// more when a row is larger).
constexpr size_t kStageBytes = 64 << 10;

// Appends the rows of ids[0..n) (all valid for the table) to e.
void AppendTableRows(Encoder* e, const RowTable& table, const int64_t* ids, size_t n);
void AppendTableRows(Encoder* e, const RowTable& table, const int32_t* ids, size_t n);

}  // namespace dg
