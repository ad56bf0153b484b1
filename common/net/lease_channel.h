// LeaseChannel: the byte channel of one job lease (common/net/job_lease.h): a
// non-blocking TCP socket, plain or wrapped in a non-blocking OpenSSL SSL
// object (TLS 1.3, mutual authentication, the process's TlsContext).
//
// Nothing here blocks: each call does what the socket allows now and says
// whether it would block on reading or on writing, so the granter drives every
// lease from one poll() loop (Events() gives what to poll for) and the holder
// from its thread with its own deadlines. Written bytes the socket cannot take
// yet wait in the channel and go with the next Flush (TLS needs the same bytes
// again after a would-block write). OpenSSL writes with write(2): a thread
// that uses a TLS channel blocks SIGPIPE (a peer that went would raise it).
#pragma once

#include <cstddef>
#include <string>

typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;

namespace dg {

class LeaseChannel {
 public:
  enum class Io { kDone, kWantRead, kWantWrite, kClosed, kError };

  LeaseChannel() = default;
  ~LeaseChannel();
  LeaseChannel(const LeaseChannel&) = delete;
  LeaseChannel& operator=(const LeaseChannel&) = delete;

  // Takes fd (closed with the channel). ctx null: plaintext. Else TLS, the
  // acceptor's side (server) or the dialer's; false when OpenSSL refuses.
  bool Open(int fd, SSL_CTX* ctx, bool server);

  int fd() const { return fd_; }
  bool tls() const { return ssl_ != nullptr; }
  SSL* ssl() const { return ssl_; }
  bool handshaken() const { return handshaken_; }

  // TLS: one step of the handshake (kDone once finished); plaintext: kDone.
  Io Handshake();
  // Up to n bytes into buf (*got of them): kDone with *got > 0, kWantRead or
  // kWantWrite (nothing yet), kClosed (the peer closed), kError.
  Io Read(char* buf, size_t n, size_t* got);
  // Queues s and sends what the socket takes now; false when the channel broke.
  bool Write(const std::string& s);
  // Sends queued bytes; false when the channel broke.
  bool Flush();
  // The poll() events this channel waits for (POLLIN, plus POLLOUT while TLS
  // or queued bytes need the socket writable).
  short Events() const;
  // After a TLS handshake: the role the peer's certificate names ("" when none).
  std::string PeerRole() const;
  // After a TLS handshake: whether the peer's certificate names any host (SAN
  // IP or DNS), and whether it names `host` (an IP for an address, else DNS).
  bool PeerNamesAnyHost() const;
  bool PeerNamesHost(const std::string& host) const;
  // Why the last kError happened (OpenSSL's reason, or errno's), for a log line.
  const std::string& error() const { return error_; }

 private:
  Io SslResult(int rc);

  int fd_ = -1;
  SSL* ssl_ = nullptr;
  bool handshaken_ = false;
  bool want_write_ = false;  // TLS asked for a writable socket
  std::string out_;          // queued bytes not yet taken by the socket
  std::string error_;
};

}  // namespace dg
