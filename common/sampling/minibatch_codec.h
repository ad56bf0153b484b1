// Payloads of the sampler <-> trainer messages (EPOCH, CREDIT, MINIBATCH,
// END_OF_EPOCH), encoded once here for both sides. Field order is the wire
// order documented in docs/protocol.md. Every frame of one epoch carries the
// trainer's epoch sequence number as its request id, so frames of an epoch the
// trainer abandoned can be told apart.
//
// A MINIBATCH's features/labels are sent by reference (scatter/gather) and
// decoded as Arrays borrowing the received payload: no copy on either side.
#pragma once

#include <cstdint>

#include "common/sampling/batch_provider.h"
#include "common/net/codec.h"
#include "common/net/connection.h"
#include "common/sampling/minibatch.h"

namespace dg {

// EPOCH: the whole EpochRequest (seeds, batch size, fanouts, the sampler's
// batch share) plus the credits the sampler starts with.
BufferList EncodeEpoch(const EpochRequest& request, uint32_t credits);
Status DecodeEpoch(const Frame& f, EpochRequest* request, uint32_t* credits);

// CREDIT: u32 number of further batches the sampler may send.
BufferList EncodeCredit(uint32_t n);
Result<uint32_t> DecodeCredit(const Frame& f);

// MINIBATCH carries mb.send_time; DecodeMiniBatch sets transfer_seconds =
// `arrival` - send_time (0 if negative: clocks of two hosts).
BufferList EncodeMiniBatch(MiniBatch mb);
Status DecodeMiniBatch(const Frame& f, MiniBatch* out, double arrival = 0);

// This host's monotonic clock in seconds (CLOCK_MONOTONIC: one clock for all
// processes of a machine; a sampler and its trainer share a machine).
double MonotonicSeconds();

// END_OF_EPOCH: i64 epoch, i64 number of batches this sampler sent.
BufferList EncodeEndOfEpoch(int64_t epoch, int64_t batches);

}  // namespace dg
