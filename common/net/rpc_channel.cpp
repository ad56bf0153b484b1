#include "common/net/rpc_channel.h"

#include <spdlog/spdlog.h>

namespace dg {

void PendingCall::Complete(Result<Frame> r) {
  std::lock_guard<std::mutex> l(mu_);
  if (done_) return;
  result_ = std::move(r);
  done_ = true;
  cv_.notify_all();
}

Result<Frame> PendingCall::Wait(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> l(mu_);
  if (!cv_.wait_until(l, deadline, [&] { return done_; })) {
    l.unlock();
    if (auto ch = channel_.lock()) ch->Forget(id_);
    return Status::Timeout(MsgTypeName(static_cast<uint16_t>(type_)) + " to " + peer_ +
                           ": no reply before the deadline");
  }
  return result_;
}

Result<std::shared_ptr<RpcChannel>> RpcChannel::Dial(asio::io_context& io, const std::string& host,
                                                     int port, const Hello& hello,
                                                     const ConnectionOptions& options,
                                                     double timeout_s, const std::string& peer) {
  std::shared_ptr<RpcChannel> ch(new RpcChannel(peer));
  std::weak_ptr<RpcChannel> weak = ch;
  DG_ASSIGN_OR_RETURN(
      DialResult dialed,
      DialAndHello(
          io, host, port, hello, options, timeout_s, peer,
          [weak](Frame f) {
            if (auto c = weak.lock()) c->OnFrame(std::move(f));
          },
          [weak](const Status& why) {
            if (auto c = weak.lock()) c->OnClose(why);
          }));
  ch->conn_ = dialed.connection;
  ch->welcome_ = dialed.welcome;
  ch->conn_->SetPayloadRouter([weak](const FrameHeader& h, PayloadSink* sink) {
    auto c = weak.lock();
    return c && c->RouteReply(h, sink);
  });
  return ch;
}

RpcChannel::~RpcChannel() {
  if (conn_) conn_->Close(Status::OK());
}

bool RpcChannel::alive() const {
  std::lock_guard<std::mutex> l(mu_);
  return !is_lost_;
}

Status RpcChannel::lost_status() const {
  std::lock_guard<std::mutex> l(mu_);
  return lost_;
}

void RpcChannel::Close() {
  if (conn_) conn_->Close(Status::OK());
}

std::shared_ptr<PendingCall> RpcChannel::Start(MsgType type, BufferList payload, PayloadSink reply_sink) {
  auto call = std::make_shared<PendingCall>();
  call->type_ = type;
  call->sink_ = std::move(reply_sink);
  call->channel_ = weak_from_this();
  call->peer_ = peer_;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (is_lost_) {
      call->Complete(lost_);
      return call;
    }
    call->id_ = next_id_++;
    pending_.emplace(call->id_, call);
  }
  conn_->Send(type, 0, call->id_, std::move(payload));
  return call;
}

Result<Frame> RpcChannel::Call(MsgType type, BufferList payload, double timeout_s) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::microseconds(static_cast<int64_t>(timeout_s * 1e6));
  return Start(type, std::move(payload))->Wait(deadline);
}

void RpcChannel::Forget(uint64_t id) {
  std::lock_guard<std::mutex> l(mu_);
  pending_.erase(id);
}

bool RpcChannel::RouteReply(const FrameHeader& h, PayloadSink* sink) {
  if (!h.is_response()) return false;
  std::lock_guard<std::mutex> l(mu_);
  auto it = pending_.find(h.request_id);
  if (it == pending_.end()) return false;
  const PendingCall& call = *it->second;
  if (call.sink_.body == nullptr || h.type != static_cast<uint16_t>(call.type_) ||
      h.payload_length != call.sink_.head_bytes + call.sink_.body_bytes) {
    return false;
  }
  *sink = call.sink_;
  return true;
}

void RpcChannel::OnFrame(Frame f) {
  std::shared_ptr<PendingCall> call;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = pending_.find(f.header.request_id);
    if (it != pending_.end()) {
      call = std::move(it->second);
      pending_.erase(it);
    }
  }
  if (!call) {
    if (f.type() == MsgType::kError && f.header.request_id == 0) {
      // An ERROR for no request (id 0): the peer is about to close on us.
      Status st = DecodeErrorFrame(f, peer_);
      spdlog::warn("{}", st.ToString());
      OnClose(st);
    }
    return;  // a late reply (or ERROR) to a request whose caller gave up
  }
  if (f.type() == MsgType::kError) {
    call->Complete(DecodeErrorFrame(f, peer_));
  } else if (f.type() != call->type() || !f.header.is_response()) {
    call->Complete(Status::Protocol(peer_ + " answered " + MsgTypeName(uint16_t(call->type())) +
                                    " with " + MsgTypeName(f.header.type)));
  } else {
    call->Complete(std::move(f));
  }
}

void RpcChannel::OnClose(const Status& why) {
  std::unordered_map<uint64_t, std::shared_ptr<PendingCall>> pending;
  Status st = why.ok() ? Status::PeerLost("connection to " + peer_ + " was closed") : why;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (is_lost_) return;
    is_lost_ = true;
    lost_ = st;
    pending.swap(pending_);
  }
  for (auto& [id, call] : pending) call->Complete(st);
}

uint64_t RpcChannel::bytes() const {
  return conn_ ? conn_->bytes_received() + conn_->bytes_sent() : 0;
}

}  // namespace dg
