// The engines of `distgnn partition` on one machine, each taking a graph an
// input has read (dataset_kinds.h): in memory (PartitionGraph, partitioner.h)
// or out of core (PartitionGraphOutOfCore, out_of_core.h), for one type or
// typed. Each prints its progress and the "done" line on stdout.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "common/base/status.h"
#include "common/storage/dataset.h"
#include "common/storage/link_split.h"
#include "config/partition_spec.h"
#include "roles/partition/out_of_core_input.h"
#include "roles/partition/partition_request.h"

namespace dg {

struct PartitionConfig;
struct TypedDataset;

// ---- in memory (engine_in_memory.cpp) ----

// A homogeneous graph as read (edges not normalized yet; edge_data one row per
// input edge): normalized with the origins --edge-data needs, --edge-split's
// edges (or the dataset's edge_split.npy) held out, 'features' row-normalized
// if asked, then partitioned. t0: when reading began.
Status PartitionInMemory(const PartitionOptions& opts, GraphInput in,
                         std::chrono::steady_clock::time_point t0);

// A typed dataset already in memory (the OGB reader, tests) -> a typed
// partition. Empties ds's edges. `out`, if given, receives the written
// partition's config.
Status PartitionTypedInMemory(TypedDataset* ds, const PartitionOptions& opts, double read_seconds,
                              PartitionConfig* out = nullptr);

// ---- out of core (engine_out_of_core.cpp) ----

// Writes the input's intermediate files into the scratch directory and
// completes *src with them (--format ogb: ogb_input.h).
using StageInputFn = std::function<Status(const std::string& scratch_dir, OutOfCoreSource* src)>;

// A homogeneous graph from its files (src: a dataset directory or an edge
// list with node arrays; stage: OGB's CSVs first converted), normalized and
// partitioned out of core. METIS is refused before anything is read when its
// estimate passes the budget.
Status PartitionOutOfCore(OutOfCoreSource src, const EdgeListOptions& eo,
                          const std::map<std::string, std::string>& edge_files, PartitionOptions po,
                          const StageInputFn& stage = nullptr);

// A typed dataset directory out of core (typed_input.h, merged_input.h with
// --merge-types), its intermediate files in scratch_dir.
Status PartitionTypedOutOfCore(const std::string& dir, const std::string& scratch_dir, const PartitionOptions& o,
                               std::chrono::steady_clock::time_point t0);

}  // namespace dg
