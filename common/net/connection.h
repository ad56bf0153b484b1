// Connection: one framed TCP connection (either side), over Boost.Asio.
//
// This is the reusable message endpoint of every distgnn link (client <->
// server, sampler <-> trainer): it reads frames (header + payload, limited to
// max_frame_bytes) and hands each to a FrameHandler; it writes frames from any
// thread through one queue, gathering the header and the payload's buffers into
// a single writev (tensor bytes are never copied); it sends a HEARTBEAT whenever
// it has sent nothing for heartbeat_seconds, and closes itself with Timeout when
// nothing at all arrived for peer_timeout_seconds (a frozen or vanished peer),
// or with PeerLost when the socket closes. Heartbeats are one-way and never
// reach the FrameHandler.
//
// Threading: all socket work and both handlers run on the connection's strand
// (one at a time, on whichever io_context thread runs it). Send/Close/Pause/
// Resume are safe from any thread. Handlers must not block for long: post
// real work elsewhere. The close handler runs exactly once.
//
// Framing errors (bad magic/version, frame over the limit) are answered with an
// ERROR frame, logged once, and the connection is closed: after a bad header
// the byte stream cannot be trusted. So is a payload that cannot be allocated
// (ResourceExhausted). With max_queued_bytes, reading stops while that many
// bytes wait to be written (backpressure on peers that do not read).
#pragma once

#include <atomic>
#include <boost/asio.hpp>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/net/codec.h"
#include "common/net/handshake.h"
#include "common/net/net_stream.h"
#include "common/net/protocol.h"
#include "common/net/write_buffers.h"
#include "common/base/status.h"

namespace dg {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

struct ConnectionOptions {
  int64_t max_frame_bytes = kDefaultMaxFrameBytes;
  double heartbeat_seconds = 1.0;     // <= 0 disables heartbeats
  double peer_timeout_seconds = 10.0; // <= 0 disables the liveness check
  // Backpressure: while more than this many bytes wait to be written, no new
  // frame is read (a peer that does not read its replies cannot make us
  // queue without bound). 0 = no limit.
  int64_t max_queued_bytes = 0;
  // Called (on the strand) when the queued bytes fall back to max_queued_bytes
  // or below after being above it.
  std::function<void()> on_drained;
  // TLS 1.3 with mutual authentication (common/net/tls_context.h) when set,
  // plain TCP when null. With TLS, no frame moves before the TLS handshake
  // completes, an acceptor refuses a HELLO whose role is not the one the
  // dialer's certificate names, and DialAndHello refuses a WELCOME whose role
  // is not the one the acceptor's certificate names.
  std::shared_ptr<const TlsContext> tls;
};

// A received frame; the payload is heap memory kept alive by `holder`.
// When a PayloadSink took the frame, data/size hold only the sink's head
// bytes and the remaining `sunk_bytes` went straight to the sink's memory.
struct Frame {
  FrameHeader header;
  std::shared_ptr<void> holder;
  const uint8_t* data = nullptr;
  size_t size = 0;
  size_t sunk_bytes = 0;

  MsgType type() const { return static_cast<MsgType>(header.type); }
  Decoder decoder(const std::string& what) const { return Decoder(data, size, holder, what); }
};

// Where one incoming payload goes instead of a fresh heap buffer: its first
// head_bytes into a small buffer the Frame keeps (the message's header
// fields), the remaining body_bytes straight into `body` -- caller memory,
// e.g. the rows of a batch a PULL reply fills -- so the kernel's copy out of
// the socket is the only copy.
struct PayloadSink {
  size_t head_bytes = 0;
  uint8_t* body = nullptr;
  size_t body_bytes = 0;
  std::shared_ptr<void> keep_alive;  // owns `body` until the read is done
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  using FrameHandler = std::function<void(Frame)>;
  using CloseHandler = std::function<void(const Status&)>;
  // Asked (on the strand) for every frame header with a payload: returns true
  // and fills the sink to take the payload, false for the usual heap buffer.
  // A sink is used only if it has a body and head_bytes + body_bytes is the
  // payload's length.
  using PayloadRouter = std::function<bool(const FrameHeader&, PayloadSink*)>;

  // `peer` names the other side in every message ("127.0.0.1:30050 (server, partition 1)").
  // `dialed_host` is set by the dialing side (DialAndHello): with TLS it is the
  // TLS client and the acceptor's certificate must name that host; empty, it
  // is the accepting side (the TLS server).
  Connection(tcp::socket socket, ConnectionOptions options, std::string peer, std::string dialed_host = {});
  ~Connection();

  // Starts the TLS handshake (if any), then reading, and the heartbeat timer.
  void Start(FrameHandler on_frame, CloseHandler on_close);
  // Replaces the frame handler (e.g. after a handshake).
  void SetFrameHandler(FrameHandler on_frame);
  void SetPayloadRouter(PayloadRouter router);

