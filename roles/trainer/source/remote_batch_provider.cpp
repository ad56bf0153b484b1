#include "roles/trainer/source/remote_batch_provider.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>

#include "common/sampling/minibatch_codec.h"

namespace dg {

using Clock = std::chrono::steady_clock;

RemoteBatchProvider::RemoteBatchProvider(RemoteProviderOptions options)
    : options_(std::move(options)) {
  slots_.resize(std::max(1, options_.num_samplers));
}

Result<std::unique_ptr<RemoteBatchProvider>> RemoteBatchProvider::Listen(
    const RemoteProviderOptions& options) {
  if (options.num_samplers < 1) return Status::InvalidArgument("a trainer needs >= 1 sampler here");
  std::unique_ptr<RemoteBatchProvider> p(new RemoteBatchProvider(options));
  boost::system::error_code ec;
  auto addr = asio::ip::make_address(options.host, ec);
  if (ec)
    return Status::InvalidArgument("trainer address '" + options.host +
                                   "' is not an IP address (the config must name the address to bind)");
  tcp::endpoint ep(addr, static_cast<uint16_t>(options.port));
  const std::string where = options.host + ":" + std::to_string(options.port);
  p->acceptor_ = std::make_unique<tcp::acceptor>(p->io_);
  p->acceptor_->open(ep.protocol(), ec);
  if (!ec) p->acceptor_->set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) p->acceptor_->bind(ep, ec);
  if (ec) return Status::IOError("trainer " + std::to_string(options.trainer_rank) + ": bind " + where +
                                 ": " + std::strerror(ec.value()));
  p->acceptor_->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Status::IOError("listen on " + where + ": " + std::strerror(ec.value()));
  p->port_ = p->acceptor_->local_endpoint().port();
  p->work_ = std::make_unique<asio::executor_work_guard<asio::io_context::executor_type>>(p->io_.get_executor());
  p->Accept();
  p->io_thread_ = std::thread([raw = p.get()] { raw->io_.run(); });
  return p;
}

RemoteBatchProvider::~RemoteBatchProvider() {
  asio::post(io_, [this] {
    boost::system::error_code ec;
    acceptor_->close(ec);
  });
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& s : slots_)
      if (s.conn) s.conn->Close(Status::OK());
    for (auto& c : handshaking_) c->Close(Status::OK());
  }
  // Give queued frames (SHUTDOWN) a moment to leave before the loop stops.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  work_.reset();
  io_.stop();
  if (io_thread_.joinable()) io_thread_.join();
}

void RemoteBatchProvider::Accept() {
  acceptor_->async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
    if (ec) {
      if (ec != asio::error::operation_aborted) {
        spdlog::warn("accept on {}:{} failed: {}", options_.host, port_, ec.message());
        Accept();
      }
      return;
    }
    boost::system::error_code e2;
    auto rep = socket.remote_endpoint(e2);
    std::string remote = e2 ? "?" : rep.address().to_string() + ":" + std::to_string(rep.port());
    auto conn = std::make_shared<Connection>(std::move(socket), options_.connection, "client " + remote);
    {
      std::lock_guard<std::mutex> lock(mu_);
      handshaking_.push_back(conn);
    }
    // The slot is unknown until the authenticated HELLO names the sampler.
    auto slot = std::make_shared<std::atomic<int>>(-1);
    auto handshake = std::make_shared<HandshakeAcceptor>(options_.graph_name, options_.token);
    std::weak_ptr<Connection> weak = conn;
    conn->Start(
        [this, weak, remote, slot, handshake](Frame f) {
          if (*slot >= 0) return OnFrame(*slot, std::move(f));
          if (auto c = weak.lock()) *slot = OnHello(c, remote, *handshake, std::move(f));
        },
        [this, slot](const Status& why) {
          if (*slot >= 0) OnClose(*slot, why);
        });
    Accept();
  });
}

