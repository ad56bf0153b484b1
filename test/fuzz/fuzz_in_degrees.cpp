// libFuzzer target: the IN_DEGREES request (common/net/messages.h) and the
// degrees a server answers with (PartitionStore::InDegrees, the whole of the
// server's handler). The input is the payload. A request the codec accepts
// must encode back to the same bytes (the id array's alignment padding
// aside) and decode again to the same ids; the answer, when there is one,
// holds the in-degrees of the small partition of fuzz_store.h.
#include <vector>

#include "common/net/messages.h"
#include "test/fuzz/fuzz_input.h"
#include "test/fuzz/fuzz_store.h"

using namespace dg;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const PartitionStore* store = fuzz::NewSmallStore();
  Frame f = fuzz::MakeFrame(MsgType::kInDegrees, data, size);
  auto req = DecodeInDegrees(f);
  if (!req.ok()) return 0;

  Encoder e;
  EncodeInDegrees(&e, req->ids);
  const std::string again = e.Finish().Flatten();
  fuzz::Require(fuzz::SameBytes(again, data, size, fuzz::ArrayPadAt(0, 1), fuzz::ArrayPad(0, 1)),
                "IN_DEGREES re-encodes to other bytes");
  Frame g = fuzz::MakeFrame(MsgType::kInDegrees, reinterpret_cast<const uint8_t*>(again.data()), again.size());
  auto req2 = DecodeInDegrees(g);
  fuzz::Require(req2.ok() && fuzz::SameArray(req->ids, req2->ids), "IN_DEGREES re-decodes to other ids");

  const int64_t* ids = req->ids.as<int64_t>();
  std::vector<int64_t> deg(static_cast<size_t>(req->ids.numel()), -1);
  if (!store->InDegrees(ids, deg.size(), deg.data(), nullptr).ok()) return 0;
  const int64_t* indptr = store->partition().indptr.as<int64_t>();
  for (size_t i = 0; i < deg.size(); ++i) {
    fuzz::Require(ids[i] >= 0 && ids[i] < fuzz::kStoreOwned, "IN_DEGREES answered for a node not owned");
    fuzz::Require(deg[i] == indptr[ids[i] + 1] - indptr[ids[i]], "IN_DEGREES answered a wrong degree");
  }
  return 0;
}
