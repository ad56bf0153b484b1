// libFuzzer target: the sampler <-> trainer codec (EPOCH, CREDIT, MINIBATCH).
#include "common/sampling/minibatch_codec.h"
#include "test/fuzz/fuzz_input.h"

using namespace dg;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  Frame f = fuzz::MakeFrame(MsgType::kMinibatch, data + 1, size - 1);
  switch (data[0] % 3) {
    case 0: {
      MiniBatch mb;
      (void)DecodeMiniBatch(f, &mb);
      break;
    }
    case 1: {
      EpochRequest r;
      uint32_t credits = 0;
      (void)DecodeEpoch(f, &r, &credits);
      break;
    }
    case 2: (void)DecodeCredit(f); break;
  }
  return 0;
}
