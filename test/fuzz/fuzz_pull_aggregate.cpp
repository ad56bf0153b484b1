// libFuzzer target: the PULL_AGGREGATE request (common/net/pull_aggregate.h)
// and the sums a server answers with (AggregateSums over the part's
// aggregation index, common/storage/aggregate_index.h, the whole of the
// server's handler). The input is the payload. A request the codec accepts
// must encode back to the same bytes (the id array's alignment padding aside)
// and decode again to the same fields; an answer, when there is one, has a
// count per id that matches the index and a row of sums per id. The
// partition is fuzz_store.h's, with an index in a scratch folder: sources
// this part owns for destinations 0, 3, 9 and 11, and a float64 mutable
// tensor "emb" besides the float32 "features".
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "common/io/npy.h"
#include "common/net/messages.h"
#include "common/net/pull_aggregate.h"
#include "common/storage/aggregate_index.h"
#include "test/fuzz/fuzz_input.h"
#include "test/fuzz/fuzz_store.h"

using namespace dg;

namespace {

std::string g_dir;

Array Int64s(const std::vector<int64_t>& v) {
  Array a = Array::Zeros(DType::kInt64, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) a.as<int64_t>()[i] = v[i];
  return a;
}

struct Served {
  PartitionStore* store;
  AggregateIndex index;
};

const Served& Serve() {
  static Served* served = [] {
    g_dir = fuzz::ScratchRoot() + "/distgnn-fuzz-pull-aggregate-" + std::to_string(getpid());
    std::filesystem::create_directories(g_dir);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(g_dir, ec);
    });
    fuzz::Require(NpyWrite(g_dir + "/agg_dst.npy", Int64s({0, 3, 9, 11})).ok() &&
                      NpyWrite(g_dir + "/agg_indptr.npy", Int64s({0, 2, 3, 6, 7})).ok() &&
                      NpyWrite(g_dir + "/agg_src.npy", Int64s({1, 5, 0, 2, 2, 7, 4})).ok(),
                  "the aggregation index is not written");
    auto index = AggregateIndex::Open(g_dir, fuzz::kStoreNodes, fuzz::kStoreOwned);
    fuzz::Require(index.ok() && index->present(), "the aggregation index does not open");
    PartitionStore* store = fuzz::NewSmallStore();
    InitTensorSpec spec;
    spec.name = "emb";
    spec.dtype = DType::kFloat64;
    spec.shape = {fuzz::kStoreNodes, 3};
    spec.init = Initializer::kNormal;
    spec.a = 0;
    spec.b = 1;
    bool created = false;
    fuzz::Require(store->InitTensor(spec, &created).ok() && created, "the mutable tensor is not created");
    return new Served{store, std::move(*index)};
  }();
  return *served;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Served& s = Serve();
  Frame f = fuzz::MakeFrame(MsgType::kPullAggregate, data, size);
  auto req = DecodePullAggregate(f);
  if (!req.ok()) return 0;
  fuzz::Require(CheckTensorName("fuzz", req->name).ok(), "PULL_AGGREGATE accepted a bad name");

  Encoder e;
  EncodePullAggregate(&e, req->name, req->ids);
  const std::string again = e.Finish().Flatten();
  const size_t ids_at = 4 + req->name.size();  // after the u32-length name
  fuzz::Require(fuzz::SameBytes(again, data, size, fuzz::ArrayPadAt(ids_at, 1), fuzz::ArrayPad(ids_at, 1)),
                "PULL_AGGREGATE re-encodes to other bytes");
  Frame g = fuzz::MakeFrame(MsgType::kPullAggregate, reinterpret_cast<const uint8_t*>(again.data()), again.size());
  auto req2 = DecodePullAggregate(g);
  fuzz::Require(req2.ok() && req2->name == req->name && fuzz::SameArray(req->ids, req2->ids),
                "PULL_AGGREGATE re-decodes to other fields");

  AggregateLimits limits;
  limits.max_edges = 4096;
  limits.max_answer_bytes = 1 << 16;
  const int64_t* ids = req->ids.as<int64_t>();
  const size_t n = static_cast<size_t>(req->ids.numel());
  std::vector<int64_t> counts;
  Array sums;
  if (!AggregateSums(*s.store, s.index, req->name, ids, n, fuzz::kStoreNodes, limits, &counts, &sums).ok()) return 0;
  fuzz::Require(counts.size() == n && sums.shape.size() == 2 && sums.shape[0] == static_cast<int64_t>(n),
                "PULL_AGGREGATE answered the wrong number of rows");
  for (size_t i = 0; i < n; ++i) {
    int64_t begin = 0, end = 0;
    s.index.Range(ids[i], &begin, &end);
    fuzz::Require(counts[i] == end - begin, "PULL_AGGREGATE answered a wrong count");
  }
  return 0;
}