// First frame of an accepted connection: must be a sampler of this trainer.
// Returns its slot, or -1 when refused.
int RemoteBatchProvider::OnHello(const std::shared_ptr<Connection>& conn, const std::string& remote,
                                 HandshakeAcceptor& handshake, Frame f) {
  auto reject = [&](const Status& st) {
    spdlog::warn("refused {}: {}", remote, st.message());
    conn->SendError(f.header.request_id, st, /*close_after=*/true);
    return -1;
  };
  BufferList challenge;
  auto step = handshake.OnFrame(f.header.type, f.data, f.size, &challenge);
  if (!step.ok()) return reject(step.status());
  if (*step == HandshakeAcceptor::Step::kReply) {
    conn->Send(MsgType::kChallenge, 0, 0, std::move(challenge));
    return -1;
  }
  const Hello* hello = &handshake.hello();
  const int k = hello->rank - options_.first_sampler_rank;
  const std::string me = "trainer " + std::to_string(options_.trainer_rank);
  if (hello->role != kRoleSampler)
    return reject(Status::InvalidArgument(me + " accepts only samplers, not a " + hello->role));
  if (k < 0 || k >= options_.num_samplers)
    return reject(Status::InvalidArgument(
        me + " serves samplers " + std::to_string(options_.first_sampler_rank) + ".." +
        std::to_string(options_.first_sampler_rank + options_.num_samplers - 1) + ", not sampler " +
        std::to_string(hello->rank) + " (check the config's processes and --index)"));
  {
    std::lock_guard<std::mutex> lock(mu_);
    handshaking_.erase(std::remove(handshaking_.begin(), handshaking_.end(), conn), handshaking_.end());
    if (slots_[k].conn)
      return reject(Status::AlreadyExists("sampler " + std::to_string(hello->rank) +
                                          " is already connected to " + me));
    slots_[k].conn = conn;
    slots_[k].name = "sampler " + std::to_string(hello->rank) + " (" + remote + ")";
    ++connected_;
  }
  conn->set_peer(slots_[k].name);
  Welcome w;
  w.role = kRoleTrainer;
  w.rank = options_.trainer_rank;
  w.graph_name = options_.graph_name;
  conn->Send(MsgType::kWelcome, 0, 0, handshake.EncodeWelcome(w));
  cv_.notify_all();
  spdlog::info("{} connected", slots_[k].name);
  return k;
}

void RemoteBatchProvider::OnFrame(int k, Frame f) {
  std::lock_guard<std::mutex> lock(mu_);
  Slot& s = slots_[k];
  if (f.header.request_id != seq_) return;  // a frame of an abandoned epoch
  switch (f.type()) {
    case MsgType::kMinibatch:
      s.batches.push_back(std::move(f));
      s.arrivals.push_back(MonotonicSeconds());
      break;
    case MsgType::kEndOfEpoch:
      break;
    case MsgType::kError:
      if (s.error.ok()) s.error = DecodeErrorFrame(f, s.name);
      break;
    default:
      if (s.error.ok())
        s.error = Status::Protocol(s.name + " sent unexpected message type " + std::to_string(f.header.type));
      break;
  }
  cv_.notify_all();
}

void RemoteBatchProvider::OnClose(int k, const Status& why) {
  std::lock_guard<std::mutex> lock(mu_);
  Slot& s = slots_[k];
  if (s.error.ok() && !shut_down_) {
    s.error = why.ok() ? Status::PeerLost(s.name + " closed the connection")
                       : why.WithContext("lost " + s.name);
  }
  cv_.notify_all();
}

Status RemoteBatchProvider::FirstError() {
  for (const Slot& s : slots_)
    if (!s.error.ok()) return s.error;
  return Status::OK();
}

