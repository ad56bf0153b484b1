// libFuzzer target: the CHECKPOINT request (common/net/messages.h: u8 action,
// u64 step, u32 keep). The input is the payload. A request the codec accepts
// has a known action and must encode back to the same bytes.
#include "common/net/messages.h"
#include "test/fuzz/fuzz_input.h"

using namespace dg;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Frame f = fuzz::MakeFrame(MsgType::kCheckpoint, data, size);
  auto req = DecodeCheckpoint(f);
  if (!req.ok()) return 0;
  fuzz::Require(req->action == CheckpointAction::kSave || req->action == CheckpointAction::kLoad ||
                    req->action == CheckpointAction::kKeepBest || req->action == CheckpointAction::kRestoreBest,
                "CHECKPOINT accepted an unknown action");

  Encoder e;
  EncodeCheckpoint(&e, *req);
  fuzz::Require(fuzz::SameBytes(e.Finish().Flatten(), data, size), "CHECKPOINT re-encodes to other bytes");
  return 0;
}
