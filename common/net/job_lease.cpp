#include "common/net/job_lease.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "common/net/handshake.h"
#include "common/net/lease_channel.h"
#include "common/net/tls_context.h"

namespace dg {

namespace {

constexpr char kMagic[] = "DGLEASE1";
constexpr size_t kMaxLine = 256;
constexpr size_t kMaxPeers = 4096;

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int PollMs(double seconds) { return seconds <= 0 ? 0 : static_cast<int>(std::min(seconds * 1000 + 1, 60000.0)); }

std::string Hex(const uint8_t* p, size_t n) {
  static const char* kHex = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) s += std::string(1, kHex[p[i] >> 4]) + kHex[p[i] & 15];
  return s;
}

std::string MacHex(const std::string& token, const std::string& side, const std::string& job_id,
                   const std::string& id, const std::string& hn, const std::string& gn) {
  Mac m = HmacSha256(token, "distgnn-lease " + side + "|" + job_id + "|" + id + "|" + hn + "|" + gn);
  return Hex(m.data(), m.size());
}

// Equal-time comparison of two MACs in hex.
bool SameMac(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char d = 0;
  for (size_t i = 0; i < a.size(); ++i) d |= static_cast<unsigned char>(a[i] ^ b[i]);
  return d == 0;
}

std::string HostPort(const std::string& host, int port) {
  return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

// A connected TCP socket to host:port within timeout_s, or -1 (*why says why);
// gives up at once when wake_fd becomes readable.
int Dial(const std::string& host, int port, double timeout_s, int wake_fd, std::string* why) {
  addrinfo hints{}, *res = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
  if (rc != 0) {
    *why = std::string("cannot resolve ") + host + ": " + gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  for (addrinfo* a = res; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      int err = errno;
      if (err == EINPROGRESS) {
        pollfd p[2] = {{fd, POLLOUT, 0}, {wake_fd, POLLIN, 0}};
        err = ETIMEDOUT;
        if (poll(p, 2, PollMs(timeout_s)) >= 1 && p[0].revents) {
          socklen_t len = sizeof(err);
          getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
        }
      }
      if (err != 0) {
        *why = std::strerror(err);
        close(fd);
        fd = -1;
      }
    }
  }
  freeaddrinfo(res);
  if (fd >= 0) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  return fd;
}

// Waits until ch can go on after io (would-block on reading or writing) by the
// deadline; false on timeout or when wake_fd becomes readable.
bool WaitFor(const LeaseChannel& ch, LeaseChannel::Io io, double deadline, int wake_fd) {
  pollfd p[2] = {{ch.fd(), static_cast<short>(io == LeaseChannel::Io::kWantWrite ? POLLOUT : POLLIN), 0},
                 {wake_fd, POLLIN, 0}};
  return poll(p, 2, PollMs(deadline - Now())) >= 1 && !p[1].revents && p[0].revents;
}

// Reads one '\n'-terminated line (without it) by the deadline; false on EOF,
// error, timeout, or when wake_fd becomes readable.
bool ReadLine(LeaseChannel* ch, double deadline, int wake_fd, std::string* line) {
  line->clear();
  while (line->size() < kMaxLine) {
    char c;
    size_t got = 0;
    const LeaseChannel::Io io = ch->Read(&c, 1, &got);
    if (io == LeaseChannel::Io::kDone) {
      if (c == '\n') return true;
      *line += c;
    } else if (io != LeaseChannel::Io::kWantRead && io != LeaseChannel::Io::kWantWrite) {
      return false;
    } else if (!WaitFor(*ch, io, deadline, wake_fd)) {
      return false;
    }
  }
  return false;
}

// The lease threads never die of SIGPIPE: OpenSSL writes with write(2), which
// raises it when the peer has gone (a blocked one stays pending on this thread).
void BlockSigpipe() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

SSL_CTX* SslContext(const std::shared_ptr<const TlsContext>& tls) {
  return tls ? tls->ssl().native_handle() : nullptr;
}

std::vector<std::string> Words(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find(' ', i);
    if (j == std::string::npos) j = s.size();
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

Result<std::string> NonceHex() {
  DG_ASSIGN_OR_RETURN(Nonce n, RandomNonce());
  return Hex(n.data(), n.size());
}

}  // namespace

double LeaseHeartbeatInterval(double timeout_seconds) { return std::clamp(timeout_seconds / 5, 0.1, 2.0); }

Result<std::string> LocalAddressToward(const std::string& host) {
  addrinfo hints{}, *res = nullptr;
  hints.ai_socktype = SOCK_DGRAM;
  int rc = getaddrinfo(host.c_str(), "9", &hints, &res);
  if (rc != 0) return Status::InvalidArgument("cannot resolve " + host + ": " + gai_strerror(rc));
  std::string out;
  for (addrinfo* a = res; a && out.empty(); a = a->ai_next) {
    int fd = socket(a->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    sockaddr_storage local{};
    socklen_t len = sizeof(local);
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0) {
      char buf[INET6_ADDRSTRLEN] = {0};
      if (local.ss_family == AF_INET)
        inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&local)->sin_addr, buf, sizeof(buf));
      else
        inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&local)->sin6_addr, buf, sizeof(buf));
      out = buf;
    }
    close(fd);
  }
  freeaddrinfo(res);
  if (out.empty()) return Status::InvalidArgument("no route from this machine to " + host);
  return out;
}

