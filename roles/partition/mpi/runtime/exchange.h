// The MPI pieces every step of the distributed partitioner shares: the rank's
// identity (for messages naming rank and host), agreement on a Status across
// ranks, and a bounded all-to-all of trivially copyable records.
//
// AllToAll walks items [0, n) of this rank in rounds of at most `batch` items;
// emit(i, send) calls send(dest_rank, record) for each record item i produces
// (zero or more). Every round is one MPI_Alltoall of counts and one
// MPI_Alltoallv of bytes, so a rank never holds more than one round's outgoing
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
// error: its own, or one naming the lowest failed rank.
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

// Every rank's count of rows and where they start in rank order, on rank 0
// (collective).
struct RowsOnZero {
  std::vector<int> counts, displs;
  RowsOnZero(const Rank& r, int count) : counts(static_cast<size_t>(r.size)), displs(static_cast<size_t>(r.size), 0) {
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, r.comm);
    for (int q = 1; q < r.size; ++q) displs[q] = displs[q - 1] + counts[q - 1];
  }
  size_t total() const { return static_cast<size_t>(displs.back()) + static_cast<size_t>(counts.back()); }
};

// Gathers a vector of every rank's rows on rank 0 (rank order; empty
// elsewhere). MPI's counts are int: all ranks' rows together stay below 2^31.
template <typename T>
std::vector<T> GatherOnZero(const Rank& r, const std::vector<T>& mine, MPI_Datatype type) {
  const RowsOnZero rows(r, static_cast<int>(mine.size()));
  std::vector<T> all(r.rank == 0 ? rows.total() : 0);
  MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), type, all.data(), rows.counts.data(), rows.displs.data(),
              type, 0, r.comm);
  return all;
}

// The reverse: rank 0's `all` (rank order) back to the ranks, `count` each.
template <typename T>
std::vector<T> ScatterFromZero(const Rank& r, const std::vector<T>& all, int count, MPI_Datatype type) {
  const RowsOnZero rows(r, count);
  std::vector<T> mine(static_cast<size_t>(count));
  MPI_Scatterv(all.data(), rows.counts.data(), rows.displs.data(), type, mine.data(), count, type, 0, r.comm);
  return mine;
}

// A part for every row of all ranks computed on rank 0 (OnRankZero: the
// others kept alive meanwhile), its status agreed, and each rank's `count`
// rows of it (rank order) scattered back (collective). *seconds: compute's
// time on rank 0.
Result<std::vector<int32_t>> PartsOnZero(const Rank& r, int count,
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

template <typename T, typename EmitFn>
void AllToAll(const Rank& r, int64_t n, int64_t batch, EmitFn emit, std::vector<T>* out) {
  static_assert(std::is_trivially_copyable<T>::value, "records travel as bytes");
  const int64_t rounds = MaxAll(r, (n + batch - 1) / batch);
  ReserveReceived(r, n, emit, out);
  std::vector<std::vector<T>> bucket(r.size);
  std::vector<int> send_counts(r.size), recv_counts(r.size), send_displ(r.size), recv_displ(r.size);
  std::vector<char> send_buf;
  for (int64_t round = 0; round < rounds; ++round) {
    Progress();
    const int64_t lo = std::min(n, round * batch), hi = std::min(n, lo + batch);
    for (auto& b : bucket) b.clear();
    for (int64_t i = lo; i < hi; ++i) emit(i, [&](int dest, const T& rec) { bucket[dest].push_back(rec); });
    size_t total = 0;
    for (int d = 0; d < r.size; ++d) {
      send_counts[d] = static_cast<int>(bucket[d].size() * sizeof(T));
      send_displ[d] = static_cast<int>(total);
      total += bucket[d].size() * sizeof(T);
    }
    send_buf.resize(total);
    AddBytesSent(static_cast<int64_t>(total - bucket[r.rank].size() * sizeof(T)));
    for (int d = 0; d < r.size; ++d)
      std::copy(reinterpret_cast<const char*>(bucket[d].data()),
                reinterpret_cast<const char*>(bucket[d].data() + bucket[d].size()), send_buf.data() + send_displ[d]);
    MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, r.comm);
    size_t got = 0;
    for (int d = 0; d < r.size; ++d) {
      recv_displ[d] = static_cast<int>(got);
      got += static_cast<size_t>(recv_counts[d]);
    }
    const size_t before = out->size();
    out->resize(before + got / sizeof(T));
    MPI_Alltoallv(send_buf.data(), send_counts.data(), send_displ.data(), MPI_BYTE,
                  reinterpret_cast<char*>(out->data() + before), recv_counts.data(), recv_displ.data(), MPI_BYTE,
                  r.comm);
  }
}

}  // namespace dg::mpi
