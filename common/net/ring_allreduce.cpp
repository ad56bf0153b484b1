#include "common/net/ring_allreduce.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstring>

namespace dg {
namespace {

using Clock = std::chrono::steady_clock;

Clock::duration Seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

size_t ElementBytes(RingDType t) { return t == RingDType::kFloat64 || t == RingDType::kInt64 ? 8 : 4; }

template <typename T>
void AddInto(void* dst, const uint8_t* src, size_t count) {
  T* d = static_cast<T*>(dst);
  for (size_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, src + i * sizeof(T), sizeof(T));
    d[i] += v;
  }
}

void Add(RingDType t, void* dst, const uint8_t* src, size_t count) {
  switch (t) {
    case RingDType::kFloat32: return AddInto<float>(dst, src, count);
    case RingDType::kFloat64: return AddInto<double>(dst, src, count);
    case RingDType::kInt32: return AddInto<int32_t>(dst, src, count);
    case RingDType::kInt64: return AddInto<int64_t>(dst, src, count);
  }
}

std::string TrainerName(int rank, const RingOptions& o) {
  return "trainer " + std::to_string(rank) + " (" + o.hosts[rank] + ":" + std::to_string(o.port_base + rank) + ")";
}

}  // namespace

RingAllReduce::RingAllReduce(RingOptions options) : o_(std::move(options)) {
  const int n = o_.world_size;
  left_name_ = TrainerName((o_.rank + n - 1) % n, o_);
  right_name_ = TrainerName((o_.rank + 1) % n, o_);
}

RingAllReduce::~RingAllReduce() {
  // The last pieces this rank sent may still be queued: let them leave first
  // (the right neighbour may still be waiting for them).
  const auto deadline = Clock::now() + Seconds(std::min(10.0, o_.timeout_seconds));
  while (right_ && !right_->closed() && right_->queued_bytes() > 0 && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  asio::post(io_, [this] {
    boost::system::error_code ec;
    if (acceptor_) acceptor_->close(ec);
  });
  if (right_) right_->Close(Status::OK());
  {
    std::lock_guard<std::mutex> l(mu_);
    if (left_) left_->Close(Status::OK());
  }
  work_.reset();
  io_.stop();
  if (io_thread_.joinable()) io_thread_.join();
}

Result<std::unique_ptr<RingAllReduce>> RingAllReduce::Connect(const RingOptions& options) {
  if (options.world_size < 2 || options.rank < 0 || options.rank >= options.world_size ||
      static_cast<int>(options.hosts.size()) != options.world_size) {
    return Status::InvalidArgument("ring all-reduce: rank " + std::to_string(options.rank) + " of " +
                                   std::to_string(options.world_size) + " with " +
                                   std::to_string(options.hosts.size()) + " hosts");
  }
  std::unique_ptr<RingAllReduce> ring(new RingAllReduce(options));
  DG_RETURN_IF_ERROR(ring->Listen());
  ring->work_ = std::make_unique<asio::executor_work_guard<asio::io_context::executor_type>>(ring->io_.get_executor());
  ring->Accept();
  ring->io_thread_ = std::thread([raw = ring.get()] { raw->io_.run(); });
  DG_RETURN_IF_ERROR(ring->DialRight());
  DG_RETURN_IF_ERROR(ring->WaitForLeft());
  spdlog::info("gradient ring: trainer {} of {} connected ({} -> me -> {}), {}", options.rank, options.world_size,
               ring->left_name_, ring->right_name_, ring->right_->is_tls() ? "TLS" : "plain TCP");
  return ring;
}

Status RingAllReduce::Listen() {
  const std::string& host = o_.hosts[o_.rank];
  const int port = o_.port_base + o_.rank;
  const std::string where = host + ":" + std::to_string(port);
  boost::system::error_code ec;
  auto addr = asio::ip::make_address(host, ec);
  if (ec) return Status::InvalidArgument("trainer address '" + host + "' is not an IP address");
  tcp::endpoint ep(addr, static_cast<uint16_t>(port));
  acceptor_ = std::make_unique<tcp::acceptor>(io_);
  acceptor_->open(ep.protocol(), ec);
  if (!ec) acceptor_->set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_->bind(ep, ec);
  if (!ec) acceptor_->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Status::IOError("gradient ring: trainer " + std::to_string(o_.rank) + ": listen on " + where + ": " +
                                 ec.message() + " (ports.rendezvous + rank must be free)");
  return Status::OK();
}

void RingAllReduce::Accept() {
  acceptor_->async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
    if (ec) return;  // closed
    auto conn = std::make_shared<Connection>(std::move(socket), o_.connection, "a trainer ring peer");
    auto hs = std::make_shared<HandshakeAcceptor>(o_.graph_name, o_.token);
    std::weak_ptr<Connection> weak = conn;
    conn->Start(
        [this, weak, hs](Frame f) {
          if (auto c = weak.lock()) OnLeftFrame(c, hs, std::move(f));
        },
        [this, weak](const Status& why) {
          std::lock_guard<std::mutex> l(mu_);
          if (left_ && left_ == weak.lock()) {
            left_gone_ = true;
            left_lost_ = why.ok() ? Status::PeerLost(left_name_ + " closed the gradient ring") : why;
            cv_.notify_all();
          }
        });
    Accept();
  });
}

