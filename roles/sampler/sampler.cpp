#include "roles/sampler/sampler.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "common/client/block_input.h"
#include "common/sampling/batch_provider.h"
#include "common/sampling/minibatch_codec.h"

namespace dg {
namespace {

using Clock = std::chrono::steady_clock;

// Frames from the trainer, handed from the connection's strand to Run().
class Inbox {
 public:
  void Push(Frame f) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      frames_.push_back(std::move(f));
    }
    cv_.notify_all();
  }
  void Lose(const Status& why) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      lost_ = true;
      why_ = why;
    }
    cv_.notify_all();
  }
  // Waits for a frame if `block`; false when none is queued (and, if block,
  // the connection is gone).
  bool Pop(bool block, Frame* out, Status* lost) {
    std::unique_lock<std::mutex> lock(mu_);
    if (block) cv_.wait(lock, [&] { return !frames_.empty() || lost_; });
    if (!frames_.empty()) {
      *out = std::move(frames_.front());
      frames_.pop_front();
      return true;
    }
    if (lost_) *lost = why_.ok() ? Status::PeerLost("connection closed") : why_;
    return false;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Frame> frames_;
  bool lost_ = false;
  Status why_;
};

// The maker of the node batches an EPOCH asks for: sampled and pulled
// (PULL), or the input path trainer threads take (BlockInputProvider) with
// the EPOCH's BatchInput.
class NodeBatchMakers {
 public:
  NodeBatchMakers(NeighborSource* source, const SamplerOptions& o)
      : source_(source), o_(o), pull_(source, o.workers, o.prefetch, o.feature_name) {}

  Result<BatchProvider*> For(const BatchInput& input) {
    if (!input.pulls_blocks() || o_.feature_name.empty()) return static_cast<BatchProvider*>(&pull_);
    if (!o_.client)
      return Status::InvalidArgument("EPOCH asks for input rows by PULL_BLOCK, but this sampler reads no servers");
    if (!block_ || input.aggregate != block_options_.aggregate || input.wire != block_options_.wire) {
      block_.reset();  // its workers joined before another starts
      block_options_ = BlockInputOptions();
      block_options_.feature_name = o_.feature_name;
      block_options_.aggregate = input.aggregate;
      block_options_.wire = input.wire;
      // Two batch makers at least: one's PULL_BLOCKs wait on the network while the other sums.
      block_ = std::make_unique<BlockInputProvider>(o_.client, source_, block_options_, std::max(2, o_.workers),
                                                    o_.prefetch);
    }
    return static_cast<BatchProvider*>(block_.get());
  }

 private:
  NeighborSource* source_;
  const SamplerOptions& o_;
  LocalBatchProvider pull_;
  BlockInputOptions block_options_;
  std::unique_ptr<BlockInputProvider> block_;
};

}  // namespace

Sampler::Sampler(NeighborSource* source, SamplerOptions options)
    : source_(source), options_(std::move(options)) {}

