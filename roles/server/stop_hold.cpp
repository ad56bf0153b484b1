// GraphServer on SIGTERM (graph_server.h): the trainers connected at that
// moment may be finishing a step and writing a checkpoint whose server part
// this server saves (CHECKPOINT), so it serves them and their samplers until
// they have left, at most stop_seconds, then shuts down as on SHUTDOWN.
// Under Slurm, Kubernetes or systemd every process of the job gets SIGTERM
// at once; this is what lets the trainers' checkpoint complete.
#include <signal.h>
#include <spdlog/spdlog.h>

#include "common/net/protocol.h"
#include "roles/server/graph_server.h"
#include "roles/server/server_session.h"

namespace dg {

int GraphServer::ConnectedClients() {
  std::lock_guard<std::mutex> l(mu_);
  int n = 0;
  for (const auto& [k, s] : sessions_)
    if (s->ready && (s->role == kRoleTrainer || s->role == kRoleSampler)) ++n;
  return n;
}

void GraphServer::StopWhenClientsLeave() {
  const int clients = ConnectedClients();
  if (clients == 0 || options_.stop_seconds <= 0) {
    RequestShutdown("SIGTERM");
    return;
  }
  spdlog::info("SIGTERM: serving {} trainer/sampler connection(s) until they leave (at most {} s; "
               "network.stop_seconds); SIGINT or another SIGTERM stops at once",
               clients, options_.stop_seconds);
  // A second signal: stop now.
  signals_->async_wait([this](const boost::system::error_code& ec, int sig) {
    if (!ec) RequestShutdown(sig == SIGTERM ? "a second SIGTERM" : "SIGINT");
  });
  stop_timer_ = std::make_unique<asio::steady_timer>(io_);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(options_.stop_seconds));
  PollClientsLeft(deadline);
}

void GraphServer::PollClientsLeft(std::chrono::steady_clock::time_point deadline) {
  if (stopping_) return;
  const int clients = ConnectedClients();
  if (clients == 0) {
    RequestShutdown("SIGTERM; every trainer and sampler has left");
    return;
  }
  if (std::chrono::steady_clock::now() >= deadline) {
    RequestShutdown("SIGTERM; network.stop_seconds passed with " + std::to_string(clients) +
                    " trainer/sampler connection(s) still open");
    return;
  }
  stop_timer_->expires_after(std::chrono::milliseconds(100));
  stop_timer_->async_wait([this, deadline](const boost::system::error_code& ec) {
    if (!ec) PollClientsLeft(deadline);
  });
}

}  // namespace dg
