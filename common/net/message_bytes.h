// Bytes this process sent and received per message type, over every
// connection (common/net/connection.h counts each frame, header included,
// when it is queued to send and when it has arrived). Process-wide relaxed
// atomics in an array indexed by type: one add per frame. Types above 127
// are counted as 127 (none exist).
//
// A server's per-request view (replies and requests of each type, with
// latencies) is RequestStats (roles/server/request_stats.h); this one also
// covers the client side: a trainer's PULL_BLOCK bytes in and out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/net/prometheus.h"

namespace dg {

void CountMessageBytes(uint16_t type, bool sent, uint64_t bytes);

struct MessageByteCount {
  std::string type;  // "PULL_BLOCK"
  uint64_t sent = 0, received = 0;
};
// The types with any bytes, in type order.
std::vector<MessageByteCount> MessageBytesSnapshot();
// now - before, per type (types absent from `before` count from 0); types
// without bytes in the difference are left out.
std::vector<MessageByteCount> MessageBytesSince(const std::vector<MessageByteCount>& now,
                                                const std::vector<MessageByteCount>& before);
// {"PULL": {"sent": n, "received": n}, ...}
std::string MessageBytesJson(const std::vector<MessageByteCount>& counts);
// The log line `distgnn report` reads from RUN_DIR/logs/:
//   "bytes by message: PULL sent 123 received 4567; PULL_BLOCK sent ..."
std::string MessageBytesLogLine(const std::vector<MessageByteCount>& counts);
// Parses MessageBytesLogLine's text from the marker on; false when `line`
// has no such text.
bool ParseMessageBytesLogLine(const std::string& line, std::vector<MessageByteCount>* out);
// distgnn_message_bytes_total{type, direction="sent"|"received"}.
void WriteMessageBytesMetrics(PromText* out);

}  // namespace dg
