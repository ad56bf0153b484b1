#include "common/net/message_bytes.h"

#include <array>
#include <atomic>
#include <map>
#include <sstream>

#include "common/net/protocol.h"

namespace dg {
namespace {

constexpr int kSlots = 128;
std::array<std::array<std::atomic<uint64_t>, 2>, kSlots> g_bytes{};  // [type][sent]

const char kMarker[] = "bytes by message: ";

}  // namespace

void CountMessageBytes(uint16_t type, bool sent, uint64_t bytes) {
  g_bytes[type < kSlots ? type : kSlots - 1][sent ? 1 : 0].fetch_add(bytes, std::memory_order_relaxed);
}

std::vector<MessageByteCount> MessageBytesSnapshot() {
  std::vector<MessageByteCount> out;
  for (int t = 0; t < kSlots; ++t) {
    const uint64_t s = g_bytes[t][1].load(std::memory_order_relaxed);
    const uint64_t r = g_bytes[t][0].load(std::memory_order_relaxed);
    if (s == 0 && r == 0) continue;
    out.push_back({MsgTypeName(static_cast<uint16_t>(t)), s, r});
  }
  return out;
}

std::vector<MessageByteCount> MessageBytesSince(const std::vector<MessageByteCount>& now,
                                                const std::vector<MessageByteCount>& before) {
  std::map<std::string, const MessageByteCount*> old;
  for (const auto& c : before) old[c.type] = &c;
  std::vector<MessageByteCount> out;
  for (const auto& c : now) {
    MessageByteCount d = c;
    auto it = old.find(c.type);
    if (it != old.end()) {
      d.sent -= it->second->sent;
      d.received -= it->second->received;
    }
    if (d.sent || d.received) out.push_back(d);
  }
  return out;
}

std::string MessageBytesJson(const std::vector<MessageByteCount>& counts) {
  std::ostringstream o;
  o << "{";
  for (size_t i = 0; i < counts.size(); ++i)
    o << (i ? ", " : "") << "\"" << counts[i].type << "\": {\"sent\": " << counts[i].sent
      << ", \"received\": " << counts[i].received << "}";
  o << "}";
  return o.str();
}

std::string MessageBytesLogLine(const std::vector<MessageByteCount>& counts) {
  std::ostringstream o;
  o << kMarker;
  if (counts.empty()) o << "none";
  for (size_t i = 0; i < counts.size(); ++i)
    o << (i ? "; " : "") << counts[i].type << " sent " << counts[i].sent << " received " << counts[i].received;
  return o.str();
}

bool ParseMessageBytesLogLine(const std::string& line, std::vector<MessageByteCount>* out) {
  const size_t at = line.find(kMarker);
  if (at == std::string::npos) return false;
  out->clear();
  std::string rest = line.substr(at + sizeof(kMarker) - 1);
  std::istringstream items(rest);
  std::string item;
  while (std::getline(items, item, ';')) {
    std::istringstream f(item);
    MessageByteCount c;
    std::string sent, received;
    if (f >> c.type >> sent >> c.sent >> received >> c.received && sent == "sent" && received == "received")
      out->push_back(c);
  }
  return true;
}

void WriteMessageBytesMetrics(PromText* out) {
  for (const MessageByteCount& c : MessageBytesSnapshot()) {
    out->Counter("distgnn_message_bytes_total", "Bytes of frames sent and received by this process, per message type.",
                 double(c.sent), {{"type", c.type}, {"direction", "sent"}});
    out->Counter("distgnn_message_bytes_total", "Bytes of frames sent and received by this process, per message type.",
                 double(c.received), {{"type", c.type}, {"direction", "received"}});
  }
}

}  // namespace dg
