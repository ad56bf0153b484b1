// The graph server's answers to PULL_BLOCK and SAMPLE_BLOCK (requests and
// wire: common/net/pull_block.h): a mini-batch's input block computed where
// the features live. Each checks every offset, count, the tensor and the
// limits before any work, then runs the row loops of
// common/storage/block_rows.h and encodes wire rows in the requested dtype.
#pragma once

#include <cstdint>

#include "common/net/connection.h"
#include "common/net/pull_block.h"
#include "common/storage/partition_store.h"

namespace dg {

struct PullBlockLimits {
  int64_t max_edges = int64_t(1) << 30;
  int64_t max_answer_bytes = int64_t(1) << 30;
};
Result<BufferList> ServePullBlock(const PartitionStore& store, const PullBlockRequest& req,
                                  const PullBlockLimits& limits);

struct SampleBlockLimits {
  int64_t max_fanout = 1000000;  // with replacement
  int64_t max_answer_bytes = int64_t(1) << 30;
  int64_t num_nodes = 0;  // the graph's: remote_src is int32 below 2^31
};
Result<BufferList> ServeSampleBlock(const PartitionStore& store, const SampleBlockRequest& req,
                                   const SampleBlockLimits& limits);

}  // namespace dg
