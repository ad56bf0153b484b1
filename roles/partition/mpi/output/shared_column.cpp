#include "roles/partition/mpi/output/shared_column.h"

#include <algorithm>

#include "common/io/npy.h"

namespace dg::mpi {

Status WriteSharedColumn(const Rank& r, const std::string& path, bool leader, const std::vector<ColumnPiece>& pieces,
                         const std::vector<int64_t>& mine) {
  constexpr int64_t kMessage = 1 << 20;
  int64_t total = 0;
  for (const ColumnPiece& c : pieces) total += c.count;
  std::vector<int> leaders(r.size);
  int me = leader ? 1 : 0;
  MPI_Allgather(&me, 1, MPI_INT, leaders.data(), 1, MPI_INT, r.comm);
  Status st;
  for (int l = 0; l < r.size; ++l) {
    if (!leaders[l]) continue;
    NpyWriter w;
    if (l == r.rank) st = w.Open(path, DType::kInt64, {total});
    std::vector<int64_t> buf;
    int64_t at = 0;  // position in mine
    for (const ColumnPiece& c : pieces) {
      if (c.owner != r.rank && l != r.rank) continue;
      for (int64_t off = 0; off < c.count; off += kMessage) {
        const int n = static_cast<int>(std::min(kMessage, c.count - off));
        Progress();
        if (c.owner == r.rank && l == r.rank) {
          if (st.ok()) st = w.Append(mine.data() + at + off, static_cast<size_t>(n) * sizeof(int64_t));
        } else if (c.owner == r.rank) {
          MPI_Send(mine.data() + at + off, n, MPI_INT64_T, l, 7, r.comm);
          AddBytesSent(static_cast<int64_t>(n) * 8);
        } else {
          buf.resize(static_cast<size_t>(n));
          MPI_Recv(buf.data(), n, MPI_INT64_T, c.owner, 7, r.comm, MPI_STATUS_IGNORE);
          if (st.ok()) st = w.Append(buf.data(), static_cast<size_t>(n) * sizeof(int64_t));
        }
      }
      if (c.owner == r.rank) at += c.count;
    }
    if (l == r.rank && st.ok()) st = w.Finish();
  }
  return st;
}

}  // namespace dg::mpi