Status ParseLeaseAddress(const std::string& text, std::string* host, int* port) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
    return Status::InvalidArgument("--lease " + text + ": expected HOST:PORT");
  std::string h = text.substr(0, colon);
  if (h.size() > 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  int p = 0;
  for (char c : text.substr(colon + 1)) {
    if (c < '0' || c > '9' || p > 65535) return Status::InvalidArgument("--lease " + text + ": bad port");
    p = p * 10 + (c - '0');
  }
  if (p <= 0 || p > 65535) return Status::InvalidArgument("--lease " + text + ": bad port");
  *host = h;
  *port = p;
  return Status::OK();
}

// ---------------------------------------------------------------- granter

struct LeaseGranter::Peer {
  LeaseChannel ch;
  int stage = 0;  // 0: awaiting the hello line (after the TLS handshake), 1: awaiting the MAC line, 2: open
  std::string in, id, holder_nonce, granter_nonce;
  double opened = 0, last_heard = 0, last_sent = 0;
};

Result<std::unique_ptr<LeaseGranter>> LeaseGranter::Start(const Options& options) {
  std::unique_ptr<LeaseGranter> g(new LeaseGranter());
  g->options_ = options;
  for (const std::string& addr : options.addresses) {
    addrinfo hints{}, *res = nullptr;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
    if (getaddrinfo(addr.c_str(), std::to_string(g->port_).c_str(), &hints, &res) != 0 || !res)
      return Status::InvalidArgument("lease: bad listen address " + addr);
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    const bool ok = fd >= 0 && bind(fd, res->ai_addr, res->ai_addrlen) == 0 && listen(fd, 128) == 0;
    const int err = errno;
    freeaddrinfo(res);
    if (!ok) {
      if (fd >= 0) close(fd);
      return Status::FromErrno("lease: listen on " + HostPort(addr, g->port_), err);
    }
    g->listeners_.push_back(fd);
    if (g->port_ == 0) {
      sockaddr_storage a{};
      socklen_t len = sizeof(a);
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
      g->port_ = ntohs(a.ss_family == AF_INET ? reinterpret_cast<sockaddr_in*>(&a)->sin_port
                                              : reinterpret_cast<sockaddr_in6*>(&a)->sin6_port);
    }
  }
  if (pipe2(g->wake_, O_CLOEXEC | O_NONBLOCK) != 0) return Status::FromErrno("lease: pipe", errno);
  g->thread_ = std::thread([p = g.get()] { p->Loop(); });
  return g;
}

LeaseGranter::~LeaseGranter() {
  stop_ = true;
  if (wake_[1] >= 0) {
    ssize_t w = write(wake_[1], "x", 1);
    (void)w;
  }
  if (thread_.joinable()) thread_.join();
  for (int fd : listeners_) close(fd);
  for (int fd : wake_)
    if (fd >= 0) close(fd);
}

double LeaseGranter::SilenceSeconds(const std::string& holder_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = state_.find(holder_id);
  if (it == state_.end() || !it->second.first) return -1;
  return Now() - it->second.second;
}

