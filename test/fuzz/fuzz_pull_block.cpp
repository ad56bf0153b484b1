// libFuzzer target: PULL_BLOCK and SAMPLE_BLOCK (common/net/pull_block.h and
// the server's answers, roles/server/block_answers.h, compiled in).
// The first byte picks the side: 0 mod 4 = the server decodes a PULL_BLOCK
// request and serves it from a small partition in memory (every offset, count
// and limit is checked there), 2 mod 4 = the same for SAMPLE_BLOCK (with
// stored rows in the mutable tensor "hist"), odd = the
// client decodes a PULL_BLOCK reply (two wire rows) in the dtype bits 1-2 name.
#include <cstdlib>
#include <cstring>

#include "common/net/pull_block.h"
#include "roles/server/block_answers.h"
#include "test/fuzz/fuzz_input.h"

using namespace dg;

namespace {

const PartitionStore& Store() {
  static PartitionStore* store = [] {
    PartitionConfig c;
    c.graph_name = "fuzz";
    c.num_nodes = 8;
    c.num_parts = 1;
    c.node_map = {0, 8};
    c.edge_map = {0, 0};
    c.node_data["features"] = ArrayInfo{DType::kFloat32, {8, 4}};
    c.node_data["labels"] = ArrayInfo{DType::kInt64, {8}};
    LocalPartition p;
    p.node_end = 8;
    p.indptr = Array::Zeros(DType::kInt64, {9});
    p.indices = Array::Zeros(DType::kInt64, {0});
    p.node_data["features"] = Array::Zeros(DType::kFloat32, {8, 4});
    for (int i = 0; i < 32; ++i) p.node_data["features"].as<float>()[i] = 0.25f * static_cast<float>(i) - 3.0f;
    p.node_data["labels"] = Array::Zeros(DType::kInt64, {8});
    auto* s = new PartitionStore(c, std::move(p), true);
    // Stored rows for SAMPLE_BLOCK's history: [8, 3 + 2], node i written at step i.
    InitTensorSpec hist;
    hist.name = "hist";
    hist.shape = {8, 5};
    bool created = false;
    if (!s->InitTensor(hist, &created).ok()) abort();
    Array rows = Array::Zeros(DType::kFloat32, {8, 5});
    std::vector<int64_t> ids(8);
    for (int64_t i = 0; i < 8; ++i) {
      ids[i] = i;
      const int64_t written = i + 1;
      std::memcpy(rows.as<float>() + i * 5 + 3, &written, sizeof(written));
    }
    if (!s->Push("hist", ids.data(), ids.size(), rows, PushMode::kOverwrite).ok()) abort();
    return s;
  }();
  return *store;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t which = data[0];
  Frame f = fuzz::MakeFrame(MsgType::kPullBlock, data + 1, size - 1);
  if (which % 4 == 2) {
    auto req = DecodeSampleBlock(f);
    if (!req.ok()) return 0;
    SampleBlockLimits limits;
    limits.max_fanout = 64;
    limits.max_answer_bytes = 1 << 16;
    limits.num_nodes = 8;
    auto reply = ServeSampleBlock(Store(), *req, limits);
    if (reply.ok()) (void)reply->size();
  } else if (which % 2 == 0) {
    auto req = DecodePullBlock(f);
    if (!req.ok()) return 0;
    PullBlockLimits limits;
    limits.max_edges = 4096;
    limits.max_answer_bytes = 1 << 16;
    auto reply = ServePullBlock(Store(), *req, limits);
    if (reply.ok()) (void)reply->size();
  } else {
    const WireDType t = static_cast<WireDType>((which >> 1) % 3);
    Decoder d = f.decoder("PULL_BLOCK reply");
    WireRowsView own, sums;
    std::vector<float> row(4, 0.0f);
    if (DecodeWireRows(&d, t, 2, 4, "rows", &own).ok()) {
      own.Row(1, row.data());
      if (DecodeWireRows(&d, t, 1, 4, "sums", &sums).ok() && d.Finish().ok()) sums.AddRow(0, row.data());
    }
  }
  return 0;
}
