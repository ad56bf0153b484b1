#include "roles/server/graph_server.h"
#include "roles/server/server_session.h"
#include "roles/server/role_policy.h"
#include "common/storage/aggregate_index.h"

#include <spdlog/spdlog.h>

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <new>

namespace dg {

int64_t DefaultMutableTensorBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return int64_t(4) << 30;
  return static_cast<int64_t>(pages) * page / 2;
}

Result<std::unique_ptr<GraphServer>> GraphServer::Create(const ServerOptions& options) {
  std::unique_ptr<GraphServer> s(new GraphServer());
  s->options_ = options;
  if (s->options_.threads <= 0) s->options_.threads = std::max(1u, std::thread::hardware_concurrency());
  DG_ASSIGN_OR_RETURN(s->config_, LoadAnyPartitionConfig(options.partition_config));  // typed ones too
  if (options.part < 0 || options.part >= s->config_.num_parts) {
    return Status::InvalidArgument("partition " + std::to_string(options.part) + " does not exist: " +
                                   options.partition_config + " has " +
                                   std::to_string(s->config_.num_parts) + " partitions");
  }
  DG_ASSIGN_OR_RETURN(LocalPartition part, OpenLocalPartition(s->config_, options.part));
  DG_RETURN_IF_ERROR(ValidatePartitionStructure(part, s->config_.PartDir(options.part)));
  s->store_ = std::make_unique<PartitionStore>(s->config_, std::move(part), options.index == 0);
  if (s->options_.limits.mutable_tensor_bytes < 0) s->options_.limits.mutable_tensor_bytes = DefaultMutableTensorBytes();
  s->store_->set_mutable_budget(s->options_.limits.mutable_tensor_bytes);
  int per_conn = s->options_.limits.max_threads_per_connection;
  if (per_conn <= 0) per_conn = std::max(1, s->options_.threads - 1);
  s->scheduler_ = std::make_unique<FairScheduler>(per_conn);
  s->part_dir_ = s->config_.PartDir(options.part);
  {
    DG_ASSIGN_OR_RETURN(AggregateIndex agg, AggregateIndex::Open(s->part_dir_, s->config_.num_nodes,
                                                                 s->store_->partition().num_owned()));
    s->aggregate_index_ = std::make_shared<const AggregateIndex>(std::move(agg));
  }
  if (s->store_->holds_mutable()) {
    std::vector<std::string> loaded;
    DG_RETURN_IF_ERROR(s->store_->LoadPersistent(s->part_dir_, &loaded));
    for (const std::string& name : loaded) {
      spdlog::info("loaded persistent tensor '{}' from {}/tensors/{}.npy", name, s->part_dir_, name);
    }
  }

  boost::system::error_code ec;
  auto addr = asio::ip::make_address(options.host, ec);
  if (ec) {
    return Status::InvalidArgument("server address '" + options.host +
                                   "' is not an IP address (the config must name the address to bind)");
  }
  tcp::endpoint ep(addr, static_cast<uint16_t>(options.port));
  std::string where = options.host + ":" + std::to_string(options.port);
  s->acceptor_ = std::make_unique<tcp::acceptor>(s->io_);
  s->acceptor_->open(ep.protocol(), ec);
  if (!ec) s->acceptor_->set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) s->acceptor_->bind(ep, ec);
  if (ec) return Status::IOError("bind " + where + ": " + std::strerror(ec.value()));
  s->acceptor_->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Status::IOError("listen on " + where + ": " + std::strerror(ec.value()));
  s->port_ = s->acceptor_->local_endpoint().port();
  s->MakeHandlerContext();
  return s;
}

void GraphServer::MakeHandlerContext() {
  pending_ = std::make_unique<PendingSlots>(options_.limits.max_pending);
  barriers_ = std::make_unique<Barriers>(pending_.get());
  SparseSteps::Limits limits;
  limits.max_pending_bytes = options_.limits.max_pending_bytes;
  limits.peer_timeout_seconds = options_.connection.peer_timeout_seconds;
  sparse_steps_ = std::make_unique<SparseSteps>(
      io_, limits, pending_.get(),
      [store = store_.get()](const std::string& name, const SparseOptimizerSpec& optimizer, uint64_t step,
                             const std::vector<SparseGrad>& grads) {
        return store->SparseUpdate(name, optimizer, step, grads);
      });
  context_.reset(new ServerContext{options_, config_, *store_, *aggregate_index_, part_dir_, *barriers_, *sparse_steps_,
                                   [this] { return MakeStats(); },
                                   [this](const std::string& why) { RequestShutdown(why); }});
}

