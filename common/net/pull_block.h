// PULL_BLOCK and SAMPLE_BLOCK requests: what a mini-batch's input block needs
// from one partition, computed where the features live (the answers:
// roles/server/block_answers.h; the row loops: common/storage/block_rows.h).
//
// For mean/sum aggregators the input layer needs, per destination node of
// block 0, its own row and the sum of its sampled sources' rows -- not every
// source row. A request to partition p names
//   rows    int32 [r]  nodes of p (offsets from node_map[p]) whose own rows are wanted
//   counts  int32 [m]  for each destination of the block, how many of its
//                      sampled sources p owns (0 allowed)
//   src     int32 [E]  those sources (offsets from node_map[p]), destination
//                      after destination, E = sum(counts); duplicates allowed
// and the reply carries the r rows and, for each destination with count > 0
// (in order; k of them), the float32 sum of its sources' rows here, both as
// wire rows (common/net/wire_dtype.h) in the requested wire dtype. Sums are
// computed in float32 in src order, then rounded once. A request with no
// edges is a PULL in a wire dtype. Node tensor `name` must be float32 [N, F]
// partition data (not a mutable tensor).
//
// Wire (protocol.md): request `string name, u8 wire_dtype, array rows,
// array counts, array src` -> reply `wire rows own [r, F], wire rows sums [k, F]`.
// Limits: E <= limits.max_aggregate_edges; the reply must fit a frame.
//
// SAMPLE_BLOCK does the sampling of block 0 there too, for destinations p
// owns: a request names
//   dst     int32 [m]  destinations (offsets from node_map[p])
// with the fanout, replacement and request seed of SAMPLE_NEIGHBORS (row seed
// MixSeed(seed, gid), so the edges are the ones SAMPLE_NEIGHBORS samples),
// and the reply carries the m own rows, per destination how many sampled
// sources p owns (own_counts) and the sum of those (k sums for the k
// destinations with own_counts > 0, as PULL_BLOCK's), and per destination
// the sampled sources p does not own (remote_counts, remote_src: global ids,
// destination after destination, in sampled order) for the caller to sum
// where they live. The source ids of block 0 then never travel. `skip`
// (int32, strictly ascending positions in dst) names destinations whose own
// rows the caller has (its feature cache): their rows are left out.
//
// With `history` (the name of a float32 [N, W + 2] mutable tensor of stored
// rows: W floats, then the int64 step + 1 that wrote the row, 0 = never;
// HistoricalTask), the destinations at positions `cand` (int32, strictly
// ascending) whose row was written at most max_age steps before `step` are
// hits: the reply starts with their positions (hit) and stored rows, and a
// hit is neither sampled nor sent its own row (its counts are 0). So a
// trainer reads stored rows in the round trip that samples the others.
// Wire: request `string name, u8 wire_dtype, i64 fanout, bool replace,
// u64 seed, array dst, array skip, string history, i64 step, i64 max_age,
// array cand` -> reply `[array hit int32 [h], array stored float32 [h, W]]
// (with history only), wire rows own [m - |skip or hit|, F], array own_counts
// int32 [m], wire rows sums [k, F], array remote_counts int32 [m], array
// remote_src int32 [R] (int64 when the graph has 2^31 nodes or more)`.
// Torch-free.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/net/codec.h"
#include "common/net/connection.h"
#include "common/net/wire_dtype.h"
#include "common/base/status.h"
#include "common/base/array.h"
#include "common/base/sample_spec.h"

namespace dg {

struct PullBlockRequest {
  std::string name;
  WireDType wire = WireDType::kFloat32;
  Array rows;    // int32 [r]
  Array counts;  // int32 [m]
  Array src;     // int32 [E]
};

// The id vectors of one request; the payload references them (kept alive).
struct PullBlockIds {
  std::vector<int32_t> rows, counts, src;
  std::vector<int32_t> skip;  // SAMPLE_BLOCK only
  std::vector<int32_t> cand;  // SAMPLE_BLOCK with history only
};
void EncodePullBlock(Encoder* e, const std::string& name, WireDType wire, std::shared_ptr<const PullBlockIds> ids);
// Checks the encoding (dtypes, ranks); the server checks the values
// (roles/server/block_answers.h).
Result<PullBlockRequest> DecodePullBlock(const Frame& f);

// Stored rows asked for with a SAMPLE_BLOCK (empty name: none).
struct SampleBlockHistory {
  std::string name;
  int64_t step = 0, max_age = 0;
};

struct SampleBlockRequest {
  std::string name;
  WireDType wire = WireDType::kFloat32;
  SampleSpec spec;  // fanout, replace and seed (uniform, no edge ids: the wire has no more)
  Array dst;   // int32 [m]
  Array skip;  // int32 [s], strictly ascending positions in dst: own rows not sent
  SampleBlockHistory history;  // empty name: no stored rows asked for
  Array cand;  // int32 [c], strictly ascending positions in dst that may be answered by a stored row
};
// The step that wrote a stored row (float32 [W + 2]: its last 8 bytes hold
// the int64 step + 1; -1 = never written), and whether it may answer at
// `step`: written, and at most max_age steps before.
int64_t StoredRowStep(const void* row, size_t row_bytes);
inline bool StoredRowFresh(int64_t written, int64_t step, int64_t max_age) {
  return written >= 0 && step - written <= max_age;
}
// ids->rows are the destinations, ids->skip the positions whose own rows are
// not wanted, ids->cand (with a history) the ones a stored row may answer.
void EncodeSampleBlock(Encoder* e, const std::string& name, WireDType wire, const SampleSpec& spec,
                       std::shared_ptr<const PullBlockIds> ids, const SampleBlockHistory& history = {});
Result<SampleBlockRequest> DecodeSampleBlock(const Frame& f);

}  // namespace dg
