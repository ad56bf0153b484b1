// The connection handshake (protocol v2, docs/protocol.md "Connection
// management"): a mutual HMAC-SHA256 challenge-response over fresh nonces, so
// the cluster token never travels and each side proves it knows it.
//
//   dialer   -> HELLO     u16 version, string role, i32 rank, string graph_name,
//                         u8 has_token, 32 bytes dialer nonce
//   acceptor -> CHALLENGE 32 bytes acceptor nonce
//   dialer   -> AUTH      32 bytes HMAC(token, "distgnn-v2 dialer" | HELLO | CHALLENGE)
//   acceptor -> WELCOME   string role, i32 rank, i32 index, string graph_name,
//                         32 bytes HMAC(token, "distgnn-v2 acceptor" | HELLO | CHALLENGE | WELCOME fields)
//
// (| = concatenation of the exact payload bytes.) The MACs bind both nonces
// and both sides' claimed identities (role, rank, graph, index), so a proof
// cannot be replayed on another connection or reflected to the other side.
// Both classes are pure state machines over payload bytes (no sockets), used
// by common/net/connection.cpp (dialer), the graph server and the trainer
// (acceptors), and the fuzz targets. Errors never echo the expected token.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "common/net/codec.h"
#include "common/net/protocol.h"
#include "common/base/status.h"

namespace dg {

using Nonce = std::array<uint8_t, 32>;
using Mac = std::array<uint8_t, 32>;

struct Hello {
  uint16_t version = kProtocolVersion;
  std::string role;        // "sampler", "trainer", "client", "launcher", ...
  int32_t rank = -1;
  std::string graph_name;  // "" = any
  std::string token;       // the dialer's cluster token: the MAC key, never encoded
};
struct Welcome {
  std::string role;        // the acceptor's role ("server", "trainer")
  int32_t rank = -1;       // server: partition id; trainer: its rank
  int32_t index = 0;       // server: index among its partition's servers
  std::string graph_name;
};

// HMAC-SHA256 (OpenSSL libcrypto); RandomNonce fails only if the OS RNG does.
Mac HmacSha256(const std::string& key, const std::string& data);
Result<Nonce> RandomNonce();

class HandshakeDialer {
 public:
  explicit HandshakeDialer(Hello hello) : hello_(std::move(hello)) {}
  // The HELLO payload (draws the dialer nonce).
  Result<BufferList> EncodeHello();
  // CHALLENGE payload -> AUTH payload.
  Result<BufferList> OnChallenge(const uint8_t* data, size_t size);
  // WELCOME payload -> the acceptor's identity, if its proof is right.
  Result<Welcome> OnWelcome(const uint8_t* data, size_t size);

 private:
  Hello hello_;
  std::string hello_bytes_, challenge_bytes_;
};

class HandshakeAcceptor {
 public:
  HandshakeAcceptor(std::string graph_name, std::string token)
      : graph_name_(std::move(graph_name)), token_(std::move(token)) {}
  enum class Step { kReply, kAuthenticated };
  // Feeds one frame received before authentication. HELLO: checks version,
  // graph and token presence, sets *reply to the CHALLENGE (kReply). AUTH:
  // checks the dialer's proof (kAuthenticated: hello() is who it claims).
  // Any other frame, or a failed check, is an error (answer ERROR and close).
  Result<Step> OnFrame(uint16_t type, const uint8_t* data, size_t size, BufferList* reply);
  const Hello& hello() const { return hello_; }
  // The WELCOME payload, with this side's proof.
  BufferList EncodeWelcome(const Welcome& w) const;

 private:
  std::string graph_name_, token_;
  Hello hello_;
  std::string hello_bytes_, challenge_bytes_;
  int state_ = 0;  // 0 awaiting HELLO, 1 awaiting AUTH, 2 done
};

// Decoders of the handshake payloads (exposed for the fuzz targets).
Result<Hello> DecodeHelloPayload(const uint8_t* data, size_t size, bool* has_token, Nonce* nonce);
Result<Welcome> DecodeWelcomePayload(const uint8_t* data, size_t size, Mac* mac);

}  // namespace dg