// Runs on the connection's strand: the handshake, then every GRAD_CHUNK into the inbox.
void RingAllReduce::OnLeftFrame(const std::shared_ptr<Connection>& conn, const std::shared_ptr<HandshakeAcceptor>& hs,
                                Frame f) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (left_ == conn) {
      if (f.type() != MsgType::kGradChunk) {
        left_gone_ = true;
        left_lost_ = Status::Protocol(left_name_ + " sent " + MsgTypeName(f.header.type) + " in the gradient ring");
      } else {
        inbox_.push_back(std::move(f));
      }
      cv_.notify_all();
      return;
    }
  }
  BufferList reply;
  auto step = hs->OnFrame(f.header.type, f.data, f.size, &reply);
  if (!step.ok()) return conn->SendError(0, step.status(), true);
  if (*step == HandshakeAcceptor::Step::kReply) return conn->Send(MsgType::kChallenge, 0, 0, std::move(reply));
  const int left = (o_.rank + o_.world_size - 1) % o_.world_size;
  const Hello& hello = hs->hello();
  if (hello.role != kRoleTrainer || hello.rank != left) {
    return conn->SendError(0, Status::InvalidArgument("trainer " + std::to_string(o_.rank) + "'s gradient ring accepts "
                                                      "trainer " + std::to_string(left) + " only, not " + hello.role +
                                                      " " + std::to_string(hello.rank)), true);
  }
  std::lock_guard<std::mutex> l(mu_);
  if (left_) return conn->SendError(0, Status::AlreadyExists(left_name_ + " is already connected"), true);
  left_ = conn;
  conn->set_peer(left_name_);
  Welcome w;
  w.role = kRoleTrainer;
  w.rank = o_.rank;
  w.graph_name = o_.graph_name;
  conn->Send(MsgType::kWelcome, 0, 0, hs->EncodeWelcome(w));
  cv_.notify_all();
}