GraphServer::~GraphServer() = default;

Status GraphServer::Run(bool handle_signals) {
  started_ = std::chrono::steady_clock::now();
  if (handle_signals) {
    signals_ = std::make_unique<asio::signal_set>(io_, SIGINT, SIGTERM);
    signals_->async_wait([this](const boost::system::error_code& ec, int sig) {
      if (ec) return;
      if (sig == SIGTERM) {
        StopWhenClientsLeave();  // stop_hold.cpp
      } else {
        RequestShutdown("SIGINT");
      }
    });
  }
  front_door_ = std::make_unique<FrontDoor>(io_, options_.limits.max_handshaking_connections,
                                            options_.limits.handshake_timeout_seconds);
  front_door_->Start();
  Accept();
  spdlog::info("serving partition {} of '{}' ({} nodes [{}, {}), {} edges) as server index {} on {}:{} with {} threads",
               options_.part, config_.graph_name, store_->partition().num_owned(), store_->node_begin(),
               store_->node_end(), store_->partition().num_edges(), options_.index, options_.host, port_,
               options_.threads);
  std::vector<std::thread> pool;
  for (int i = 1; i < options_.threads; ++i) pool.emplace_back([this] { io_.run(); });
  io_.run();
  for (auto& t : pool) t.join();
  Status saved = SavePersistentTensors();
  spdlog::info("server stopped");
  return saved;
}

// After the io threads have stopped: nothing else touches the store.
Status GraphServer::SavePersistentTensors() {
  if (!store_->holds_mutable()) return Status::OK();
  std::vector<std::string> saved;
  Status st = store_->SavePersistent(part_dir_, &saved);
  if (!st.ok()) {
    spdlog::error("saving persistent tensors failed: {}", st.ToString());
    return st;
  }
  for (const std::string& name : saved) spdlog::info("saved persistent tensor '{}' to {}/tensors", name, part_dir_);
  return Status::OK();
}

void GraphServer::Accept() {
  acceptor_->async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
    if (ec) {
      if (ec != asio::error::operation_aborted && !stopping_) {
        spdlog::warn("accept on {}:{} failed: {}", options_.host, port_, ec.message());
        Accept();
      }
      return;
    }
    if (stopping_) return;
    ConnectionOptions co = options_.connection;
    // One full reply may wait; then this connection is neither read nor
    // given pool threads until its client reads (FairScheduler readiness).
    co.max_queued_bytes = options_.connection.max_frame_bytes;
    co.on_drained = [this] {
      if (scheduler_->Wake()) PostRunToken();
    };
    auto session = std::make_shared<Session>();
    boost::system::error_code e2;
    auto rep = socket.remote_endpoint(e2);
    session->remote = e2 ? "?" : rep.address().to_string() + ":" + std::to_string(rep.port());
    session->conn = std::make_shared<Connection>(std::move(socket), co, "client " + session->remote);
    {
      std::lock_guard<std::mutex> l(mu_);
      if (authenticated_ >= options_.limits.max_connections) {
        spdlog::warn("refusing a connection from {}: {} connections already open (limits.max_connections)",
                     session->remote, authenticated_);
        session->conn->SendError(0, Status::ResourceExhausted("this server already has " +
                                                              std::to_string(authenticated_) +
                                                              " connections open (limits.max_connections)"),
                                 /*close_after=*/true);
        Accept();
        return;
      }
      sessions_[session.get()] = session;
      ++total_connections_;
    }
    // Into the front door before the first read: with several io threads the
    // handshake can finish (and Leave run) before the line after Start would,
    // and a connection entered after its Leave is closed at its deadline.
    front_door_->Arrive(session->conn);  // may close the oldest connection still in its handshake
    std::weak_ptr<Session> weak = session;
    session->conn->Start(
        [this, weak](Frame f) {
          if (auto s = weak.lock()) OnFrame(s, std::move(f));
        },
        [this, weak](const Status& why) {
          auto s = weak.lock();
          if (!s) return;
          if (!why.ok()) spdlog::info("connection from {} closed: {}", s->conn->peer(), why.message());
          front_door_->Leave(s->conn.get());
          {
            std::lock_guard<std::mutex> l(mu_);
            sessions_.erase(s.get());
            if (s->ready) --authenticated_;
          }
          if (scheduler_->Wake()) PostRunToken();  // its queued jobs may run (and fail) now
        });
    Accept();
  });
}

void GraphServer::Reject(const std::shared_ptr<Session>& s, uint64_t id, uint16_t type, const Status& st,
                         bool close_after) {
  spdlog::warn("{} from {}: {}", MsgTypeName(type), s->conn->peer(), st.message());
  s->conn->SendError(id, st, close_after);
}

