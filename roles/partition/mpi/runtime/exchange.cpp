#include "roles/partition/mpi/runtime/exchange.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "roles/partition/mpi/runtime/test_hold.h"

namespace dg::mpi {

namespace {
int64_t g_bytes_sent = 0;
}  // namespace

void OnRankZero(const Rank& r, const std::function<void()>& compute) {
  std::atomic<bool> done{false};
  std::thread worker;
  if (r.rank == 0) worker = std::thread([&] {
    compute();
    done = true;
  });
  for (int finished = 0; !finished;) {
    for (int i = 0; r.rank == 0 && i < 50 && !done; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    finished = r.rank == 0 && done ? 1 : 0;
    MPI_Bcast(&finished, 1, MPI_INT, 0, r.comm);
  }
  if (worker.joinable()) worker.join();
}

Result<std::vector<int32_t>> PartsOnZero(const Rank& r, int64_t count,
                                         const std::function<Result<std::vector<int32_t>>()>& compute,
                                         double* seconds) {
  std::vector<int32_t> parts;
  Status st;
  OnRankZero(r, [&] {
    const auto t0 = std::chrono::steady_clock::now();
    TestHold("rank-0", r.rank);
    Result<std::vector<int32_t>> got = compute();
    if (got.ok()) parts = std::move(*got);
    else st = got.status();
    *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  });
  DG_RETURN_IF_ERROR(Agree(r, st));
  return ScatterFromZero(r, parts, count, MPI_INT32_T);
}

int64_t MaxCallCount() {
  static const int64_t limit = [] {
    const char* narrowed = std::getenv("DISTGNN_TEST_MPI_MAX_COUNT");
    const int64_t v = narrowed ? std::atoll(narrowed) : 0;
    return v > 0 && v < INT_MAX ? v : int64_t{INT_MAX};
  }();
  return limit;
}

void SendChunked(const Rank& r, int from, int to, const void* send, void* recv, int64_t n, MPI_Datatype type) {
  if (r.rank != from && r.rank != to) return;
  MPI_Aint lb = 0, extent = 0;
  MPI_Type_get_extent(type, &lb, &extent);
  constexpr int kTag = 11;
  for (int64_t at = 0; at < n; at += MaxCallCount()) {
    const int count = static_cast<int>(std::min(MaxCallCount(), n - at));
    if (r.rank == from)
      MPI_Send(static_cast<const char*>(send) + at * extent, count, type, to, kTag, r.comm);
    else
      MPI_Recv(static_cast<char*>(recv) + at * extent, count, type, from, kTag, r.comm, MPI_STATUS_IGNORE);
  }
}

int64_t BytesSent() { return g_bytes_sent; }
void AddBytesSent(int64_t bytes) { g_bytes_sent += bytes; }

Rank WorldRank() {
  Rank r;
  r.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(r.comm, &r.rank);
  MPI_Comm_size(r.comm, &r.size);
  char name[256] = {0};
  ::gethostname(name, sizeof(name) - 1);
  r.host = name;
  return r;
}

namespace {

// The lowest failed rank's message, on every rank (collective).
std::string LowestMessage(const Rank& r, int lowest, const Status& st) {
  std::string msg = r.rank == lowest ? st.ToString() : std::string();
  int len = static_cast<int>(msg.size());
  MPI_Bcast(&len, 1, MPI_INT, lowest, r.comm);
  msg.resize(static_cast<size_t>(len));
  MPI_Bcast(msg.data(), len, MPI_CHAR, lowest, r.comm);
  return msg;
}

// The status this rank's last failed Agree returned: agreeing on it again (a
// caller agreeing on what a callee already agreed on) prints nothing more.
std::string& LastAgreed() {
  static std::string last;
  return last;
}

}  // namespace

Status Agree(const Rank& r, const Status& st) {
  int failed_rank = st.ok() ? r.size : r.rank;
  int lowest = r.size;
  MPI_Allreduce(&failed_rank, &lowest, 1, MPI_INT, MPI_MIN, r.comm);
  if (lowest == r.size) return Status::OK();
  // Ranks reading the same files fail alike: the lowest prints the message
  // once, the others only a message of their own.
  const std::string first = LowestMessage(r, lowest, st);
  Status out = st.ok() ? Status::PeerLost("rank " + std::to_string(lowest) + " failed (its message is above)") : st;
  const bool printed = !st.ok() && st.ToString() == LastAgreed();
  if (!st.ok() && !printed && (r.rank == lowest || st.ToString() != first)) {
    std::fprintf(stderr, "distgnn-mpi-partition: %s: %s\n", r.Name().c_str(), st.ToString().c_str());
    std::fflush(stderr);
  }
  LastAgreed() = out.ToString();
  return out;
}

void SumAll(const Rank& r, std::vector<int64_t>* v) {
  MPI_Allreduce(MPI_IN_PLACE, v->data(), static_cast<int>(v->size()), MPI_INT64_T, MPI_SUM, r.comm);
}

int64_t SumAll(const Rank& r, int64_t v) {
  int64_t out = 0;
  MPI_Allreduce(&v, &out, 1, MPI_INT64_T, MPI_SUM, r.comm);
  return out;
}

int64_t MaxAll(const Rank& r, int64_t v) {
  int64_t out = 0;
  MPI_Allreduce(&v, &out, 1, MPI_INT64_T, MPI_MAX, r.comm);
  return out;
}

int64_t ExclusiveScan(const Rank& r, int64_t v) {
  int64_t out = 0;
  MPI_Exscan(&v, &out, 1, MPI_INT64_T, MPI_SUM, r.comm);
  return r.rank == 0 ? 0 : out;  // MPI_Exscan leaves rank 0's result undefined
}

}  // namespace dg::mpi
