// FairScheduler: the order in which a server's pool runs requests, so that no
// client monopolises it.
//
// Each client (a connection) has a FIFO of jobs. Pop() takes the oldest job of
// the next client in round-robin order whose running jobs are below
// `per_client_cap` and that is ready; so one client pipelining many slow requests holds at most
// `per_client_cap` pool threads and every other client's next request runs
// after at most one request of each client ahead of it. Thread-safe.
//
// Use: Push() a job, then post one Run token to the pool per Push; a token runs
// TakeAndRun(). A token that finds every queued client at its cap returns at
// once: the Done() of one of that client's running jobs re-posts it (Done
// returns true when the caller must post another token).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>

namespace dg {

class FairScheduler {
 public:
  using Job = std::function<void()>;
  explicit FairScheduler(int per_client_cap) : cap_(per_client_cap < 1 ? 1 : per_client_cap) {}

  // `ready` (optional, per client, taken from its first Push): while it
  // returns false the client's jobs wait (e.g. its replies are not being read);
  // call Wake() when it may have turned true.
  void Push(const void* client, Job job, std::function<bool()> ready = nullptr);
  // True when the caller must post a token (jobs are queued that no token will pick up).
  bool Wake();
  // Runs one job fairly (if any is runnable); returns true when the caller
  // must post another token (a job is queued that no token will pick up).
  bool TakeAndRun();
  // Jobs queued and not yet started, over all clients.
  int64_t queued() const;

 private:
  struct Client {
    std::deque<Job> jobs;
    int running = 0;
    std::function<bool()> ready;
  };
  bool Pop(const void** client, Job* job);
  bool Done(const void* client);

  const int cap_;
  mutable std::mutex mu_;
  std::map<const void*, Client> clients_;
  std::deque<const void*> order_;  // clients with queued jobs, round-robin
  int64_t queued_ = 0;
  int64_t tokens_ = 0;  // tokens posted and not yet run
};

}  // namespace dg
