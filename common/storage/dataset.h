// A dataset directory: what `distgnn generate` writes and `partition --dataset`
// and `train-local --dataset` read (docs/formats.md).
//
//   edges.tsv | edges.tsv.gz | src.npy + dst.npy    the edge list
//   features.npy[.gz]  float32 [N, F]
//   labels.npy[.gz]    int64 [N]
//   split.npy[.gz]     int8 [N]: 0 train, 1 val, 2 test, -1 none
//   any other X.npy[.gz] with N rows                 more node arrays
//
// Edge lists: one "src dst" per line, separated by whitespace, tab or comma;
// '#' starts a comment; blank lines ignored. A malformed line is an error naming
// file:line. Node ids must be in [0, num_nodes) when num_nodes is known.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/base/status.h"

namespace dg {

struct EdgeList {
  std::vector<int64_t> src, dst;
  int64_t max_id = -1;  // largest node id seen
};

struct EdgeListOptions {
  bool undirected = false;        // add the reverse of every edge
  bool drop_self_loops = false;
  bool drop_duplicates = false;   // implied by undirected (symmetrise + dedupe, as DGL/PyG)
  int64_t num_nodes = -1;         // -1 = infer as max id + 1
};

// Read a text edge list (plain or gzip) or a src.npy/dst.npy pair.
Result<EdgeList> ReadEdgeListText(const std::string& path, int64_t num_nodes);
// The same parse, streamed: fn(src, dst, n) per block of lines (8 MB of text at
// a time, plain or gzip), so a text edge list larger than memory can be read.
// *max_id is the largest id seen. Errors as ReadEdgeListText's (file:line).
using EdgeChunkFn = std::function<Status(const int64_t* src, const int64_t* dst, int64_t n)>;
// skip_rows: the first *skip_rows edges are counted, not parsed (a line is an
// edge unless blank or a comment), nor are their ids checked or in *max_id: a
// rank of a distributed run parses only its own rows. *skip_rows is counted
// down, so it is > 0 afterwards only when the file has fewer edges.
Status ForEachEdgeText(const std::string& path, int64_t num_nodes, const EdgeChunkFn& fn, int64_t* max_id,
                       int64_t* skip_rows = nullptr);
// The number of edges of a text edge list, its lines counted, not parsed.
Result<int64_t> CountEdgeTextRows(const std::string& path);
Result<EdgeList> ReadEdgeListNpy(const std::string& src_path, const std::string& dst_path,
                                 int64_t num_nodes);
// Apply undirected / self-loop / duplicate options in place. Sorting order of the
// result is unspecified (the partitioner builds CSR itself).
void NormalizeEdges(EdgeList* edges, const EdgeListOptions& opts);
// Same, and if origin is not null sets (*origin)[k] = index in the input list of
// the edge that result edge k came from (a reverse edge added by `undirected`
// points at the edge it reverses; of duplicates the first is kept). Used to carry
// edge arrays through normalization. Dedupe sorts packed (src, dst) keys, so the
// result is sorted by (src, dst) whenever duplicates are dropped.
void NormalizeEdges(EdgeList* edges, const EdgeListOptions& opts, std::vector<int64_t>* origin);

struct Dataset {
  std::string dir;
  int64_t num_nodes = 0;
  EdgeList edges;
  std::map<std::string, Array> node_data;  // "features", "labels", "split", extras
};

// Row-normalizes a float32 [N, F] node array in place of *a (a new heap copy:
// inputs may be read-only mmaps): each row divided by its sum, as DGL's and
// PyG's citation datasets do; rows summing to 0 are kept. `what` names the
// array in errors.
Status RowNormalize(Array* a, const std::string& what);
// One row of it: out[j] = in[j] / sum(in) (sum in double; a zero sum keeps the
// row). `out` may equal `in`. The partitioner applies it row by row while
// copying an mmap'd array (--normalize-features under --memory-budget).
void NormalizeRow(const float* in, int64_t f, float* out);

// The files of a dataset directory, without reading them: node arrays (name ->
// path; plain .npy preferred over .npy.gz) and the edge list (a text file, or
// the src/dst .npy pair). Errors as LoadDataset's.
struct DatasetFiles {
  std::map<std::string, std::string> node_files;
  std::string edges_text, src_npy, dst_npy;
};
Result<DatasetFiles> ListDataset(const std::string& dir);

// Load a dataset directory. num_nodes comes from the node arrays (all must agree;
// a mismatch names the file); else opts.num_nodes; else max id + 1. The edge list
// is checked against it. Node arrays are mmap'd when plain, read when gzip'd; if
// both X.npy and X.npy.gz exist the plain one is used.
Result<Dataset> LoadDataset(const std::string& dir, const EdgeListOptions& opts);

// Ids i with split[i] == value (split is an int8 [N] array: 0 train, 1 val, 2 test).
Result<std::vector<int64_t>> NodesWithSplit(const Array& split, int value);

}  // namespace dg
