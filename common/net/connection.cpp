#include "common/net/connection.h"
#include "common/net/message_bytes.h"

#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <optional>

namespace dg {
namespace {

constexpr size_t kMaxFramesPerWrite = 64;
// Buffers per sendmsg: the kernel's limit (IOV_MAX) on Linux.
constexpr int kMaxIovecs = 1024;

// nullptr when the memory is not there (the caller answers ResourceExhausted).
std::shared_ptr<void> AllocPayload(size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) return nullptr;
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

// A value set once from any thread and awaited with a deadline.
template <typename T>
class OneShot {
 public:
  bool Set(T v) {
    std::lock_guard<std::mutex> l(mu_);
    if (value_) return false;
    value_ = std::move(v);
    cv_.notify_all();
    return true;
  }
  std::optional<T> WaitFor(double seconds) {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait_for(l, std::chrono::duration<double>(seconds), [&] { return value_.has_value(); });
    return value_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<T> value_;
};

}  // namespace

Connection::Connection(tcp::socket socket, ConnectionOptions options, std::string peer, std::string dialed_host)
    : stream_(std::move(socket), options.tls),
      strand_(asio::make_strand(stream_.get_executor())),
      timer_(strand_),
      options_(options),
      dialed_host_(std::move(dialed_host)),
      peer_(std::move(peer)) {
  boost::system::error_code ec;
  auto ep = stream_.socket().remote_endpoint(ec);
  if (!ec) remote_ = ep.address().to_string() + ":" + std::to_string(ep.port());
  stream_.socket().set_option(tcp::no_delay(true), ec);
  last_recv_ns_ = last_send_ns_ = NowNs();
  // A plain stream has no handshake: frames queued before Start (a server's
  // refusal of a connection over limits.max_connections) are written at once.
  stream_ready_ = !stream_.is_tls();
}

Connection::~Connection() = default;

int64_t Connection::NowNs() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string Connection::peer() const {
  std::lock_guard<std::mutex> l(mu_);
  return peer_;
}

void Connection::set_peer(std::string peer) {
  std::lock_guard<std::mutex> l(mu_);
  peer_ = std::move(peer);
}

std::string Connection::peer_role() const {
  std::lock_guard<std::mutex> l(mu_);
  return peer_role_;
}

void Connection::Start(FrameHandler on_frame, CloseHandler on_close) {
  {
    std::lock_guard<std::mutex> l(mu_);
    on_frame_ = std::move(on_frame);
    on_close_ = std::move(on_close);
  }
  auto self = shared_from_this();
  asio::post(strand_, [self] {
    if (self->closed_) return;
    self->stream_.Handshake(self->dialed_host_, self->strand_,
                            [self](const boost::system::error_code& ec) { self->OnStreamReady(ec); });
    self->ArmTimer();
  });
}

void Connection::OnStreamReady(const boost::system::error_code& ec) {
  if (closed_) return;
  if (ec) {
    CloseOnStrand(Status::PeerLost("TLS handshake with " + peer() + " failed: " + TlsHandshakeError(ec)));
    return;
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    peer_role_ = stream_.PeerRole();
  }
  stream_ready_ = true;
  last_recv_ns_ = NowNs();
  ReadHeader();
  if (!writing_) StartWrite();  // a plain stream may be writing what was queued before Start
}

// The acceptor's side of the role binding: a HELLO must claim the role the
// dialer's certificate names. A HELLO that does not decode is left to the
// handshake, which refuses it with its own message.
Status Connection::CheckHelloRole(const Frame& frame) const {
  bool has_token = false;
  Nonce nonce{};
  auto hello = DecodeHelloPayload(frame.data, frame.size, &has_token, &nonce);
  if (!hello.ok()) return Status::OK();
  const std::string cert_role = peer_role();
  if (hello->role == cert_role) return Status::OK();
  return Status::InvalidArgument("HELLO claims the role '" + hello->role + "' but the TLS certificate of " +
                                 remote_ + " is for the role '" + cert_role + "'");
}

void Connection::SetFrameHandler(FrameHandler on_frame) {
  std::lock_guard<std::mutex> l(mu_);
  on_frame_ = std::move(on_frame);
}

void Connection::SetPayloadRouter(PayloadRouter router) {
  std::lock_guard<std::mutex> l(mu_);
  router_ = std::move(router);
}

// ------------------------------------------------------------------ reading

void Connection::ReadHeader() {
  if (closed_ || paused_ || !stream_ready_) {
    reading_ = false;
    return;
  }
  if (options_.max_queued_bytes > 0 && queued_bytes_.load() > options_.max_queued_bytes) {
    blocked_ = true;  // OnWrite resumes once the queue drains
    reading_ = false;
    return;
  }
  reading_ = true;
  auto self = shared_from_this();
  asio::async_read(stream_, asio::buffer(header_buf_, kFrameHeaderSize),
                   asio::bind_executor(strand_, [self](const boost::system::error_code& ec, size_t) {
                     self->OnHeader(ec);
                   }));
}

void Connection::OnHeader(const boost::system::error_code& ec) {
  if (closed_) return;
  if (ec) {
    CloseOnStrand(ec == asio::error::eof || ec == asio::ssl::error::stream_truncated
                      ? Status::PeerLost("connection closed by " + peer())
                      : Status::PeerLost("connection to " + peer() + " lost: " + ec.message()));
    return;
  }
  last_recv_ns_ = NowNs();
  bytes_in_ += kFrameHeaderSize;
  auto h = DecodeFrameHeader(header_buf_, options_.max_frame_bytes);
  if (!h.ok()) {
    spdlog::warn("framing error from {}: {}; closing the connection", peer(), h.status().message());
    reading_ = false;
    SendError(0, h.status(), /*close_after=*/true);
    return;
  }
  header_ = *h;
  if (header_.payload_length == 0) {
    CountMessageBytes(header_.type, false, kFrameHeaderSize);
    Frame f;
    f.header = header_;
    Deliver(std::move(f));
    return;
  }
  PayloadRouter router;
  {
    std::lock_guard<std::mutex> l(mu_);
    router = router_;
  }
  sink_ = PayloadSink();
  if (router && router(header_, &sink_) && sink_.body != nullptr &&
      sink_.head_bytes + sink_.body_bytes == header_.payload_length) {
    payload_ = AllocPayload(sink_.head_bytes);
  } else {
    sink_ = PayloadSink();
    payload_ = AllocPayload(header_.payload_length);
  }
  if (!payload_) {
    Status st = Status::ResourceExhausted("out of memory receiving a " + MsgTypeName(header_.type) + " payload of " +
                                          std::to_string(header_.payload_length) + " bytes");
    spdlog::warn("{} from {}; closing the connection", st.message(), peer());
    reading_ = false;
    SendError(0, st, /*close_after=*/true);
    return;
  }
  auto self = shared_from_this();
  auto done = asio::bind_executor(strand_, [self](const boost::system::error_code& ec, size_t) {
    self->OnPayload(ec);
  });
  if (sink_.body != nullptr) {
    std::array<asio::mutable_buffer, 2> bufs{asio::buffer(payload_.get(), sink_.head_bytes),
                                            asio::buffer(sink_.body, sink_.body_bytes)};
    asio::async_read(stream_, bufs, std::move(done));
  } else {
    asio::async_read(stream_, asio::buffer(payload_.get(), header_.payload_length), std::move(done));
  }
}

void Connection::OnPayload(const boost::system::error_code& ec) {
  if (closed_) return;
  if (ec) {
    CloseOnStrand(Status::PeerLost("connection to " + peer() + " lost in the middle of a " +
                                   MsgTypeName(header_.type) + " payload of " +
                                   std::to_string(header_.payload_length) + " bytes: " + ec.message()));
    return;
  }
  last_recv_ns_ = NowNs();
  bytes_in_ += header_.payload_length;
  CountMessageBytes(header_.type, false, kFrameHeaderSize + header_.payload_length);
  Frame f;
  f.header = header_;
  f.holder = std::move(payload_);
  f.data = static_cast<const uint8_t*>(f.holder.get());
  f.size = header_.payload_length - sink_.body_bytes;
  f.sunk_bytes = sink_.body_bytes;
  sink_ = PayloadSink();
  Deliver(std::move(f));
}

void Connection::Deliver(Frame frame) {
  if (stream_.is_tls() && dialed_host_.empty() && frame.type() == MsgType::kHello) {
    Status role = CheckHelloRole(frame);
    if (!role.ok()) {
      spdlog::warn("refusing {}: {}", peer(), role.message());
      reading_ = false;
      SendError(0, role, /*close_after=*/true);
      return;
    }
  }
  if (frame.type() != MsgType::kHeartbeat) {
    FrameHandler handler;
    {
      std::lock_guard<std::mutex> l(mu_);
      handler = on_frame_;
    }
    if (handler) {
      handler(std::move(frame));
    } else {
      spdlog::warn("dropping {} frame from {}: no handler", MsgTypeName(frame.header.type), peer());
    }
  }
  ReadHeader();
}

void Connection::PauseReading() {
  auto self = shared_from_this();
  asio::post(strand_, [self] { self->paused_ = true; });
}

void Connection::ResumeReading() {
  auto self = shared_from_this();
  asio::post(strand_, [self] {
    self->paused_ = false;
    self->last_recv_ns_ = self->NowNs();  // our pause is not the peer's silence
    if (!self->reading_ && !self->closed_) self->ReadHeader();
  });
}

// ------------------------------------------------------------------ writing

void Connection::Send(MsgType type, uint32_t flags, uint64_t request_id, BufferList payload,
                      bool close_after) {
  if (closed_) return;
  OutFrame f;
  FrameHeader h;
  h.type = static_cast<uint16_t>(type);
  h.flags = flags;
  h.request_id = request_id;
  h.payload_length = payload.size();
  EncodeFrameHeader(h, f.header);
  f.payload = std::move(payload);
  f.close_after = close_after;
  queued_bytes_ += static_cast<int64_t>(kFrameHeaderSize + f.payload.size());
  CountMessageBytes(h.type, true, kFrameHeaderSize + f.payload.size());
  {
    std::lock_guard<std::mutex> l(mu_);
    queue_.push_back(std::move(f));
  }
  auto self = shared_from_this();
  asio::post(strand_, [self] {
    if (!self->writing_) self->StartWrite();
  });
}

void Connection::SendError(uint64_t request_id, const Status& error, bool close_after) {
  Encoder e;
  e.U8(static_cast<uint8_t>(error.code()));
  e.String(error.message());
  Send(MsgType::kError, request_id ? kFlagResponse : 0, request_id, e.Finish(), close_after);
}

void Connection::StartWrite() {
  if (closed_ || !stream_ready_) return;
  writing_frames_.clear();
  {
    std::lock_guard<std::mutex> l(mu_);
    while (!queue_.empty() && writing_frames_.size() < kMaxFramesPerWrite) {
      writing_frames_.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
  }
  if (writing_frames_.empty()) {
    writing_ = false;
    return;
  }
  writing_ = true;
  write_bufs_.clear();
  for (OutFrame& f : writing_frames_) {
    write_bufs_.emplace_back(f.header, kFrameHeaderSize);
    for (const auto& seg : f.payload.segments()) write_bufs_.emplace_back(seg.data, seg.size);
  }
  if (!stream_.is_tls()) {
    write_cursor_.Reset(&write_bufs_);
    write_done_ = 0;
    WritePlain();
    return;
  }
  write_bufs_ = CoalesceSmallBuffers(write_bufs_, &tls_staging_);
  auto self = shared_from_this();
  asio::async_write(stream_, write_bufs_,
                    asio::bind_executor(strand_, [self](const boost::system::error_code& ec, size_t n) {
                      self->OnWrite(ec, n);
                    }));
}

// Plain TCP: sendmsg with up to IOV_MAX buffers a call, straight from the
// frames' segments, until the socket is full (then wait until it is writable)
// or all is sent. Completion is posted, as Asio's own writes do, so a queue
// that keeps refilling never deepens the stack.
void Connection::WritePlain() {
  if (closed_) return;
  tcp::socket& sock = stream_.socket();
  boost::system::error_code ec;
  if (!sock.native_non_blocking()) sock.native_non_blocking(true, ec);
  auto self = shared_from_this();
  iovec iov[kMaxIovecs];
  while (!ec && !write_cursor_.done()) {
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = static_cast<size_t>(write_cursor_.Fill(iov, kMaxIovecs));
    const ssize_t n = ::sendmsg(sock.native_handle(), &msg, MSG_NOSIGNAL);
    if (n >= 0) {
      write_cursor_.Advance(static_cast<size_t>(n));
      write_done_ += static_cast<size_t>(n);
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      sock.async_wait(tcp::socket::wait_write,
                      asio::bind_executor(strand_, [self](const boost::system::error_code& wait_ec) {
                        if (wait_ec) {
                          self->OnWrite(wait_ec, self->write_done_);
                        } else {
                          self->WritePlain();
                        }
                      }));
      return;
    } else if (errno != EINTR) {
      ec = boost::system::error_code(errno, boost::system::system_category());
    }
  }
  const size_t n = write_done_;
  asio::post(strand_, [self, ec, n] { self->OnWrite(ec, n); });
}

void Connection::OnWrite(const boost::system::error_code& ec, size_t n) {
  if (closed_) return;
  if (ec) {
    CloseOnStrand(Status::PeerLost("connection to " + peer() + " lost while sending: " + ec.message()));
    return;
  }
  bytes_out_ += n;
  const int64_t left = queued_bytes_ -= static_cast<int64_t>(n);
  const bool drained = options_.max_queued_bytes > 0 && left <= options_.max_queued_bytes &&
                       left + static_cast<int64_t>(n) > options_.max_queued_bytes;
  last_send_ns_ = NowNs();
  bool close_after = false;
  for (const OutFrame& f : writing_frames_) close_after |= f.close_after;
  writing_frames_.clear();
  write_bufs_.clear();
  tls_staging_.clear();
  if (close_after) {
    CloseOnStrand(Status::OK());
    return;
  }
  if (blocked_ && queued_bytes_.load() <= options_.max_queued_bytes) {
    blocked_ = false;
    last_recv_ns_ = NowNs();  // our backpressure is not the peer's silence
    if (!reading_ && !paused_) ReadHeader();
  }
  if (drained && options_.on_drained) options_.on_drained();
  StartWrite();
}

// ------------------------------------------------------------- liveness

void Connection::ArmTimer() {
  if (closed_) return;
  double hb = options_.heartbeat_seconds > 0 ? options_.heartbeat_seconds : 1.0;
  double tick = std::min(0.25, hb / 2);
  timer_.expires_after(std::chrono::microseconds(static_cast<int64_t>(tick * 1e6)));
  auto self = shared_from_this();
  timer_.async_wait(asio::bind_executor(
      strand_, [self](const boost::system::error_code& ec) { self->OnTimer(ec); }));
}

void Connection::OnTimer(const boost::system::error_code& ec) {
  if (ec || closed_) return;
  int64_t now = NowNs();
  if (options_.peer_timeout_seconds > 0 && !paused_ &&
      now - last_recv_ns_ > static_cast<int64_t>(options_.peer_timeout_seconds * 1e9)) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.1f", options_.peer_timeout_seconds);
    CloseOnStrand(Status::Timeout(peer() + " sent nothing (not even a heartbeat) for " + buf +
                                  " s: frozen or unreachable"));
    return;
  }
  if (options_.heartbeat_seconds > 0 && !writing_ &&
      now - last_send_ns_ > static_cast<int64_t>(options_.heartbeat_seconds * 1e9)) {
    last_send_ns_ = now;
    Send(MsgType::kHeartbeat, 0, 0, BufferList());
  }
  ArmTimer();
}

// ------------------------------------------------------------------ closing

void Connection::Close(Status why) {
  auto self = shared_from_this();
  asio::post(strand_, [self, why] { self->CloseOnStrand(why); });
}

void Connection::CloseOnStrand(Status why) {
  if (closed_.exchange(true)) return;
  timer_.cancel();
  stream_.Close();
  CloseHandler handler;
  {
    std::lock_guard<std::mutex> l(mu_);
    handler = std::move(on_close_);
    on_close_ = nullptr;
    on_frame_ = nullptr;
    queue_.clear();
  }
  if (handler) handler(why);
}

// ------------------------------------------------------------------ helpers

Result<tcp::socket> ConnectTcp(asio::io_context& io, const std::string& host, int port,
                               double timeout_s, const std::string& peer) {
  boost::system::error_code ec;
  auto addr = asio::ip::make_address(host, ec);
  std::vector<tcp::endpoint> endpoints;
  if (!ec) {
    endpoints.emplace_back(addr, static_cast<uint16_t>(port));
  } else {
    tcp::resolver resolver(io);
    auto results = resolver.resolve(host, std::to_string(port), ec);
    if (ec) return Status::IOError("resolve " + host + " for " + peer + ": " + ec.message());
    for (const auto& r : results) endpoints.push_back(r.endpoint());
  }
  auto socket = std::make_shared<tcp::socket>(io);
  auto timer = std::make_shared<asio::steady_timer>(io);
  auto done = std::make_shared<OneShot<boost::system::error_code>>();
  timer->expires_after(std::chrono::microseconds(static_cast<int64_t>(timeout_s * 1e6)));
  timer->async_wait([socket, done](const boost::system::error_code& e) {
    if (e) return;
    if (done->Set(asio::error::timed_out)) {
      boost::system::error_code ignore;
      socket->close(ignore);
    }
  });
  asio::async_connect(*socket, endpoints,
                      [timer, done](const boost::system::error_code& e, const tcp::endpoint&) {
                        done->Set(e);
                        timer->cancel();
                      });
  auto result = done->WaitFor(timeout_s + 5);
  if (!result) {
    boost::system::error_code ignore;
    socket->close(ignore);
    return Status::Timeout("connect to " + peer + ": no io thread completed the connect");
  }
  if (*result == asio::error::timed_out) {
    return Status::Timeout("connect to " + peer + ": no answer within " + std::to_string(timeout_s) + " s");
  }
  if (*result) return Status::IOError("connect to " + peer + ": " + result->message());
  return std::move(*socket);
}

Status DecodeErrorFrame(const Frame& frame, const std::string& peer) {
  Decoder d = frame.decoder("ERROR frame from " + peer);
  uint8_t code = d.U8();
  std::string msg = d.String();
  if (!d.Finish().ok()) return d.status();
  std::string text = peer + ": " + msg;
  switch (static_cast<Status::Code>(code)) {
    case Status::Code::kInvalidArgument: return Status::InvalidArgument(text);
    case Status::Code::kNotFound: return Status::NotFound(text);
    case Status::Code::kIOError: return Status::IOError(text);
    case Status::Code::kCorruption: return Status::Corruption(text);
    case Status::Code::kTimeout: return Status::Timeout(text);
    case Status::Code::kPeerLost: return Status::PeerLost(text);
    case Status::Code::kAlreadyExists: return Status::AlreadyExists(text);
    case Status::Code::kUnsupported: return Status::Unsupported(text);
    case Status::Code::kInternal: return Status::Internal(text);
    case Status::Code::kResourceExhausted: return Status::ResourceExhausted(text);
    default: return Status::Protocol(text);
  }
}

Result<DialResult> DialAndHello(asio::io_context& io, const std::string& host, int port,
                                const Hello& hello, const ConnectionOptions& options,
                                double timeout_s, const std::string& peer,
                                Connection::FrameHandler on_frame,
                                Connection::CloseHandler on_close) {
  auto start = std::chrono::steady_clock::now();
  DG_ASSIGN_OR_RETURN(tcp::socket socket, ConnectTcp(io, host, port, timeout_s, peer));
  auto conn = std::make_shared<Connection>(std::move(socket), options, peer, host);
  auto reply = std::make_shared<OneShot<Result<Welcome>>>();
  auto dialer = std::make_shared<HandshakeDialer>(hello);
  DG_ASSIGN_OR_RETURN(BufferList hello_payload, dialer->EncodeHello());
  std::weak_ptr<Connection> weak = conn;
  // Runs on the connection's strand, one frame at a time.
  conn->Start(
      [reply, weak, peer, on_frame, dialer](Frame f) {
        if (f.type() == MsgType::kChallenge) {
          auto auth = dialer->OnChallenge(f.data, f.size);
          auto c = weak.lock();
          if (!auth.ok()) {
            reply->Set(auth.status().WithContext(peer));
          } else if (c) {
            c->Send(MsgType::kAuth, 0, 0, std::move(*auth));
          }
        } else if (f.type() == MsgType::kWelcome) {
          auto w = dialer->OnWelcome(f.data, f.size);
          if (w.ok()) {
            if (auto c = weak.lock()) c->SetFrameHandler(on_frame);
          }
          reply->Set(w.ok() ? w : Result<Welcome>(w.status().WithContext(peer)));
        } else if (f.type() == MsgType::kError) {
          reply->Set(DecodeErrorFrame(f, peer));
        } else {
          reply->Set(Status::Protocol(peer + " answered HELLO with " + MsgTypeName(f.header.type)));
        }
      },
      [reply, peer, on_close](const Status& why) {
        reply->Set(why.ok() ? Status::PeerLost("connection to " + peer + " closed during the handshake")
                            : why);
        if (on_close) on_close(why);
      });
  conn->Send(MsgType::kHello, 0, 0, std::move(hello_payload));
  double left = timeout_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  auto got = reply->WaitFor(std::max(left, 0.1));
  if (!got) {
    conn->Close(Status::Timeout("handshake"));
    return Status::Timeout("handshake with " + peer + ": no WELCOME within " +
                           std::to_string(timeout_s) + " s");
  }
  if (!got->ok()) {
    conn->Close(got->status());
    return got->status();
  }
  if (conn->is_tls() && got->value().role != conn->peer_role()) {
    Status st = Status::InvalidArgument(peer + " says it is a " + got->value().role +
                                        " but its TLS certificate is for the role '" + conn->peer_role() + "'");
    conn->Close(st);
    return st;
  }
  return DialResult{conn, got->value()};
}

}  // namespace dg