Status RemoteBatchProvider::WaitForSamplers() {
  std::unique_lock<std::mutex> lock(mu_);
  const auto deadline = Clock::now() + std::chrono::milliseconds(int64_t(options_.connect_wait_seconds * 1000));
  cv_.wait_until(lock, deadline, [&] { return connected_ == options_.num_samplers || !FirstError().ok(); });
  DG_RETURN_IF_ERROR(FirstError());
  if (connected_ < options_.num_samplers) {
    std::string missing;
    for (int k = 0; k < options_.num_samplers; ++k)
      if (!slots_[k].conn) missing += (missing.empty() ? "" : ", ") + std::to_string(options_.first_sampler_rank + k);
    return Status::Timeout("trainer " + std::to_string(options_.trainer_rank) + ": sampler(s) " + missing +
                           " did not connect to " + options_.host + ":" + std::to_string(port_) + " within " +
                           std::to_string(static_cast<int>(options_.connect_wait_seconds)) + " s");
  }
  return Status::OK();
}

void RemoteBatchProvider::SetInput(const BatchInput& input) {
  std::lock_guard<std::mutex> lock(mu_);
  input_ = input;
}

Status RemoteBatchProvider::BeginEpoch(const EpochRequest& request) {
  if (request.batch_size <= 0)
    return Status::InvalidArgument("batch size must be > 0, got " + std::to_string(request.batch_size));
  std::lock_guard<std::mutex> lock(mu_);
  DG_RETURN_IF_ERROR(FirstError());
  ++seq_;
  num_batches_ = NumBatches(static_cast<int64_t>(request.seeds.size()), request.batch_size);
  next_ = 0;
  const int K = options_.num_samplers;
  for (int k = 0; k < K; ++k) {
    slots_[k].batches.clear();
    slots_[k].arrivals.clear();
    EpochRequest share = request;
    share.batch_offset = k;
    share.batch_stride = K;
    slots_[k].conn->Send(MsgType::kEpoch, 0, seq_, EncodeEpoch(share, options_.credits, input_));
  }
  return Status::OK();
}

Result<bool> RemoteBatchProvider::Next(MiniBatch* out) {
  Frame f;
  int k;
  double arrival = 0;
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (next_ >= num_batches_) return false;
    k = static_cast<int>(next_ % options_.num_samplers);
    const auto deadline = Clock::now() + std::chrono::milliseconds(int64_t(options_.batch_timeout_seconds * 1000));
    cv_.wait_until(lock, deadline, [&] { return !slots_[k].batches.empty() || !FirstError().ok(); });
    DG_RETURN_IF_ERROR(FirstError());
    if (slots_[k].batches.empty())
      return Status::Timeout(slots_[k].name + " sent no batch " + std::to_string(next_) + " within " +
                             std::to_string(static_cast<int>(options_.batch_timeout_seconds)) + " s");
    f = std::move(slots_[k].batches.front());
    slots_[k].batches.pop_front();
    arrival = slots_[k].arrivals.front();
    slots_[k].arrivals.pop_front();
    slots_[k].conn->Send(MsgType::kCredit, 0, seq_, EncodeCredit(1));
  }
  Status st = DecodeMiniBatch(f, out, arrival);
  if (!st.ok()) return st.WithContext(slots_[k].name);
  if (out->batch_index != next_)
    return Status::Protocol(slots_[k].name + " sent batch " + std::to_string(out->batch_index) +
                            " where batch " + std::to_string(next_) + " was due");
  ++next_;
  return true;
}

void RemoteBatchProvider::Shutdown(const Status& why) {
  std::lock_guard<std::mutex> lock(mu_);
  shut_down_ = true;
  for (auto& s : slots_) {
    if (!s.conn) continue;
    if (why.ok() || why.code() == Status::Code::kStopped) {
      s.conn->Send(MsgType::kShutdown, 0, seq_, BufferList(), /*close_after=*/true);
    } else {
      s.conn->SendError(seq_, Status::PeerLost("stopped the job: " + why.message()), /*close_after=*/true);
    }
  }
}

}  // namespace dg
