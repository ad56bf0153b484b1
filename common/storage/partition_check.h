// A part's structure, checked before it is served (docs/partitioning.md,
// "Verifying a partition").
//
// CheckPartStructure reads part p's mmap'd arrays once and checks what
// OpenLocalPartition's dtypes and shapes cannot: indptr never decreases (it
// starts at 0 and ends at the edge count: OpenLocalPartition), every source id
// in indices.npy lies in [0, num_nodes), and in a typed partition every edge
// type is in range, each row's in-edges are sorted by edge type and each edge
// joins the node types its edge type names; the seed files
// (train/val/test_nids.npy) have NAME.json's counts, are strictly increasing
// and hold only nodes the part owns (of the target type in a typed
// partition); held-out link edges (val/test_edges.npy) name existing sources
// and owned destinations. A refusal is one line naming the file, the entry and
// the bound, e.g. "parts/part1/indices.npy: entry 1791 is 1000000000000,
// outside [0, 2708)".
//
// CheckPart opens the part (OpenLocalPartition: dtypes, shapes, node and edge
// arrays' row counts), checks the structure, then optionally verifies its
// recorded checksums (partition_checksum.h). The server runs it before
// it listens; `partition verify` and `copy` run it too.
#pragma once

#include <cstdint>
#include <string>

#include "common/base/status.h"
#include "common/storage/partition.h"
#include "common/storage/partition_checksum.h"

namespace dg {

struct PartCheckStats {
  int64_t bytes_scanned = 0;  // bytes the pass read (CSR, edge types, seeds, held-out edges)
  int64_t part_bytes = 0;     // bytes of every array of the part, node and edge data included
  double seconds = 0;
};

Status CheckPartStructure(const PartitionConfig& config, const LocalPartition& part, PartCheckStats* stats);

struct PartCheckReport {
  PartCheckStats structure;
  bool checksums_checked = false;  // asked for, and NAME.json records them
  ChecksumReport checksums;
};

// with_checksums: also verify the part's recorded checksums (reads every byte).
Result<PartCheckReport> CheckPart(const PartitionConfig& config, int part, bool with_checksums);

// "part 1: structure checked in 0.031 s (168.0 MB read of 1.21 GB); checksums: ..."
std::string PartCheckLine(const PartitionConfig& config, int part, const PartCheckReport& report);

// The server's check before it listens: loads the json, CheckPart; the log line.
Result<std::string> CheckServedPart(const std::string& json_path, int part, bool with_checksums);

// `distgnn partition verify`: every part (part = -1: and every recorded
// checksum, the top-level arrays included) or one part with its checksums.
// The one-line summary, or the first refusal.
Result<std::string> VerifyPartition(const std::string& json_path, int part);

}  // namespace dg
