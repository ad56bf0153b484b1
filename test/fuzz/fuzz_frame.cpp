// libFuzzer target: the frame header decoder, and the ERROR payload decoder
// that every peer runs on whatever follows a header.
#include "common/net/connection.h"
#include "common/net/protocol.h"
#include "test/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < dg::kFrameHeaderSize) return 0;
  auto h = dg::DecodeFrameHeader(data, dg::kDefaultMaxFrameBytes);
  if (h.ok()) {
    (void)dg::MsgTypeName(h->type);
    dg::Frame f = dg::fuzz::MakeFrame(dg::MsgType::kError, data + dg::kFrameHeaderSize,
                                      size - dg::kFrameHeaderSize);
    (void)dg::DecodeErrorFrame(f, "fuzz");
  }
  return 0;
}
