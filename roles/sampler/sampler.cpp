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

// The maker of the node batches an EPOCH asks for (MakeNodeBatchMaker, with
// the EPOCH's BatchInput), kept while the EPOCHs ask for the same input.
class NodeBatchMakers {
 public:
  NodeBatchMakers(NeighborSource* source, const SamplerOptions& o) : source_(source), o_(o) {}

  Result<BatchProvider*> For(const BatchInput& input) {
    if (input.pulls_blocks() && !o_.feature_name.empty() && !o_.client)
      return Status::InvalidArgument("EPOCH asks for input rows by PULL_BLOCK, but this sampler reads no servers");
    if (!maker_ || input.aggregate != input_.aggregate || input.wire != input_.wire) {
      maker_.reset();  // its workers joined before another starts
      input_ = input;
      maker_ = MakeNodeBatchMaker(o_.client, source_, input, o_.feature_name, o_.workers, o_.prefetch);
    }
    return maker_.get();
  }

 private:
  NeighborSource* source_;
  const SamplerOptions& o_;
  BatchInput input_;
  std::unique_ptr<BatchProvider> maker_;
};

// Dials the trainer until it listens (it may start after the sampler), for
// connect_wait_seconds; frames and the loss of the connection go to `inbox`.
Result<std::shared_ptr<Connection>> DialTrainer(asio::io_context& io, const SamplerOptions& o,
                                                const std::shared_ptr<Inbox>& inbox) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(int64_t(o.connect_wait_seconds * 1000));
  bool said = false;
  while (true) {
    auto dial = DialAndHello(
        io, o.trainer_host, o.trainer_port, o.hello, o.connection, 10, o.trainer_name,
        [inbox](Frame f) { inbox->Push(std::move(f)); }, [inbox](const Status& why) { inbox->Lose(why); });
    if (dial.ok()) return dial->connection;
    if (dial.status().code() != Status::Code::kIOError || Clock::now() > deadline) return dial.status();
    if (!said) spdlog::info("waiting for {}: {}", o.trainer_name, dial.status().message());
    said = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

// The stream of batches to one trainer: the epoch being produced, its
// sequence number (the trainer's EPOCH request id) and the credits left.
class BatchStream {
 public:
  BatchStream(std::shared_ptr<Connection> conn, NeighborSource* source, const SamplerOptions& o)
      : conn_(std::move(conn)), o_(o), node_batches_(source, o) {}

  // Handles whatever the trainer sent, blocking only when there is nothing to
  // produce. *done: the trainer said SHUTDOWN.
  Status HandleFrames(Inbox* inbox, bool* done) {
    Frame f;
    Status lost;
    while (inbox->Pop(/*block=*/!ready(), &f, &lost)) {
      switch (f.type()) {
        case MsgType::kEpoch: DG_RETURN_IF_ERROR(StartEpoch(f)); break;
        case MsgType::kCredit: {
          auto n = DecodeCredit(f);
          if (!n.ok()) return Fail(n.status());
          if (f.header.request_id == seq_) credits_ += *n;
          break;
        }
        case MsgType::kShutdown:
          spdlog::info("{} is done; exiting", o_.trainer_name);
          conn_->Close(Status::OK());
          *done = true;
          return Status::OK();
        case MsgType::kError: return Fail(DecodeErrorFrame(f, o_.trainer_name));
        default:
          return Fail(Status::Protocol(o_.trainer_name + " sent unexpected message type " +
                                       std::to_string(f.header.type)));
      }
      if (ready()) break;  // go produce; later frames wait
    }
    if (!lost.ok()) return lost.WithContext("lost " + o_.trainer_name);
    return Status::OK();
  }

  bool ready() const { return active_ && credits_ > 0; }

  // Sends the epoch's next batch, or its END_OF_EPOCH when there is none.
  Status SendNext() {
    MiniBatch mb;
    auto more = provider_->Next(&mb);
    if (!more.ok()) {
      spdlog::error("epoch {}: {}", epoch_, more.status().ToString());
      conn_->SendError(seq_, more.status(), /*close_after=*/true);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));  // let the ERROR go out
      return more.status();
    }
    if (!*more) {
      conn_->Send(MsgType::kEndOfEpoch, 0, seq_, EncodeEndOfEpoch(epoch_, sent_));
      active_ = false;
      return Status::OK();
    }
    mb.send_time = MonotonicSeconds();
    const int64_t num_seeds = static_cast<int64_t>(mb.seeds.size());
    const double sample_seconds = mb.sample_seconds, gather_seconds = mb.gather_seconds;
    BufferList payload = EncodeMiniBatch(std::move(mb), rows_);  // the batch's arrays move into the frame
    if (SamplerCounters* c = o_.counters) {
      c->epoch = epoch_;
      c->batches += 1;
      c->seeds += num_seeds;
      c->bytes_sent += static_cast<int64_t>(payload.size());
      c->credits = credits_ - 1;
      c->sample_seconds = c->sample_seconds + sample_seconds;
      c->gather_seconds = c->gather_seconds + gather_seconds;
    }
    conn_->Send(MsgType::kMinibatch, 0, seq_, std::move(payload));
    --credits_;
    ++sent_;
    return Status::OK();
  }

 private:
  Status Fail(Status st) {
    conn_->Close(st);
    return st;
  }

  // An EPOCH: its batch maker (node batches as its BatchInput says, or the
  // job's link batches) starts the epoch; an error goes back to the trainer.
  Status StartEpoch(const Frame& f) {
    EpochRequest req;
    uint32_t c = 0;
    BatchInput input;
    Status st = DecodeEpoch(f, &req, &c, &input);
    if (st.ok() && req.link && !o_.link_provider)
      st = Status::InvalidArgument("EPOCH asks for link batches, but this sampler's job is not train.task link");
    if (st.ok()) {
      auto chosen = req.link ? Result<BatchProvider*>(o_.link_provider) : node_batches_.For(input);
      st = chosen.status();
      if (st.ok()) provider_ = *chosen;
      if (st.ok()) st = provider_->BeginEpoch(req);
    }
    rows_ = req.link ? WireDType::kFloat32 : input.wire;
    if (!st.ok()) {
      conn_->SendError(f.header.request_id, st);
      return Fail(st);
    }
    seq_ = f.header.request_id;
    epoch_ = req.epoch;
    credits_ = c;
    sent_ = 0;
    active_ = true;
    return Status::OK();
  }

  std::shared_ptr<Connection> conn_;
  const SamplerOptions& o_;
  NodeBatchMakers node_batches_;
  BatchProvider* provider_ = nullptr;       // the epoch's: node_batches_' or o_.link_provider
  WireDType rows_ = WireDType::kFloat32;    // of the MINIBATCH's input rows
  bool active_ = false;                     // an epoch is being produced
  uint64_t seq_ = 0;                        // the trainer's epoch sequence number
  int64_t epoch_ = 0, sent_ = 0;
  uint32_t credits_ = 0;
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
  DG_ASSIGN_OR_RETURN(std::shared_ptr<Connection> conn, DialTrainer(io, o, inbox));
  spdlog::info("connected to {}", o.trainer_name);
  if (o.counters) o.counters->connected = true;
  BatchStream stream(conn, source_, o);
  while (true) {
    bool done = false;
    DG_RETURN_IF_ERROR(stream.HandleFrames(inbox.get(), &done));
    if (done) return Status::OK();
    if (stream.ready()) DG_RETURN_IF_ERROR(stream.SendNext());
  }
}

}  // namespace dg