Status Sampler::Run() {
  const SamplerOptions& o = options_;
  asio::io_context io;
  auto work = asio::make_work_guard(io);
  std::thread io_thread([&] { io.run(); });
  struct Joiner {
    asio::io_context& io;
    std::thread& t;
    decltype(work)& w;
    ~Joiner() {
      w.reset();
      io.stop();
      t.join();
    }
  } joiner{io, io_thread, work};

  auto inbox = std::make_shared<Inbox>();
  // Dial until the trainer listens (it may start after us).
  std::shared_ptr<Connection> conn;
  const auto deadline = Clock::now() + std::chrono::milliseconds(int64_t(o.connect_wait_seconds * 1000));
  bool said = false;
  while (true) {
    auto dial = DialAndHello(
        io, o.trainer_host, o.trainer_port, o.hello, o.connection, 10, o.trainer_name,
        [inbox](Frame f) { inbox->Push(std::move(f)); },
        [inbox](const Status& why) { inbox->Lose(why); });
    if (dial.ok()) {
      conn = dial->connection;
      break;
    }
    if (dial.status().code() != Status::Code::kIOError || Clock::now() > deadline) return dial.status();
    if (!said) spdlog::info("waiting for {}: {}", o.trainer_name, dial.status().message());
    said = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  spdlog::info("connected to {}", o.trainer_name);

  NodeBatchMakers node_batches(source_, o);
  BatchProvider* provider = nullptr;  // the epoch's: node_batches' or o.link_provider for link epochs
  WireDType rows = WireDType::kFloat32;  // of the MINIBATCH's input rows
  bool active = false;  // an epoch is being produced
  uint64_t seq = 0;     // the trainer's epoch sequence number
  int64_t epoch = 0, sent = 0;
  uint32_t credits = 0;

  auto fail = [&](Status st) {
    conn->Close(st);
    return st;
  };
  while (true) {
    // Handle whatever the trainer sent; block only when there is nothing to produce.
    Frame f;
    Status lost;
    while (inbox->Pop(/*block=*/!(active && credits > 0), &f, &lost)) {
      switch (f.type()) {
        case MsgType::kEpoch: {
          EpochRequest req;
          uint32_t c = 0;
          BatchInput input;
          Status st = DecodeEpoch(f, &req, &c, &input);
          if (st.ok() && req.link && !o.link_provider)
            st = Status::InvalidArgument("EPOCH asks for link batches, but this sampler's job is not train.task link");
          if (st.ok()) {
            auto chosen = req.link ? Result<BatchProvider*>(o.link_provider) : node_batches.For(input);
            st = chosen.status();
            if (st.ok()) provider = *chosen;
            if (st.ok()) st = provider->BeginEpoch(req);
          }
          rows = req.link ? WireDType::kFloat32 : input.wire;
          if (!st.ok()) {
            conn->SendError(f.header.request_id, st);
            return fail(st);
          }
          seq = f.header.request_id;
          epoch = req.epoch;
          credits = c;
          sent = 0;
          active = true;
          break;
        }
        case MsgType::kCredit: {
          auto n = DecodeCredit(f);
          if (!n.ok()) return fail(n.status());
          if (f.header.request_id == seq) credits += *n;
          break;
        }
        case MsgType::kShutdown:
          spdlog::info("{} is done; exiting", o.trainer_name);
          conn->Close(Status::OK());
          return Status::OK();
        case MsgType::kError:
          return fail(DecodeErrorFrame(f, o.trainer_name));
        default:
          return fail(Status::Protocol(o.trainer_name + " sent unexpected message type " +
                                       std::to_string(f.header.type)));
      }
      if (active && credits > 0) break;  // go produce; later frames wait
    }
    if (!lost.ok()) {
      return lost.WithContext("lost " + o.trainer_name);
    }
    if (!(active && credits > 0)) continue;

    MiniBatch mb;
    auto more = provider->Next(&mb);
    if (!more.ok()) {
      spdlog::error("epoch {}: {}", epoch, more.status().ToString());
      conn->SendError(seq, more.status(), /*close_after=*/true);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));  // let the ERROR go out
      return more.status();
    }
    if (*more) {
      mb.send_time = MonotonicSeconds();
      const int64_t num_seeds = static_cast<int64_t>(mb.seeds.size());
      const double sample_seconds = mb.sample_seconds, gather_seconds = mb.gather_seconds;
      BufferList payload = EncodeMiniBatch(std::move(mb), rows);  // the batch's arrays move into the frame
      if (SamplerCounters* c = o.counters) {
        c->epoch = epoch;
        c->batches += 1;
        c->seeds += num_seeds;
        c->bytes_sent += static_cast<int64_t>(payload.size());
        c->credits = credits - 1;
        c->sample_seconds = c->sample_seconds + sample_seconds;
        c->gather_seconds = c->gather_seconds + gather_seconds;
      }
      conn->Send(MsgType::kMinibatch, 0, seq, std::move(payload));
      --credits;
      ++sent;
    } else {
      conn->Send(MsgType::kEndOfEpoch, 0, seq, EncodeEndOfEpoch(epoch, sent));
      active = false;
    }
  }
}

}  // namespace dg
