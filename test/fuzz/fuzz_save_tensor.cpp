// libFuzzer target: the SAVE_TENSOR request (common/net/messages.h) and what a
// server does with it (PartitionStore::SaveTensor, the whole of the server's
// handler, into a scratch partition folder). The input is the payload. A
// request the codec accepts must encode back to the same bytes and name a
// valid tensor name; only the persistent tensor "emb" is saved, any other
// name is refused.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/net/messages.h"
#include "test/fuzz/fuzz_input.h"
#include "test/fuzz/fuzz_store.h"

using namespace dg;

namespace {

std::string g_dir;

const PartitionStore& Store() {
  static PartitionStore* store = [] {
    g_dir = fuzz::ScratchRoot() + "/distgnn-fuzz-save-tensor-" + std::to_string(getpid());
    std::filesystem::create_directories(g_dir);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(g_dir, ec);
    });
    PartitionStore* s = fuzz::NewSmallStore();
    InitTensorSpec spec;
    spec.name = "emb";
    spec.shape = {fuzz::kStoreNodes, 2};
    spec.init = Initializer::kUniform;
    spec.a = -1;
    spec.b = 1;
    spec.persistent = true;
    bool created = false;
    fuzz::Require(s->InitTensor(spec, &created).ok() && created, "the persistent tensor is not created");
    return s;
  }();
  return *store;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const PartitionStore& store = Store();
  Frame f = fuzz::MakeFrame(MsgType::kSaveTensor, data, size);
  auto req = DecodeSaveTensor(f);
  if (!req.ok()) return 0;
  fuzz::Require(CheckTensorName("fuzz", req->name).ok(), "SAVE_TENSOR accepted a bad name");

  Encoder e;
  EncodeSaveTensor(&e, req->name);
  fuzz::Require(fuzz::SameBytes(e.Finish().Flatten(), data, size), "SAVE_TENSOR re-encodes to other bytes");

  const Status st = store.SaveTensor(req->name, g_dir);
  fuzz::Require(st.ok() == (req->name == "emb"), "SAVE_TENSOR saved a tensor that is not persistent, or refused one");
  return 0;
}