  // Queues one frame. With close_after, the connection closes once it is written.
  void Send(MsgType type, uint32_t flags, uint64_t request_id, BufferList payload,
            bool close_after = false);
  // ERROR frame answering request_id: u8 status code, string message.
  void SendError(uint64_t request_id, const Status& error, bool close_after = false);

  // Closes the socket; `why` goes to the close handler (ok = local, orderly).
  void Close(Status why);
  // Flow control: stop/restart reading frames (heartbeats stop too while paused,
  // so keep pauses short).
  void PauseReading();
  void ResumeReading();

  bool closed() const { return closed_.load(); }
  std::string peer() const;
  void set_peer(std::string peer);
  std::string remote_address() const { return remote_; }  // "ip:port" of the socket
  // The role the peer's certificate names, once the TLS handshake is done ("" without TLS).
  std::string peer_role() const;
  bool is_tls() const { return stream_.is_tls(); }
  uint64_t bytes_received() const { return bytes_in_.load(); }
  uint64_t bytes_sent() const { return bytes_out_.load(); }
  // Bytes queued or being written; over max_queued_bytes means backpressure.
  int64_t queued_bytes() const { return queued_bytes_.load(); }
  bool backpressured() const {
    return options_.max_queued_bytes > 0 && queued_bytes_.load() > options_.max_queued_bytes;
  }

 private:
  struct OutFrame {
    uint8_t header[kFrameHeaderSize];
    BufferList payload;
    bool close_after = false;
  };

  void OnStreamReady(const boost::system::error_code& ec);
  Status CheckHelloRole(const Frame& frame) const;
  void ReadHeader();
  void OnHeader(const boost::system::error_code& ec);
  void OnPayload(const boost::system::error_code& ec);
  void Deliver(Frame frame);
  void StartWrite();
  void WritePlain();
  void OnWrite(const boost::system::error_code& ec, size_t n);
  void ArmTimer();
  void OnTimer(const boost::system::error_code& ec);
  void CloseOnStrand(Status why);
  int64_t NowNs() const;

  NetStream stream_;
  asio::strand<asio::any_io_executor> strand_;
  asio::steady_timer timer_;
  ConnectionOptions options_;
  std::string remote_;
  std::string dialed_host_;

  mutable std::mutex mu_;  // guards peer_, peer_role_, handlers, queue_
  std::string peer_;
  std::string peer_role_;
  FrameHandler on_frame_;
  CloseHandler on_close_;
  PayloadRouter router_;
  std::deque<OutFrame> queue_;

  // Strand-only state.
  uint8_t header_buf_[kFrameHeaderSize];
  FrameHeader header_;
  std::shared_ptr<void> payload_;
  PayloadSink sink_;  // the current payload's, when routed
  bool reading_ = false, paused_ = false, writing_ = false;
  bool stream_ready_ = false;  // the TLS handshake is done (at once without TLS)
  bool blocked_ = false;  // not reading: too many bytes queued for writing (backpressure)
  std::vector<OutFrame> writing_frames_;
  std::vector<asio::const_buffer> write_bufs_;
  WriteCursor write_cursor_;          // plain TCP: where the current write is
  size_t write_done_ = 0;             // plain TCP: bytes of the current write sent
  std::deque<std::string> tls_staging_;  // TLS: small buffers copied together

  std::atomic<bool> closed_{false};
  std::atomic<int64_t> last_recv_ns_{0}, last_send_ns_{0};
  std::atomic<uint64_t> bytes_in_{0}, bytes_out_{0};
  std::atomic<int64_t> queued_bytes_{0};  // queued or being written
};

// Connects to host:port within timeout_s. Errors are IOError/Timeout naming
// `peer` and carrying the OS error text.
Result<tcp::socket> ConnectTcp(asio::io_context& io, const std::string& host, int port,
                               double timeout_s, const std::string& peer);

// Wraps an ERROR frame payload back into the Status it carried, prefixed by
// the peer's name.
Status DecodeErrorFrame(const Frame& frame, const std::string& peer);

// ------------------------------------------------------------ handshake
// Hello, Welcome and the HMAC handshake itself: common/net/handshake.h.

// Dialer side: connect, run the handshake (HELLO, CHALLENGE, AUTH, WELCOME;
// hello.token is the MAC key and is never sent), within timeout_s; a WELCOME
// whose proof is wrong fails. On WELCOME, `on_frame` becomes the frame handler (before any later
// frame is read) and `on_close` the close handler.
struct DialResult {
  std::shared_ptr<Connection> connection;
  Welcome welcome;
};
Result<DialResult> DialAndHello(asio::io_context& io, const std::string& host, int port,
                                const Hello& hello, const ConnectionOptions& options,
                                double timeout_s, const std::string& peer,
                                Connection::FrameHandler on_frame,
                                Connection::CloseHandler on_close);

}  // namespace dg