void LeaseGranter::DropPeer(std::vector<std::unique_ptr<Peer>>* peers, size_t i) {
  Peer& p = *(*peers)[i];
  if (p.stage == 2) {
    std::lock_guard<std::mutex> lock(mu_);
    state_[p.id].first = false;
  }
  peers->erase(peers->begin() + static_cast<long>(i));  // closes its socket
}

// Every connection waiting on `listener`; at kMaxPeers the oldest
// unauthenticated peer makes room, else the new one is closed.
void LeaseGranter::AcceptPeers(int listener, double now, std::vector<std::unique_ptr<Peer>>* peers) {
  while (true) {
    int fd = accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) break;
    if (peers->size() >= kMaxPeers) {
      auto it = std::find_if(peers->begin(), peers->end(), [](auto& p) { return p->stage < 2; });
      if (it == peers->end()) {
        close(fd);
        continue;
      }
      DropPeer(peers, static_cast<size_t>(it - peers->begin()));
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    auto p = std::make_unique<Peer>();
    if (!p->ch.Open(fd, SslContext(options_.tls), /*server=*/true)) continue;  // the channel closes fd
    p->opened = p->last_heard = p->last_sent = now;
    peers->push_back(std::move(p));
  }
}

// With TLS: whether the role the holder's id names (role/machine/index) is
// the role of its certificate. Without TLS there is none to check.
bool LeaseGranter::CertifiedHolder(const Peer& p) const {
  if (!p.ch.tls()) return true;
  const std::string role = p.id.substr(0, p.id.find('/'));
  return !role.empty() && role == p.ch.PeerRole();
}

// One handshake line of an unauthenticated peer: stage 0 takes the holder's
// greeting and answers a nonce, stage 1 checks the holder's MAC and answers
// OK with the granter's. Returns whether the peer stays.
bool LeaseGranter::HandshakeLine(Peer* p, const std::string& line, double now) {
  auto w = Words(line);
  if (p->stage == 0) {
    auto gn = NonceHex();
    if (w.size() != 3 || w[0] != kMagic || !gn.ok()) return false;
    p->id = w[1];
    p->holder_nonce = w[2];
    p->granter_nonce = *gn;
    if (!CertifiedHolder(*p)) return false;
    p->ch.Write(p->granter_nonce + "\n");
    p->stage = 1;
    return true;
  }
  const std::string want =
      MacHex(options_.token, "holder", options_.job_id, p->id, p->holder_nonce, p->granter_nonce);
  if (w.size() != 1 || !SameMac(w[0], want)) return false;
  p->ch.Write("OK " + MacHex(options_.token, "granter", options_.job_id, p->id, p->holder_nonce, p->granter_nonce) +
              "\n");
  p->stage = 2;
  p->last_sent = now;
  std::lock_guard<std::mutex> lock(mu_);
  state_[p->id] = {true, now};
  return true;
}

// A peer whose socket is ready: the TLS handshake's next step, then what it
// sent (an open lease's bytes are heartbeats, an unauthenticated peer's are
// handshake lines), then queued bytes. Returns whether the peer stays.
bool LeaseGranter::ServePeer(Peer* p, double now) {
  using Io = LeaseChannel::Io;
  if (!p->ch.handshaken()) {
    const Io io = p->ch.Handshake();
    if (io == Io::kWantRead || io == Io::kWantWrite) return true;
    if (io != Io::kDone) return false;  // plaintext, no certificate, another CA's, TLS 1.2...
  }
  char buf[512];
  size_t n = 0;
  Io io;
  while ((io = p->ch.Read(buf, sizeof(buf), &n)) == Io::kDone) {
    p->last_heard = now;
    if (p->stage == 2) {
      std::lock_guard<std::mutex> lock(mu_);
      state_[p->id].second = now;
      continue;
    }
    p->in.append(buf, n);
    size_t nl;
    while (p->stage < 2 && (nl = p->in.find('\n')) != std::string::npos) {
      std::string line = p->in.substr(0, nl);
      p->in.erase(0, nl + 1);
      if (!HandshakeLine(p, line, now)) return false;
    }
    if (p->stage < 2 && p->in.size() > kMaxLine) return false;
  }
  if (io != Io::kWantRead && io != Io::kWantWrite) return false;
  return p->ch.Flush();
}

