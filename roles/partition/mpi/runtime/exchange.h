// The MPI pieces every step of the distributed partitioner shares: the rank's
// identity (for messages naming rank and host), agreement on a Status across
// ranks, and a bounded all-to-all of trivially copyable records.
//
// AllToAll walks items [0, n) of this rank in rounds of at most `batch` items;
// emit(i, send) calls send(dest_rank, record) for each record item i produces
// (zero or more). Every round is one MPI_Alltoall of counts and one
// MPI_Alltoallv of records (several when a count passes MaxCallCount() / P:
// ExchangeRound), so a rank never holds more than one round's outgoing
// records besides what it has received; *out is reserved to its final size
// before the first round (emit runs once more to count, so it must not have
// side effects). The number of rounds is agreed (the largest over ranks), so
// ranks with fewer items still take part.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "common/base/status.h"
#include "roles/partition/mpi/runtime/progress_clock.h"

namespace dg::mpi {

struct Rank {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, size = 1;
  std::string host;
  std::string Name() const { return "rank " + std::to_string(rank) + " on " + host; }
};

Rank WorldRank();

// All ranks learn whether every rank's status is OK. The lowest failed rank
// prints its message (naming its rank and host) to stderr, and every other
// failed rank whose message differs prints its own; every rank returns an
// error: its own, or one naming the lowest failed rank. Agreeing again on a
// status an Agree returned (a caller on what its callee agreed) prints nothing.
Status Agree(const Rank& r, const Status& st);

// Sums / maxima over ranks, element-wise.
void SumAll(const Rank& r, std::vector<int64_t>* v);
int64_t SumAll(const Rank& r, int64_t v);
int64_t MaxAll(const Rank& r, int64_t v);
// The sum of v over the ranks below this one (0 on rank 0): where this rank's
// items start in an order of all ranks' items, rank by rank.
int64_t ExclusiveScan(const Rank& r, int64_t v);

// Runs `compute` on rank 0 while the other ranks wait (collective). Rank 0
// computes on a thread of its own and its main thread tells the others every
// half second that it still runs (an MPI_Bcast), so each waiting rank
// completes an MPI call that often: a computation longer than
// --progress-timeout is no stall (runtime/watchdog.h), as the other ranks' wait
// for rank 0 would otherwise be.
void OnRankZero(const Rank& r, const std::function<void()>& compute);

// The most elements one MPI call of the partitioner moves to or from one
// buffer: MPI's counts and displacements are int, so INT_MAX. The test hook
// DISTGNN_TEST_MPI_MAX_COUNT=N narrows it (N >= 1), so that a small graph's
// transfers take the path of a graph past 2^31 elements
// (test/partition/test_mpi_large_count.cpp).
int64_t MaxCallCount();

// Every rank's count of rows and where they start in rank order, on every
// rank (collective): 64-bit, so all ranks' rows together may pass 2^31.
struct RowsOnZero {
  std::vector<int64_t> counts, displs;
  RowsOnZero(const Rank& r, int64_t count)
      : counts(static_cast<size_t>(r.size)), displs(static_cast<size_t>(r.size), 0) {
    MPI_Allgather(&count, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, r.comm);
    for (int q = 1; q < r.size; ++q) displs[q] = displs[q - 1] + counts[q - 1];
  }
  size_t total() const { return static_cast<size_t>(displs.back() + counts.back()); }
};

// n elements of `type` from rank `from` to rank `to` (the others do nothing),
// in messages of at most MaxCallCount() elements each.
void SendChunked(const Rank& r, int from, int to, const void* send, void* recv, int64_t n, MPI_Datatype type);

// Gathers a vector of every rank's rows on rank 0 (rank order; empty
// elsewhere): each rank's rows go to rank 0 in messages of at most
// MaxCallCount() elements, so no count passes MPI's int.
template <typename T>
std::vector<T> GatherOnZero(const Rank& r, const std::vector<T>& mine, MPI_Datatype type) {
  const RowsOnZero rows(r, static_cast<int64_t>(mine.size()));
  std::vector<T> all(r.rank == 0 ? rows.total() : 0);
  if (r.rank == 0) std::copy(mine.begin(), mine.end(), all.begin());
  for (int q = 1; q < r.size; ++q)
    SendChunked(r, q, 0, mine.data(), all.data() + (r.rank == 0 ? rows.displs[q] : 0), rows.counts[q], type);
  return all;
}

// The reverse: rank 0's `all` (rank order) back to the ranks, `count` each.
template <typename T>
std::vector<T> ScatterFromZero(const Rank& r, const std::vector<T>& all, int64_t count, MPI_Datatype type) {
  const RowsOnZero rows(r, count);
  std::vector<T> mine(static_cast<size_t>(count));
  if (r.rank == 0) std::copy(all.begin(), all.begin() + count, mine.begin());
  for (int q = 1; q < r.size; ++q)
    SendChunked(r, 0, q, all.data() + (r.rank == 0 ? rows.displs[q] : 0), mine.data(), rows.counts[q], type);
  return mine;
}

// A part for every row of all ranks computed on rank 0 (OnRankZero: the
// others kept alive meanwhile), its status agreed, and each rank's `count`
// rows of it (rank order) scattered back (collective). *seconds: compute's
// time on rank 0.
Result<std::vector<int32_t>> PartsOnZero(const Rank& r, int64_t count,
                                         const std::function<Result<std::vector<int32_t>>()>& compute,
                                         double* seconds);

// Bytes this rank has sent to other ranks through AllToAll so far.
int64_t BytesSent();
void AddBytesSent(int64_t bytes);

// Reserves room in *out for exactly what this rank will receive (a counting
// pass over emit and one MPI_Alltoall of the totals): growing *out round by
// round would reallocate it, holding up to three times its final size at once.
template <typename T, typename EmitFn>
void ReserveReceived(const Rank& r, int64_t n, EmitFn& emit, std::vector<T>* out) {
  std::vector<int64_t> send_total(r.size, 0), recv_total(r.size, 0);
  for (int64_t i = 0; i < n; ++i) emit(i, [&](int dest, const T&) { ++send_total[dest]; });
  MPI_Alltoall(send_total.data(), 1, MPI_INT64_T, recv_total.data(), 1, MPI_INT64_T, r.comm);
  int64_t total = 0;
  for (int64_t t : recv_total) total += t;
  out->reserve(out->size() + static_cast<size_t>(total));
}

// One round of AllToAll: bucket[d]'s records to rank d, what each rank sent
// here appended to *out in rank order (collective). The counts travel as
// 64-bit numbers, with each rank's largest one, so every rank knows how many
// calls the round takes: one MPI_Alltoallv straight into *out while no rank
// sends more than MaxCallCount() / P records to one rank, else as many calls
// of that many records per rank pair as the largest count needs, each
// received into a buffer of at most MaxCallCount() records and moved into its
// place in *out, so no count or displacement passes MPI's int.
template <typename T>
void ExchangeRound(const Rank& r, const std::vector<std::vector<T>>& bucket, MPI_Datatype record,
                   std::vector<T>* out) {
  const size_t P = static_cast<size_t>(r.size);
  std::vector<int64_t> send_n(2 * P), recv_n(2 * P);
  int64_t most = 0, total = 0;
  for (size_t d = 0; d < P; ++d) most = std::max<int64_t>(most, static_cast<int64_t>(bucket[d].size()));
  for (size_t d = 0; d < P; ++d) send_n[2 * d] = static_cast<int64_t>(bucket[d].size()), send_n[2 * d + 1] = most;
  MPI_Alltoall(send_n.data(), 2, MPI_INT64_T, recv_n.data(), 2, MPI_INT64_T, r.comm);
  std::vector<int64_t> recv_at(P + 1, 0);
  for (size_t q = 0; q < P; ++q) {
    most = std::max(most, recv_n[2 * q + 1]);
    recv_at[q + 1] = recv_at[q] + recv_n[2 * q];
    total += static_cast<int64_t>(bucket[q].size());
  }
  AddBytesSent(static_cast<int64_t>((total - static_cast<int64_t>(bucket[r.rank].size())) * sizeof(T)));
  const size_t before = out->size();
  out->resize(before + static_cast<size_t>(recv_at[P]));
  const int64_t step = std::max<int64_t>(1, MaxCallCount() / r.size), calls = (most + step - 1) / step;
  std::vector<T> send_buf, scratch(calls > 1 ? static_cast<size_t>(step) * P : 0);
  std::vector<int> send_counts(P), recv_counts(P), send_displ(P), recv_displ(P);
  for (int64_t c = 0; c < calls; ++c) {
    const int64_t lo = c * step;
    send_buf.clear();
    for (size_t d = 0; d < P; ++d) {
      const int64_t hi = std::min<int64_t>(static_cast<int64_t>(bucket[d].size()), lo + step);
      send_displ[d] = static_cast<int>(send_buf.size());
      send_counts[d] = static_cast<int>(std::max<int64_t>(0, hi - lo));
      if (hi > lo) send_buf.insert(send_buf.end(), bucket[d].begin() + lo, bucket[d].begin() + hi);
    }
    for (size_t q = 0, got = 0; q < P; ++q) {
      recv_counts[q] = static_cast<int>(std::max<int64_t>(0, std::min(recv_n[2 * q], lo + step) - lo));
      recv_displ[q] = static_cast<int>(calls > 1 ? got : static_cast<size_t>(recv_at[q]));
      got += static_cast<size_t>(recv_counts[q]);
    }
    T* into = calls > 1 ? scratch.data() : out->data() + before;
    MPI_Alltoallv(send_buf.data(), send_counts.data(), send_displ.data(), record, into, recv_counts.data(),
                  recv_displ.data(), record, r.comm);
    for (size_t q = 0; calls > 1 && q < P; ++q)
      std::copy(into + recv_displ[q], into + recv_displ[q] + recv_counts[q],
                out->data() + before + recv_at[q] + lo);
  }
}

// Records of T as one MPI datatype (contiguous bytes), freed with the object.
class RecordType {
 public:
  explicit RecordType(size_t bytes) {
    MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &type_);
    MPI_Type_commit(&type_);
  }
  ~RecordType() { MPI_Type_free(&type_); }
  RecordType(const RecordType&) = delete;
  RecordType& operator=(const RecordType&) = delete;
  MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_;
};

template <typename T, typename EmitFn>
void AllToAll(const Rank& r, int64_t n, int64_t batch, EmitFn emit, std::vector<T>* out) {
  static_assert(std::is_trivially_copyable<T>::value, "records travel as bytes");
  const int64_t rounds = MaxAll(r, (n + batch - 1) / batch);
  ReserveReceived(r, n, emit, out);
  const RecordType record(sizeof(T));
  std::vector<std::vector<T>> bucket(r.size);
  for (int64_t round = 0; round < rounds; ++round) {
    Progress();
    const int64_t lo = std::min(n, round * batch), hi = std::min(n, lo + batch);
    for (auto& b : bucket) b.clear();
    for (int64_t i = lo; i < hi; ++i) emit(i, [&](int dest, const T& rec) { bucket[dest].push_back(rec); });
    ExchangeRound(r, bucket, record.get(), out);
  }
}

}  // namespace dg::mpi