Status RingAllReduce::DialRight() {
  const int right = (o_.rank + 1) % o_.world_size;
  Hello hello;
  hello.role = kRoleTrainer;
  hello.rank = o_.rank;
  hello.graph_name = o_.graph_name;
  hello.token = o_.token;
  const auto deadline = Clock::now() + Seconds(o_.connect_timeout_seconds);
  while (true) {
    auto dialed = DialAndHello(io_, o_.hosts[right], o_.port_base + right, hello, o_.connection,
                               std::min(10.0, o_.connect_timeout_seconds), right_name_, [](Frame) {}, nullptr);
    if (dialed.ok()) {
      right_ = dialed->connection;
      return Status::OK();
    }
    // Refused: the neighbour is not listening yet. Anything else is final.
    if (dialed.status().code() != Status::Code::kIOError || Clock::now() > deadline) {
      return Status::PeerLost("gradient ring: trainer " + std::to_string(o_.rank) + " could not reach " + right_name_ +
                              ": " + dialed.status().message());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

Status RingAllReduce::WaitForLeft() {
  std::unique_lock<std::mutex> l(mu_);
  if (!cv_.wait_for(l, Seconds(o_.connect_timeout_seconds), [this] { return left_ != nullptr; })) {
    return Status::Timeout("gradient ring: trainer " + std::to_string(o_.rank) + ": " + left_name_ +
                           " did not connect within " + std::to_string(o_.connect_timeout_seconds) + " s");
  }
  return Status::OK();
}

Status RingAllReduce::Send(const uint8_t* data, size_t bytes) {
  if (right_->closed()) return Status::PeerLost("gradient ring: the connection to " + right_name_ + " is closed");
  Encoder e;
  e.Bytes(data, bytes);
  right_->Send(MsgType::kGradChunk, 0, send_seq_++, e.Finish());
  return Status::OK();
}

Result<Frame> RingAllReduce::Receive(size_t bytes) {
  std::unique_lock<std::mutex> l(mu_);
  const bool got = cv_.wait_for(l, Seconds(o_.timeout_seconds), [this] { return !inbox_.empty() || left_gone_; });
  if (!inbox_.empty()) {
    Frame f = std::move(inbox_.front());
    inbox_.pop_front();
    const uint64_t seq = recv_seq_++;
    if (f.header.request_id != seq || f.size != bytes) {
      return Status::Protocol("gradient ring: " + left_name_ + " sent piece " + std::to_string(f.header.request_id) +
                              " of " + std::to_string(f.size) + " bytes, expected piece " + std::to_string(seq) +
                              " of " + std::to_string(bytes));
    }
    return f;
  }
  if (left_gone_) return left_lost_;
  (void)got;
  return Status::Timeout("gradient ring: nothing from " + left_name_ + " for " +
                         std::to_string(o_.timeout_seconds) + " s (frozen or unreachable)");
}

Status RingAllReduce::Sum(void* data, size_t count, RingDType dtype) {
  const int n = o_.world_size, r = o_.rank;
  const size_t es = ElementBytes(dtype);
  auto begin = [&](int chunk) { return count * size_t(chunk) / size_t(n); };
  auto* base = static_cast<uint8_t*>(data);
  // Reduce-scatter: after step s, chunk (r - s - 1) holds the sum of s + 2 ranks.
  for (int s = 0; s < n - 1; ++s) {
    const int send = ((r - s) % n + n) % n, recv = ((r - s - 1) % n + n) % n;
    DG_RETURN_IF_ERROR(Send(base + begin(send) * es, (begin(send + 1) - begin(send)) * es));
    DG_ASSIGN_OR_RETURN(Frame f, Receive((begin(recv + 1) - begin(recv)) * es));
    Add(dtype, base + begin(recv) * es, f.data, begin(recv + 1) - begin(recv));
  }
  // All-gather: chunk (r + 1) is complete here; pass the complete chunks on.
  for (int s = 0; s < n - 1; ++s) {
    const int send = ((r + 1 - s) % n + n) % n, recv = ((r - s) % n + n) % n;
    DG_RETURN_IF_ERROR(Send(base + begin(send) * es, (begin(send + 1) - begin(send)) * es));
    DG_ASSIGN_OR_RETURN(Frame f, Receive((begin(recv + 1) - begin(recv)) * es));
    std::memcpy(base + begin(recv) * es, f.data, (begin(recv + 1) - begin(recv)) * es);
  }
  return Status::OK();
}

Status RingAllReduce::Broadcast(void* data, size_t bytes) {
  auto* base = static_cast<uint8_t*>(data);
  if (o_.rank != 0) {
    DG_ASSIGN_OR_RETURN(Frame f, Receive(bytes));
    std::memcpy(base, f.data, bytes);
  }
  if (o_.rank != o_.world_size - 1) DG_RETURN_IF_ERROR(Send(base, bytes));
  return Status::OK();
}

}  // namespace dg
