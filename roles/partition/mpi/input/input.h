// The input of a distributed run: a dataset directory every rank reads
// (shared storage): src.npy + dst.npy (each rank maps the columns and takes
// its byte range), or a text edge list (each rank parses it up to its rows and
// keeps them), and node arrays *.npy mapped (an .npy.gz one is gunzipped into the
// rank's scratch directory first). A rank reads only its own edge rows and,
// when writing, the node rows of the parts it serves.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/base/status.h"
#include "common/storage/dataset.h"
#include "roles/partition/mpi/graph/graph.h"
#include "roles/partition/typed_input.h"

namespace dg::mpi {

// Rows [first, end) of a file one rank parsed, the bytes of values they gave
// (node rows as staged, edges as two int64 ids) and how long it took.
struct ShareParse {
  std::string what;
  int64_t first = 0, end = 0, bytes = 0;
  double seconds = 0;
};

struct ShardInput {
  int64_t num_nodes = 0;
  std::map<std::string, Array> node_data;  // every row, mapped
  std::vector<Edge> edges;                 // this rank's rows, ids = input positions
  // A typed dataset (input/typed_input.h): the node arrays per type live here
  // and node_data is empty; null for a homogeneous one.
  std::shared_ptr<const TypeLayout> types;
  // The files this rank parsed a share of (the same list on every rank).
  std::vector<ShareParse> parsed;
};

// num_nodes < 0: from the node arrays, else the largest id + 1 (over all ranks).
Result<ShardInput> ReadShard(const Rank& r, const std::string& dataset_dir, int64_t num_nodes,
                             const std::string& scratch_dir);

// The same from files listed by the caller (OGB's files staged into a plain
// layout, input/ogb_input.h): errors name the files as listed. text_edges >= 0
// is the number of edges of files.edges_text, known beforehand (OGB's
// num-edge-list): then each rank parses the text once and stops after its
// rows (the last rank reads to the end and checks the count), instead of
// every rank parsing it twice (a count, then its rows).
Result<ShardInput> ReadShardFiles(const Rank& r, const DatasetFiles& files, int64_t num_nodes,
                                  const std::string& scratch_dir, int64_t text_edges = -1);

// Rank 0 prints, for every rank, the rows of each file it parsed and how long
// that took (collective: after the ranks agree the input was read).
void LogShareParses(const Rank& r, const std::vector<ShareParse>& parsed);

// Train flags (split == 0, else train_mask != 0) of one block of vertices; empty if neither array.
std::vector<uint8_t> BlockTrainFlags(const std::map<std::string, Array>& node_data, int64_t first, int64_t count);

}  // namespace dg::mpi
