// Payloads of the sampler <-> trainer messages (EPOCH, CREDIT, MINIBATCH,
// END_OF_EPOCH), encoded once here for both sides. Field order is the wire
// order documented in docs/protocol.md. Every frame of one epoch carries the
// trainer's epoch sequence number as its request id, so frames of an epoch the
// trainer abandoned can be told apart.
//
// A MINIBATCH's float32 features/labels are sent by reference (scatter/gather)
// and decoded as Arrays borrowing the received payload: no copy on either
// side. Rows sent in a 16-bit wire dtype are widened to float32 once, by
// DecodeMiniBatch.
#pragma once

#include <cstdint>

#include "common/sampling/batch_provider.h"
#include "common/net/codec.h"
#include "common/net/connection.h"
#include "common/net/wire_dtype.h"
#include "common/sampling/minibatch.h"

namespace dg {

// How a sampler fills the input rows of its node batches: the trainer's
// choice (roles/trainer/source/input_choice.h), sent with every EPOCH, so sampler
// processes take the input path trainer threads take. With aggregate or a
// 16-bit wire the rows come by PULL_BLOCK (common/client/block_input.h) and
// travel on to the trainer in `wire` too; otherwise by PULL, as float32.
struct BatchInput {
  bool aggregate = false;  // block 0 aggregated where the features live
  WireDType wire = WireDType::kFloat32;
  bool pulls_blocks() const { return aggregate || wire != WireDType::kFloat32; }
};

// EPOCH: the whole EpochRequest (seeds, batch size, fanouts, the sampler's
// batch share), the credits the sampler starts with and the input path.
BufferList EncodeEpoch(const EpochRequest& request, uint32_t credits, const BatchInput& input = {});
Status DecodeEpoch(const Frame& f, EpochRequest* request, uint32_t* credits, BatchInput* input = nullptr);

// CREDIT: u32 number of further batches the sampler may send.
BufferList EncodeCredit(uint32_t n);
Result<uint32_t> DecodeCredit(const Frame& f);

// MINIBATCH carries mb.send_time; DecodeMiniBatch sets transfer_seconds =
// `arrival` - send_time (0 if negative: clocks of two hosts). With a 16-bit
// `rows`, float32 [n, F] features and input_neigh_mean travel as wire rows of
// that type (rounded as common/net/wire_dtype.h says) and decode as float32.
BufferList EncodeMiniBatch(MiniBatch mb, WireDType rows = WireDType::kFloat32);
Status DecodeMiniBatch(const Frame& f, MiniBatch* out, double arrival = 0);

// This host's monotonic clock in seconds (CLOCK_MONOTONIC: one clock for all
// processes of a machine; a sampler and its trainer share a machine).
double MonotonicSeconds();

// END_OF_EPOCH: i64 epoch, i64 number of batches this sampler sent.
BufferList EncodeEndOfEpoch(int64_t epoch, int64_t batches);

}  // namespace dg
