// The server's front door: connections that have not finished the handshake
// wait here, within their own budget (limits.max_handshaking_connections) and
// deadline (limits.handshake_timeout_seconds, from accept). When the budget is
// full, the oldest waiting connection is closed to let the new one in; one
// past its deadline is closed by a sweep. Only authenticated connections count
// against limits.max_connections, so strangers without the token who open
// connections and say nothing cannot keep a client with the token out: theirs
// are dropped first, and a real client finishes its handshake in a round trip.
// Thread-safe; closing happens outside the lock (Connection::Close may run the
// close handler, which calls Leave).
#pragma once

#include <boost/asio.hpp>

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>

#include "common/net/connection.h"

namespace dg {

class FrontDoor {
 public:
  FrontDoor(boost::asio::io_context& io, int budget, double deadline_seconds);
  ~FrontDoor();
  // Starts the deadline sweep (on io); Stop cancels it.
  void Start();
  void Stop();
  // A new connection waits for its handshake; may close the oldest waiting one.
  void Arrive(const std::shared_ptr<Connection>& conn);
  // It finished its handshake, or closed.
  void Leave(const Connection* conn);
  size_t waiting() const;
  int64_t dropped() const;  // closed for the budget or the deadline, since start

 private:
  struct Waiting {
    const Connection* key;
    std::weak_ptr<Connection> conn;
    std::chrono::steady_clock::time_point deadline;
  };
  void Sweep();

  boost::asio::steady_timer timer_;
  const size_t budget_;
  const std::chrono::steady_clock::duration deadline_;
  mutable std::mutex mu_;
  std::deque<Waiting> waiting_;  // oldest first
  int64_t dropped_ = 0;
  bool stopped_ = false;
};

}  // namespace dg
