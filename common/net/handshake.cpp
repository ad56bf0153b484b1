#include "common/net/handshake.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "common/base/version.h"

namespace dg {
namespace {

const char kDialerLabel[] = "distgnn-v2 dialer";
const char kAcceptorLabel[] = "distgnn-v2 acceptor";

std::string Bytes(const uint8_t* p, size_t n) { return std::string(reinterpret_cast<const char*>(p), n); }

void PutRaw(Encoder* e, const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) e->U8(p[i]);
}

bool ReadRaw(Decoder* d, uint8_t* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = d->U8();
  return d->status().ok();
}

bool MacEqual(const Mac& a, const Mac& b) { return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0; }

std::string WelcomeFields(const Welcome& w) {
  Encoder e;
  e.String(w.role);
  e.I32(w.rank);
  e.I32(w.index);
  e.String(w.graph_name);
  return e.Finish().Flatten();
}

}  // namespace

Mac HmacSha256(const std::string& key, const std::string& data) {
  Mac out{};
  unsigned int len = 0;
  static const unsigned char kEmpty = 0;
  HMAC(EVP_sha256(), key.empty() ? &kEmpty : reinterpret_cast<const unsigned char*>(key.data()),
       static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data(),
       &len);
  return out;
}

Result<Nonce> RandomNonce() {
  Nonce n{};
  if (RAND_bytes(n.data(), static_cast<int>(n.size())) != 1) {
    return Status::Internal("the random number generator failed to make a handshake nonce");
  }
  return n;
}

Result<Hello> DecodeHelloPayload(const uint8_t* data, size_t size, bool* has_token, Nonce* nonce) {
  Hello h;
  Decoder d(data, size, nullptr, "HELLO");
  h.version = d.U16();
  if (d.status().ok() && h.version != kProtocolVersion) {
    return Status::Protocol("HELLO: protocol version " + std::to_string(h.version) +
                            " not supported (this side is distgnn " + kDistgnnVersion + ", protocol " +
                            std::to_string(kProtocolVersion) + "; run the same distgnn version on every machine)");
  }
  h.role = d.String();
  h.rank = d.I32();
  h.graph_name = d.String();
  *has_token = d.Bool();
  ReadRaw(&d, nonce->data(), nonce->size());
  DG_RETURN_IF_ERROR(d.Finish());
  if (h.role.size() > 64) return Status::Protocol("HELLO: role of " + std::to_string(h.role.size()) + " bytes");
  return h;
}

Result<Welcome> DecodeWelcomePayload(const uint8_t* data, size_t size, Mac* mac) {
  Welcome w;
  Decoder d(data, size, nullptr, "WELCOME");
  w.role = d.String();
  w.rank = d.I32();
  w.index = d.I32();
  w.graph_name = d.String();
  ReadRaw(&d, mac->data(), mac->size());
  DG_RETURN_IF_ERROR(d.Finish());
  return w;
}

// ------------------------------------------------------------------ dialer

Result<BufferList> HandshakeDialer::EncodeHello() {
  DG_ASSIGN_OR_RETURN(Nonce nonce, RandomNonce());
  Encoder e;
  e.U16(hello_.version);
  e.String(hello_.role);
  e.I32(hello_.rank);
  e.String(hello_.graph_name);
  e.Bool(!hello_.token.empty());
  PutRaw(&e, nonce.data(), nonce.size());
  BufferList out = e.Finish();
  hello_bytes_ = out.Flatten();
  return out;
}

Result<BufferList> HandshakeDialer::OnChallenge(const uint8_t* data, size_t size) {
  if (hello_bytes_.empty()) return Status::Protocol("CHALLENGE before HELLO");
  if (!challenge_bytes_.empty()) return Status::Protocol("a second CHALLENGE");
  Decoder d(data, size, nullptr, "CHALLENGE");
  Nonce n{};
  ReadRaw(&d, n.data(), n.size());
  DG_RETURN_IF_ERROR(d.Finish());
  challenge_bytes_ = Bytes(data, size);
  Mac mac = HmacSha256(hello_.token, std::string(kDialerLabel, sizeof(kDialerLabel)) + hello_bytes_ + challenge_bytes_);
  Encoder e;
  PutRaw(&e, mac.data(), mac.size());
  return e.Finish();
}