// Frames before authentication: HELLO (answered with CHALLENGE), then AUTH
// (answered with WELCOME). Anything else, or a failed check, closes.
void GraphServer::OnHello(const std::shared_ptr<Session>& s, const Frame& f) {
  if (!s->handshake) s->handshake = std::make_unique<HandshakeAcceptor>(config_.graph_name, options_.token);
  BufferList reply;
  auto step = s->handshake->OnFrame(f.header.type, f.data, f.size, &reply);
  if (!step.ok()) {
    Reject(s, f.header.type == uint16_t(MsgType::kHello) || f.header.type == uint16_t(MsgType::kAuth)
                  ? 0 : f.header.request_id,
           f.header.type, step.status(), true);
    return;
  }
  if (*step == HandshakeAcceptor::Step::kReply) {
    s->conn->Send(MsgType::kChallenge, 0, 0, std::move(reply));
    return;
  }
  int64_t open_before = 0;
  {
    std::lock_guard<std::mutex> l(mu_);
    open_before = authenticated_;
    if (open_before < options_.limits.max_connections) ++authenticated_;
  }
  if (open_before >= options_.limits.max_connections) {
    Reject(s, 0, f.header.type, Status::ResourceExhausted("this server already has " + std::to_string(open_before) +
                                                          " connections open (limits.max_connections)"), true);
    return;
  }
  front_door_->Leave(s->conn.get());
  const Hello& hello = s->handshake->hello();
  s->role = hello.role;
  s->rank = hello.rank;
  s->conn->set_peer(hello.role + " " + std::to_string(hello.rank) + " at " + s->remote);
  s->ready = true;
  Welcome w;
  w.role = kRoleServer;
  w.rank = options_.part;
  w.index = options_.index;
  w.graph_name = config_.graph_name;
  s->conn->Send(MsgType::kWelcome, 0, 0, s->handshake->EncodeWelcome(w));
  s->handshake.reset();
  spdlog::debug("handshake with {}", s->conn->peer());
}

// Runs on the connection's strand: cheap checks only; real work goes to the pool.
void GraphServer::OnFrame(const std::shared_ptr<Session>& s, Frame f) {
  if (!s->ready) {
    OnHello(s, f);
    return;
  }
  const uint16_t type = f.header.type;
  const uint64_t id = f.header.request_id;
  const HandlerEntry* entry = FindHandler(type);
  if (f.header.is_response() || entry == nullptr) {
    Status st = !IsKnownMsgType(type)
                    ? Status::Protocol("unknown message type " + std::to_string(type))
                    : Status::Protocol("unexpected " + MsgTypeName(type) +
                                       (f.header.is_response() ? " response" : "") + " sent to a graph server");
    stats_.Record(type, true, f.size, 0, 0);
    Reject(s, id, type, st);
    return;
  }
  if (Status allowed = CheckRoleAllows(s->role, s->rank, type, entry->access); !allowed.ok()) {
    stats_.Record(type, true, f.size, 0, 0);
    Reject(s, id, type, allowed);
    return;
  }
  if (stopping_) {
    Reject(s, id, type, Status::PeerLost("server is shutting down"));
    return;
  }
  if (entry->run_on == RunOn::kStrand) {
    Dispatch(s, f);
    return;
  }
  const int64_t bytes = static_cast<int64_t>(f.size);
  if (queued_request_bytes_.fetch_add(bytes) + bytes > options_.limits.max_queued_request_bytes) {
    queued_request_bytes_ -= bytes;
    stats_.Record(type, true, f.size, 0, 0);
    Reject(s, id, type,
           Status::ResourceExhausted(MsgTypeName(type) + " of " + std::to_string(bytes) +
                                     " bytes refused: requests of " + std::to_string(queued_request_bytes_.load()) +
                                     " bytes already wait here (limits.max_queued_request_bytes); retry later"));
    return;
  }
  ++inflight_;
  if (++s->inflight >= options_.max_inflight_per_connection) {
    s->paused = true;
    s->conn->PauseReading();
  }
  // Fair order: round-robin over connections, each capped at
  // max_threads_per_connection pool threads (roles/server/fair_scheduler.h).
  std::weak_ptr<Connection> conn = s->conn;
  scheduler_->Push(
      s.get(), [this, s, f = std::move(f)]() mutable { Execute(s, std::move(f)); },
      [conn] {
        auto c = conn.lock();
        return !c || c->closed() || !c->backpressured();
      });
  PostRunToken();
}

