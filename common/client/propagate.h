// Full-graph propagation X_k = Â X_{k-1} over a partitioned graph (the
// preprocessing of SGC/SIGN-style models; the distributed `update_all`).
//
// Run by every trainer process of a `distgnn propagate` job. Worker `index` of
// machine m computes the rows of its share of partition m's nodes for each hop:
// all in-neighbours of those nodes (the machine's own partition, read from the
// mmap), their rows of hop k-1 pulled from the servers, aggregated with the
// norm, pushed into the DistTensor OUTPUT_k; a barrier of all workers ends the
// hop. Afterwards worker 0 of each machine writes its partition's rows of every
// hop to partN/node_data/OUTPUT_k.npy. Torch-free.
//   mean: x_i = (1 / in_deg(i)) sum_{j -> i} x_j     (0 for nodes without in-edges)
//   sum:  x_i = sum_{j -> i} x_j
//   sym:  x_i = sum_{j -> i} x_j / sqrt(in_deg(i) * in_deg(j))
#pragma once

#include <string>

#include "common/client/dist_graph_client.h"

namespace dg {

enum class PropagateNorm { kMean, kSum, kSym };
const char* Name(PropagateNorm norm);  // "mean" | "sum" | "sym"
// --norm: a word of Name, else InvalidArgument naming the flag.
Status ParsePropagateNorm(const std::string& word, PropagateNorm* out);

struct PropagateOptions {
  std::string input;        // float32 [N, F] node array
  std::string output;       // hops are written as OUTPUT_1 .. OUTPUT_K
  int hops = 1;
  PropagateNorm norm = PropagateNorm::kMean;
  int machine = 0;          // = the partition this worker serves
  int index = 0;            // worker index on the machine
  int workers_per_machine = 1;
  int total_workers = 1;    // barrier participants
  int64_t chunk = 4096;     // nodes per request round
};

Status CheckPropagateOptions(const PropagateOptions& options, const PartitionConfig& config);
Status RunPropagation(DistGraphClient* client, const PropagateOptions& options);

}  // namespace dg