Result<Welcome> HandshakeDialer::OnWelcome(const uint8_t* data, size_t size) {
  if (challenge_bytes_.empty()) {
    return Status::Protocol("WELCOME without a CHALLENGE: the peer speaks an older protocol or skipped authentication");
  }
  Mac mac{};
  DG_ASSIGN_OR_RETURN(Welcome w, DecodeWelcomePayload(data, size, &mac));
  Mac want = HmacSha256(hello_.token, std::string(kAcceptorLabel, sizeof(kAcceptorLabel)) + hello_bytes_ +
                                          challenge_bytes_ + WelcomeFields(w));
  if (!MacEqual(mac, want)) {
    return Status::InvalidArgument("WELCOME: the peer could not prove it knows the cluster token "
                                   "(wrong token on one side, or not a member of this cluster)");
  }
  return w;
}

// ---------------------------------------------------------------- acceptor

Result<HandshakeAcceptor::Step> HandshakeAcceptor::OnFrame(uint16_t type, const uint8_t* data, size_t size,
                                                           BufferList* reply) {
  if (state_ == 0) {
    if (type != uint16_t(MsgType::kHello)) {
      return Status::Protocol("the first frame must be HELLO, got " + MsgTypeName(type));
    }
    bool has_token = false;
    Nonce nonce{};
    DG_ASSIGN_OR_RETURN(hello_, DecodeHelloPayload(data, size, &has_token, &nonce));
    if (!hello_.graph_name.empty() && !graph_name_.empty() && hello_.graph_name != graph_name_) {
      return Status::InvalidArgument("HELLO: graph '" + hello_.graph_name + "' requested but this serves '" +
                                     graph_name_ + "'");
    }
    if (!token_.empty() && !has_token) {
      return Status::InvalidArgument(
          "HELLO: this cluster requires a token (set token: in the job YAML, DISTGNN_TOKEN or DISTGNN_TOKEN_FILE)");
    }
    if (token_.empty() && has_token) {
      return Status::InvalidArgument("HELLO: wrong cluster token (this side has none)");
    }
    hello_bytes_ = Bytes(data, size);
    DG_ASSIGN_OR_RETURN(Nonce mine, RandomNonce());
    Encoder e;
    PutRaw(&e, mine.data(), mine.size());
    *reply = e.Finish();
    challenge_bytes_ = reply->Flatten();
    state_ = 1;
    return Step::kReply;
  }
  if (state_ == 1) {
    if (type != uint16_t(MsgType::kAuth)) {
      return Status::Protocol("expected AUTH after CHALLENGE, got " + MsgTypeName(type));
    }
    Decoder d(data, size, nullptr, "AUTH");
    Mac mac{};
    ReadRaw(&d, mac.data(), mac.size());
    DG_RETURN_IF_ERROR(d.Finish());
    Mac want = HmacSha256(token_, std::string(kDialerLabel, sizeof(kDialerLabel)) + hello_bytes_ + challenge_bytes_);
    if (!MacEqual(mac, want)) return Status::InvalidArgument("HELLO: wrong cluster token");
    state_ = 2;
    return Step::kAuthenticated;
  }
  return Status::Protocol("handshake already complete");
}

BufferList HandshakeAcceptor::EncodeWelcome(const Welcome& w) const {
  const std::string fields = WelcomeFields(w);
  Mac mac = HmacSha256(token_, std::string(kAcceptorLabel, sizeof(kAcceptorLabel)) + hello_bytes_ +
                                   challenge_bytes_ + fields);
  Encoder e;
  e.String(w.role);
  e.I32(w.rank);
  e.I32(w.index);
  e.String(w.graph_name);
  PutRaw(&e, mac.data(), mac.size());
  return e.Finish();
}

}  // namespace dg
