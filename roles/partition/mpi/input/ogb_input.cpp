#include "roles/partition/mpi/input/ogb_input.h"

#include "common/storage/ogb_dataset.h"
#include "roles/partition/mpi/input/typed_input.h"
#include "roles/partition/ogb_input.h"

namespace dg::mpi {

Result<ShardInput> ReadOgbShard(const Rank& r, const std::string& dir, bool undirected, const std::string& scratch) {
  if (IsOgbHeterogeneous(dir)) {
    DG_ASSIGN_OR_RETURN(std::string staged, StageOgbTypedDataset(dir, scratch));
    Result<ShardInput> in = ReadTypedShard(r, staged, undirected, scratch);
    if (!in.ok()) return NameOgbEdgeFiles(in.status(), dir, staged);
    return in;
  }
  DG_ASSIGN_OR_RETURN(OutOfCoreSource src, StageOgbDataset(dir, scratch));
  DatasetFiles files;
  files.node_files = src.node_files;
  files.edges_text = src.edges_file;
  // num_nodes < 0 (no count file, node-feat, labels or split): max id + 1, as in memory.
  DG_ASSIGN_OR_RETURN(OgbCounts counts, ReadOgbCounts(dir));
  return ReadShardFiles(r, files, src.num_nodes, scratch, counts.edges);
}

}  // namespace dg::mpi