void GraphServer::PostRunToken() {
  asio::post(io_, [this] {
    if (scheduler_->TakeAndRun()) PostRunToken();
  });
}

void GraphServer::Execute(const std::shared_ptr<Session>& s, Frame f) {
  Dispatch(s, f);
  queued_request_bytes_ -= static_cast<int64_t>(f.size);
  if (--s->inflight < options_.max_inflight_per_connection && s->paused.exchange(false)) {
    s->conn->ResumeReading();
  }
  --inflight_;
}

void GraphServer::Dispatch(const std::shared_ptr<Session>& s, const Frame& f) {
  auto t0 = std::chrono::steady_clock::now();
  const uint16_t type = f.header.type;
  Result<Answer> r = Status::Internal("not handled");
  try {
    r = Handle(Call{f, s->conn});
  } catch (const std::bad_alloc&) {
    r = Status::ResourceExhausted(MsgTypeName(type) + ": out of memory");
  } catch (const std::length_error& e) {
    r = Status::ResourceExhausted(MsgTypeName(type) + ": request too large (" + e.what() + ")");
  } catch (const std::exception& e) {
    r = Status::Internal(MsgTypeName(type) + ": " + e.what());
  }
  uint64_t out_bytes = 0;
  if (!r.ok()) {
    Reject(s, f.header.request_id, type, r.status());
  } else if (r->has_value()) {  // else answered later by the handler
    out_bytes = (*r)->size();
    s->conn->Send(static_cast<MsgType>(type), kFlagResponse, f.header.request_id, std::move(**r));
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  stats_.Record(type, !r.ok(), f.size + kFrameHeaderSize, out_bytes + kFrameHeaderSize, secs);
}

// The table lookup: OnFrame has checked the type and the sender's role.
Result<Answer> GraphServer::Handle(const Call& call) {
  const HandlerEntry* entry = FindHandler(call.frame.header.type);
  if (entry == nullptr) return Status::Internal("no handler for " + MsgTypeName(call.frame.header.type));
  return entry->handle(*context_, call);
}

StatsReply GraphServer::MakeStats() const {
  StatsReply r;
  r.part_id = options_.part;
  r.server_index = options_.index;
  r.uptime_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  r.connections = total_connections_;
  r.types = stats_.Snapshot();
  return r;
}

void GraphServer::RequestShutdown(const std::string& why) {
  if (stopping_.exchange(true)) return;
  spdlog::info("shutting down ({}): no new connections, finishing {} in-flight requests", why, inflight_.load());
  asio::post(io_, [this] {
    boost::system::error_code ec;
    acceptor_->close(ec);
    front_door_->Stop();
    if (signals_) signals_->cancel(ec);
    drain_timer_ = std::make_unique<asio::steady_timer>(io_);
    Drain(std::chrono::steady_clock::now(), false);
  });
}

// Polls until in-flight requests are done, then flushes and closes every
// connection, then stops the io_context.
void GraphServer::Drain(std::chrono::steady_clock::time_point started, bool closing) {
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!closing) {
    if (inflight_ > 0 && waited < options_.drain_seconds) {
      drain_timer_->expires_after(std::chrono::milliseconds(5));
      drain_timer_->async_wait([this, started](const boost::system::error_code&) { Drain(started, false); });
      return;
    }
    std::vector<std::shared_ptr<Session>> sessions;
    {
      std::lock_guard<std::mutex> l(mu_);
      for (auto& [k, s] : sessions_) sessions.push_back(s);
    }
    barriers_->Close();  // waiting BARRIERs and SPARSE_UPDATE steps fail with PeerLost
    sparse_steps_->Close();
    // An empty heartbeat with close_after: the connection closes once
    // everything queued before it (replies, errors) has been written.
    for (auto& s : sessions) s->conn->Send(MsgType::kHeartbeat, 0, 0, BufferList(), /*close_after=*/true);
    started = std::chrono::steady_clock::now();
    closing = true;
  }
  bool empty;
  {
    std::lock_guard<std::mutex> l(mu_);
    empty = sessions_.empty();
  }
  waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!empty && waited < 3.0) {
    drain_timer_->expires_after(std::chrono::milliseconds(5));
    drain_timer_->async_wait([this, started](const boost::system::error_code&) { Drain(started, true); });
    return;
  }
  std::vector<std::shared_ptr<Session>> left;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (auto& [k, s] : sessions_) left.push_back(s);
  }
  for (auto& s : left) s->conn->Close(Status::OK());
  io_.stop();
}

}  // namespace dg