void LeaseGranter::Loop() {
  BlockSigpipe();
  const double timeout = options_.timeout_seconds, interval = LeaseHeartbeatInterval(timeout);
  std::vector<std::unique_ptr<Peer>> peers;
  while (!stop_) {
    std::vector<pollfd> fds{{wake_[0], POLLIN, 0}};
    for (int l : listeners_) fds.push_back({l, POLLIN, 0});
    for (auto& p : peers) fds.push_back({p->ch.fd(), p->ch.Events(), 0});
    poll(fds.data(), fds.size(), PollMs(interval / 2));
    if (stop_) break;
    const double now = Now();
    for (size_t l = 0; l < listeners_.size(); ++l)
      if (fds[1 + l].revents & POLLIN) AcceptPeers(listeners_[l], now, &peers);
    // Peers: serve the ready ones (indices shift on drop, so walk by fd).
    std::vector<int> ready;
    for (size_t i = 1 + listeners_.size(); i < fds.size(); ++i)
      if (fds[i].revents) ready.push_back(fds[i].fd);
    for (size_t i = 0; i < peers.size();) {
      Peer& p = *peers[i];
      bool keep = std::find(ready.begin(), ready.end(), p.ch.fd()) == ready.end() || ServePeer(&p, now);
      // An unauthenticated peer (TLS handshake included) gets timeout_seconds
      // to finish; an open one is kept (silence is reported).
      if (keep && p.stage < 2 && now - p.opened > timeout) keep = false;
      if (keep && p.stage == 2 && now - p.last_sent >= interval) {
        p.ch.Write(".");  // a broken lease shows as silence or EOF on the other side
        p.last_sent = now;
      }
      if (keep) {
        ++i;
      } else {
        DropPeer(&peers, i);
      }
    }
  }
  peers.clear();
}

// ---------------------------------------------------------------- holder

std::unique_ptr<LeaseHolder> LeaseHolder::Start(const Options& options,
                                                std::function<void(const std::string&)> on_expired) {
  // OpenSSL (nonces, MACs, TLS) is initialised here, on the caller's thread,
  // before the thread starts: its exit-time cleanup (atexit) then runs after a
  // static holder's destructor has joined the thread, never while the thread uses it.
  (void)RandomNonce();
  (void)HmacSha256("", "");
  std::unique_ptr<LeaseHolder> h(new LeaseHolder());
  h->options_ = options;
  h->on_expired_ = std::move(on_expired);
  if (pipe2(h->wake_, O_CLOEXEC | O_NONBLOCK) != 0) h->wake_[0] = h->wake_[1] = -1;
  h->thread_ = std::thread([p = h.get()] { p->Loop(); });
  return h;
}

LeaseHolder::~LeaseHolder() {
  stop_ = true;
  if (wake_[1] >= 0) {
    ssize_t w = write(wake_[1], "x", 1);
    (void)w;
  }
  if (thread_.joinable()) thread_.join();
  for (int fd : wake_)
    if (fd >= 0) close(fd);
}

// The TLS handshake with the granter and the check of its certificate by the
// deadline: "" when it is the launcher's, else why not.
std::string LeaseHolder::Handshake(LeaseChannel* ch, double deadline) {
  using Io = LeaseChannel::Io;
  Io io;
  while ((io = ch->Handshake()) == Io::kWantRead || io == Io::kWantWrite)
    if (!WaitFor(*ch, io, deadline, wake_[0])) return "no TLS handshake within the timeout";
  if (io != Io::kDone) return "the TLS handshake failed: " + ch->error() + " (a plaintext launcher, or another job's?)";
  const std::string role = ch->PeerRole();
  if (role != "launcher")
    return "its TLS certificate is for the role '" + role + "', not the launcher's: refusing it";
  // A launcher's certificate names no host (it only dials); one that does must name the address dialled.
  if (ch->PeerNamesAnyHost() && !ch->PeerNamesHost(options_.host))
    return "its TLS certificate does not name " + options_.host + ": refusing it";
  return "";
}

