#include "roles/partition/mpi/input/ogb_input.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "common/io/npy.h"
#include "common/storage/ogb_dataset.h"
#include "roles/partition/mpi/input/typed_input.h"
#include "roles/partition/ogb_input.h"

namespace dg::mpi {

namespace {

// Every rank's share of one array (share_npy on each rank, rank order) into
// `whole` ([rows, ...]) on every rank (collective): each share is broadcast
// by its rank from its mapping in chunks of at most 8 MiB (and MaxCallCount()
// bytes), so each host has the whole file on its own disk. A failed write is
// reported after the last chunk, so every rank takes part in every broadcast.
Status GatherShares(const Rank& r, const std::string& share_npy, int64_t rows, const std::string& whole) {
  Result<Array> mapped = NpyMap(share_npy);
  DG_RETURN_IF_ERROR(Agree(r, mapped.status()));
  const Array& mine = *mapped;
  std::vector<int64_t> shape = mine.shape;
  shape[0] = rows;
  NpyWriter w;
  DG_RETURN_IF_ERROR(Agree(r, w.Open(whole, mine.dtype, shape)));
  const int64_t row_bytes = static_cast<int64_t>(mine.row_bytes());
  const int64_t chunk = std::max<int64_t>(1, std::min<int64_t>(8 << 20, MaxCallCount()));
  std::vector<char> buf(static_cast<size_t>(chunk));
  Status st;
  for (int q = 0; q < r.size; ++q) {
    const CsvRowRange s = ShareOfRows(q, r.size, rows);
    const int64_t bytes = (s.end - s.first) * row_bytes;
    for (int64_t at = 0; at < bytes; at += chunk) {
      const int n = static_cast<int>(std::min(chunk, bytes - at));
      char* data = q == r.rank ? const_cast<char*>(mine.as<char>()) + at : buf.data();
      MPI_Bcast(data, n, MPI_BYTE, q, r.comm);
      if (st.ok()) st = w.Append(data, static_cast<size_t>(n));
    }
  }
  if (st.ok()) st = w.Finish();
  ::unlink(share_npy.c_str());
  return Agree(r, st);
}

uintmax_t FileSize(const std::string& path) {
  std::error_code ec;
  const uintmax_t n = std::filesystem::file_size(path, ec);
  return ec ? 0 : n;
}

// "node-feat.csv.gz + node-label.csv.gz" (those of them that exist), for the log.
std::string NodeFilesNamed(const OgbNodeSet& set) {
  std::string names;
  for (const std::string& f : {set.feat, set.label})
    if (OgbFileExists(f)) names += (names.empty() ? "" : " + ") + f;
  return names;
}

// The split (int8 [rows], -1 = in none) on every rank: each rank parses its
// share of the lines of each split file and the ranks' arrays combine by
// maximum (a later file's value is the larger, as when one reader fills them
// in order), in calls of at most MaxCallCount() bytes. "" when the set has none.
Result<std::string> WriteSplitOverRanks(const Rank& r, const OgbNodeSet& set) {
  if (set.split_dir.empty() || !OgbFileExists(set.split_dir)) return std::string();
  Result<Array> mine = ReadOgbSplit(set.split_dir, set.rows, r.rank, r.size);
  DG_RETURN_IF_ERROR(Agree(r, mine.status()));
  Array& a = *mine;
  int8_t* split = a.as<int8_t>();
  const int64_t chunk = std::max<int64_t>(1, MaxCallCount());
  for (int64_t at = 0; at < set.rows; at += chunk)
    MPI_Allreduce(MPI_IN_PLACE, split + at, static_cast<int>(std::min(chunk, set.rows - at)), MPI_INT8_T, MPI_MAX,
                  r.comm);
  const std::string npy = set.out_prefix + "split.npy";
  DG_RETURN_IF_ERROR(Agree(r, NpyWrite(npy, a)));
  return npy;
}

// The node writer of a distributed run: this rank parses its share of the
// node-feat and node-label rows and of the split's lines; the shares are
// gathered into the whole files on every rank.
Result<std::map<std::string, std::string>> WriteNodeSetOverRanks(const Rank& r, const OgbNodeSet& set,
                                                                 std::vector<ShareParse>* parsed) {
  const auto t0 = std::chrono::steady_clock::now();
  const CsvRowRange mine = ShareOfRows(r.rank, r.size, std::max<int64_t>(set.rows, 0));
  Result<std::map<std::string, std::string>> shares = WriteOgbNodeShare(set, mine, set.out_prefix + "share-");
  DG_RETURN_IF_ERROR(Agree(r, shares.status()));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int64_t bytes = 0;
  for (const auto& [name, share] : *shares) bytes += static_cast<int64_t>(FileSize(share));
  if (!shares->empty()) parsed->push_back({NodeFilesNamed(set), mine.first, mine.end, bytes, seconds});
  std::map<std::string, std::string> files;
  for (const auto& [name, share] : *shares) {
    files[name] = set.out_prefix + name + ".npy";
    DG_RETURN_IF_ERROR(GatherShares(r, share, set.rows, files[name]));
  }
  DG_ASSIGN_OR_RETURN(std::string split, WriteSplitOverRanks(r, set));
  if (!split.empty()) files["split"] = split;
  return files;
}

}  // namespace

Result<ShardInput> ReadOgbShard(const Rank& r, const std::string& dir, bool undirected, const std::string& scratch) {
  std::vector<ShareParse> parsed;
  const OgbNodeWriter write = [&](const OgbNodeSet& set) { return WriteNodeSetOverRanks(r, set, &parsed); };
  if (IsOgbHeterogeneous(dir)) {
    DG_ASSIGN_OR_RETURN(std::string staged, StageOgbTypedDataset(dir, scratch, write));
    Result<ShardInput> in = ReadTypedShard(r, staged, undirected, scratch);
    if (!in.ok()) return NameOgbEdgeFiles(in.status(), dir, staged);
    in->parsed.insert(in->parsed.begin(), parsed.begin(), parsed.end());
    return in;
  }
  DG_ASSIGN_OR_RETURN(OutOfCoreSource src, StageOgbDataset(dir, scratch, write));
  DatasetFiles files;
  files.node_files = src.node_files;
  files.edges_text = src.edges_file;
  // num_nodes < 0 (no count file, node-feat, labels or split): max id + 1, as in memory.
  DG_ASSIGN_OR_RETURN(OgbCounts counts, ReadOgbCounts(dir));
  DG_ASSIGN_OR_RETURN(ShardInput in, ReadShardFiles(r, files, src.num_nodes, scratch, counts.edges));
  in.parsed.insert(in.parsed.begin(), parsed.begin(), parsed.end());
  return in;
}

}  // namespace dg::mpi
