// libFuzzer target: every graph-server message decoder (common/net/messages.h,
// pull_aggregate.h) and both sides of the handshake. The first byte picks the decoder; the rest is the payload.
#include "common/net/handshake.h"
#include "common/net/messages.h"
#include "common/net/pull_aggregate.h"
#include "test/fuzz/fuzz_input.h"

using namespace dg;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t which = data[0] % 17;
  const uint8_t* p = data + 1;
  const size_t n = size - 1;
  Frame f = fuzz::MakeFrame(MsgType::kPull, p, n);
  switch (which) {
    case 0: (void)DecodePull(f); break;
    case 1: (void)DecodePush(f); break;
    case 2: {
      auto s = DecodeInitTensor(f);
      if (s.ok()) (void)CheckShape(s->shape, "fuzz");
      break;
    }
    case 3: (void)DecodeSparseUpdate(f); break;
    case 4: (void)DecodeSample(f); break;
    case 5: (void)DecodeMetadataReply(f); break;
    case 6: (void)DecodeBarrier(f); break;
    case 7: (void)DecodeStatsReply(f); break;
    case 8: {  // PULL_AGGREGATE, and the bytes as an IN_DEGREES request
      (void)DecodePullAggregate(f);
      auto r = DecodeInDegrees(f);
      if (r.ok()) (void)r->ids.numel();
      break;
    }
    case 9: {  // acceptor: a HELLO, then the same bytes as AUTH
      HandshakeAcceptor a("g", n % 2 ? "token" : "");
      BufferList reply;
      auto st = a.OnFrame(uint16_t(MsgType::kHello), p, n, &reply);
      if (st.ok()) (void)a.OnFrame(uint16_t(MsgType::kAuth), p, n, &reply);
      break;
    }
    case 10: {  // dialer: the bytes as CHALLENGE, then as WELCOME
      Hello h;
      h.role = "client";
      h.token = "token";
      HandshakeDialer d(h);
      if (d.EncodeHello().ok() && d.OnChallenge(p, n).ok()) (void)d.OnWelcome(p, n);
      break;
    }
    case 11: {
      bool has_token = false;
      Nonce nonce{};
      (void)DecodeHelloPayload(p, n, &has_token, &nonce);
      break;
    }
    case 12: {
      Mac mac{};
      (void)DecodeWelcomePayload(p, n, &mac);
      break;
    }
    case 14: {
      auto r = DecodeSaveTensor(f);
      if (r.ok()) (void)CheckTensorName("fuzz", r->name);
      break;
    }
    case 15: {
      auto r = DecodeCheckpoint(f);
      if (r.ok()) (void)(r->step + r->keep);
      break;
    }
    case 16: (void)DecodeEmptyRequest(f); break;  // METADATA, STATS, SHUTDOWN
    case 13: {  // any array view, and what the server computes from it
      Decoder d = f.decoder("array");
      Array a = d.ArrayView();
      if (d.status().ok()) {
        (void)a.numel();
        (void)a.row_bytes();
        (void)CheckedByteSize(a.dtype, a.shape);
      }
      break;
    }
  }
  return 0;
}