// The MAC exchange (inside TLS when on) by the deadline: "" once granted.
std::string LeaseHolder::Authenticate(LeaseChannel* ch, double deadline, const std::string& where) {
  const Options& o = options_;
  if (ch->tls()) {
    const std::string why = Handshake(ch, deadline);
    if (!why.empty()) return where + ": " + why;
  }
  auto hn = NonceHex();
  if (!hn.ok()) return hn.status().message();
  std::string gn, ok;
  ch->Write(std::string(kMagic) + " " + o.holder_id + " " + *hn + "\n");
  if (ReadLine(ch, deadline, wake_[0], &gn) && gn.size() == 64) {
    ch->Write(MacHex(o.token, "holder", o.job_id, o.holder_id, *hn, gn) + "\n");
    auto w = Words(ReadLine(ch, deadline, wake_[0], &ok) ? ok : std::string());
    if (w.size() == 2 && w[0] == "OK" && SameMac(w[1], MacHex(o.token, "granter", o.job_id, o.holder_id, *hn, gn)))
      return "";
  }
  if (!ch->tls()) return where + " did not grant one (another job's launcher, or a different token)";
  return where + " did not grant one (another job's launcher, a different token, or a certificate of another " +
         "role than " + o.holder_id + ")" + (ch->error().empty() ? "" : ": " + ch->error());
}

// Heartbeats both ways until the lease ends (why) or the holder stops ("");
// expiry is judged before reading.
std::string LeaseHolder::Heartbeat(LeaseChannel* ch, const std::string& where) {
  using Io = LeaseChannel::Io;
  const double timeout = options_.timeout_seconds, interval = LeaseHeartbeatInterval(timeout);
  char secs[32];
  std::snprintf(secs, sizeof(secs), "%g", timeout);
  double expiry = Now() + timeout, next_send = Now();
  while (!stop_) {
    const double now = Now();
    if (now >= next_send) {
      ch->Write(".");
      next_send = now + interval;
    }
    ch->Flush();
    pollfd fds[2] = {{ch->fd(), ch->Events(), 0}, {wake_[0], POLLIN, 0}};
    poll(fds, 2, PollMs(std::min(next_send, expiry) - now));
    if (stop_) break;
    if (Now() >= expiry)
      return "no heartbeat from " + where + " for " + secs + " s (network.peer_timeout_seconds): the launcher is "
             "gone, frozen or cut off";
    if (!fds[0].revents) continue;
    char buf[256];
    size_t n = 0;
    Io io;
    while ((io = ch->Read(buf, sizeof(buf), &n)) == Io::kDone) expiry = Now() + timeout;
    if (io == Io::kClosed) return where + " ended (it closed the connection): the launcher is gone";
    if (io == Io::kError) return where + " ended (" + ch->error() + "): the launcher is gone";
  }
  return "";
}

void LeaseHolder::Loop() {
  BlockSigpipe();
  const Options& o = options_;
  const double timeout = o.timeout_seconds;
  const std::string where = "the launcher's lease at " + HostPort(o.host, o.port);
  char secs[32];
  std::snprintf(secs, sizeof(secs), "%g", timeout);
  auto expire = [&](const std::string& why) {
    if (!stop_) on_expired_(why);
  };
  // 1. Dial (retrying) and authenticate, all within timeout_seconds.
  const double deadline = Now() + timeout;
  int fd = -1;
  std::string why = "no answer";
  while (fd < 0 && !stop_ && Now() < deadline) {
    fd = Dial(o.host, o.port, deadline - Now(), wake_[0], &why);
    if (fd < 0) {
      pollfd p{wake_[0], POLLIN, 0};
      poll(&p, 1, PollMs(std::min(0.2, deadline - Now())));
    }
  }
  if (fd < 0) return expire("cannot reach " + where + " within " + secs + " s (" + why + ")");
  LeaseChannel ch;
  if (!ch.Open(fd, SslContext(o.tls), /*server=*/false)) return expire("TLS for " + where + ": " + ch.error());
  why = Authenticate(&ch, deadline, where);
  if (!why.empty()) return expire(why);
  // 2. Heartbeats both ways.
  why = Heartbeat(&ch, where);
  if (!why.empty()) expire(why);
}

}  // namespace dg
