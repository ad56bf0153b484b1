// The job lease: every process `distgnn launch` starts holds a lease on its
// launcher, so job-owned processes end with their job, over ssh too.
//
// The launcher runs a LeaseGranter: one listening socket per address it uses to
// reach the job's machines (LocalAddressToward), one port. Each process gets
// `--lease ADDRESS:PORT` and runs a LeaseHolder, a thread that dials it:
//
//   holder  -> "DGLEASE1 <holder id> <holder nonce hex>\n"     holder id = role/machine/index
//   granter -> "<granter nonce hex>\n"
//   holder  -> "<hex HMAC(token, "distgnn-lease holder|" job_id | id | hn | gn)>\n"
//   granter -> "OK <hex HMAC(token, "distgnn-lease granter|" job_id | id | hn | gn)>\n"
//
// then both sides send one byte '.' every HeartbeatInterval(timeout). Each side
// proves it knows the job's token (the token never travels; without a token
// the MACs are keyed with ""). A side that hears nothing for timeout_seconds
// ends the lease: the holder calls its on_expired (the role logs it and exits:
// it never outlives a launcher that was killed, cut off or frozen), the granter
// reports the holder as silent (the launcher names its machine unreachable).
// The holder judges expiry before it reads: bytes that waited in its socket
// while it was itself frozen (SIGSTOP) do not renew an expired lease. A holder
// that cannot reach its granter within timeout_seconds of starting also expires.
// A process started without --lease (by hand, by systemd) holds none.
//
// With the job's TLS on (Options::tls), the lease runs inside TLS 1.3 with
// mutual authentication (common/net/lease_channel.h): the granter presents the
// launcher's certificate, the holder its role's; the lines above then travel
// encrypted. The granter refuses a holder whose id names another role than its
// certificate, and one without a certificate of the job's CA; the holder
// refuses a granter whose certificate is not the launcher's, or names hosts
// but not the one it dialed. Each side refuses the other in plaintext: no
// downgrade. The granter runs every TLS handshake in its poll() loop (no
// thread per peer) within the timeout_seconds an unauthenticated peer has.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/base/status.h"

namespace dg {

class LeaseChannel;
class TlsContext;

// Seconds between heartbeats for a lease timeout: a fifth of it, within 0.1..2 s.
double LeaseHeartbeatInterval(double timeout_seconds);

// The local address this machine uses to reach host (the kernel's route choice;
// no packet is sent). Loopback hosts give 127.0.0.1.
Result<std::string> LocalAddressToward(const std::string& host);

// "HOST:PORT" (IPv6 as "[ADDR]:PORT") -> host, port.
Status ParseLeaseAddress(const std::string& text, std::string* host, int* port);

class LeaseGranter {
 public:
  struct Options {
    std::vector<std::string> addresses;  // where to listen (one port for all)
    std::string token, job_id;
    double timeout_seconds = 10;
    std::shared_ptr<const TlsContext> tls;  // the launcher's identity; null: plaintext
  };
  static Result<std::unique_ptr<LeaseGranter>> Start(const Options& options);
  ~LeaseGranter();  // closes every lease: their holders see it at once

  int port() const { return port_; }
  // Seconds since the holder's last heartbeat while its lease is open; -1 when it
  // has none open (not dialled yet, or closed: its process exited).
  double SilenceSeconds(const std::string& holder_id) const;

 private:
  struct Peer;
  LeaseGranter() = default;
  void Loop();
  void AcceptPeers(int listener, double now, std::vector<std::unique_ptr<Peer>>* peers);
  bool ServePeer(Peer* p, double now);
  bool CertifiedHolder(const Peer& p) const;
  bool HandshakeLine(Peer* p, const std::string& line, double now);
  void DropPeer(std::vector<std::unique_ptr<Peer>>* peers, size_t i);

  Options options_;
  int port_ = 0;
  std::vector<int> listeners_;
  int wake_[2] = {-1, -1};
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  std::map<std::string, std::pair<bool, double>> state_;  // id -> (open, last heard, steady seconds)
  std::thread thread_;
};

class LeaseHolder {
 public:
  struct Options {
    std::string host;
    int port = 0;
    std::string token, job_id, holder_id;
    double timeout_seconds = 10;
    std::shared_ptr<const TlsContext> tls;  // this process's identity; null: plaintext
  };
  // Starts the thread; on_expired(reason) runs once, on that thread, when the lease ends.
  static std::unique_ptr<LeaseHolder> Start(const Options& options, std::function<void(const std::string&)> on_expired);
  ~LeaseHolder();

 private:
  LeaseHolder() = default;
  void Loop();
  std::string Handshake(LeaseChannel* ch, double deadline);
  std::string Authenticate(LeaseChannel* ch, double deadline, const std::string& where);
  std::string Heartbeat(LeaseChannel* ch, const std::string& where);

  Options options_;
  std::function<void(const std::string&)> on_expired_;
  int wake_[2] = {-1, -1};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace dg
