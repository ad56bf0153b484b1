// Opening a partition input for the out-of-core path without reading it:
// node arrays mmap'd (.npy.gz ones are read, they are small or the user's
// choice), the edge list as mmap'd src/dst .npy columns. A text edge list
// (plain or gzip) is streamed in 8 MB blocks, twice: once to count the edges,
// once to write them into tmp_dir as .npy columns; .npy.gz columns are
// gunzipped there likewise.
// Then the normalization options are applied out of core (edge_normalize.h).
// num_nodes: --num-nodes, else the node arrays' rows, else max id + 1.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "common/storage/dataset.h"
#include "common/base/status.h"
#include "roles/partition/edge_normalize.h"
#include "roles/partition/partition_request.h"

namespace dg {

struct OutOfCoreSource {
  std::string dataset_dir;                        // either this
  std::string edges_file;                         // or this with node_files
  std::map<std::string, std::string> node_files;  // name -> .npy
  int64_t num_nodes = -1;
};

// Edge count before normalization, cheaply (npy headers; text: -1 = unknown).
Result<int64_t> CountInputEdges(const OutOfCoreSource& src);

Result<OutOfCoreInput> OpenOutOfCoreInput(const OutOfCoreSource& src, const EdgeListOptions& norm,
                                          const SpillOptions& spill, std::FILE* log);

// A compressed .npy (X.npy.gz) is gunzipped in 1 MB pieces to DIR/AS and
// mapped from there, so under a budget it costs disk, not memory. Plain files
// are returned unchanged.
Result<std::string> PlainNpyPath(const std::string& path, const std::string& dir, const std::string& as);

}  // namespace dg
