// RemoteBatchProvider: a trainer's mini-batches from its sampler processes.
//
// Listen() binds the trainer's port (the address the config names); the
// trainer's samplers dial it (HELLO role "sampler", rank = the sampler's global
// index, which must lie in [first_sampler_rank, first_sampler_rank + K)) and
// WaitForSamplers() returns once all K are connected. BeginEpoch sends each
// sampler k an EPOCH with its share (batches k, k+K, ...) and `credits`; Next()
// hands out the batches in batch-index order and returns one credit to the
// sampler that made each. A sampler that is lost (socket closed, silent beyond
// the peer timeout) or reports an ERROR makes Next() fail at once with a
// message naming it. Shutdown() tells every sampler the trainer is done.
// Every EPOCH carries the input path the trainer chose (SetInput): the
// samplers fill node batches' input rows as trainer threads would.
// Torch-free.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/sampling/batch_provider.h"
#include "common/sampling/minibatch_codec.h"
#include "common/net/connection.h"

namespace dg {

struct RemoteProviderOptions {
  std::string host;                  // bind address (machines[m].host)
  int port = 0;                      // 0 = any (tests)
  int trainer_rank = 0;
  std::string graph_name, token;     // what samplers' HELLOs must carry
  int first_sampler_rank = 0;
  int num_samplers = 1;
  uint32_t credits = 4;              // batches a sampler may send ahead
  ConnectionOptions connection;
  double connect_wait_seconds = 120; // for all samplers to connect (network.connect_wait_seconds)
  double batch_timeout_seconds = 600;// no batch from a live sampler for this long = error
};

class RemoteBatchProvider : public BatchProvider {
 public:
  static Result<std::unique_ptr<RemoteBatchProvider>> Listen(const RemoteProviderOptions& options);
  ~RemoteBatchProvider() override;

  int port() const { return port_; }
  Status WaitForSamplers();
  // How the samplers fill the input rows of node batches from the next EPOCH
  // on (default: PULL, float32); roles/trainer/source/input_choice.h chooses it.
  void SetInput(const BatchInput& input);
  Status BeginEpoch(const EpochRequest& request) override;
  Result<bool> Next(MiniBatch* out) override;
  // SHUTDOWN to every connected sampler (they exit 0), then close. With a
  // failed `why` (the trainer is giving up), an ERROR carrying it instead:
  // the samplers exit non-zero naming this trainer and the reason.
  void Shutdown(const Status& why = Status::OK());

 private:
  struct Slot {
    std::shared_ptr<Connection> conn;
    std::string name;            // "sampler 3 (127.0.0.1:40312)"
    std::deque<Frame> batches;   // MINIBATCH frames of the current epoch, in order
    std::deque<double> arrivals; // their arrival times (MonotonicSeconds)
    Status error;                // lost or reported an error
  };
  explicit RemoteBatchProvider(RemoteProviderOptions options);
  void Accept();
  int OnHello(const std::shared_ptr<Connection>& conn, const std::string& remote, HandshakeAcceptor& handshake,
              Frame f);
  void OnFrame(int slot, Frame f);
  void OnClose(int slot, const Status& why);
  Status FirstError();  // requires mu_

  RemoteProviderOptions options_;
  asio::io_context io_;
  std::unique_ptr<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  std::unique_ptr<tcp::acceptor> acceptor_;
  std::thread io_thread_;
  int port_ = 0;

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Slot> slots_;
  std::vector<std::shared_ptr<Connection>> handshaking_;
  int connected_ = 0;
  uint64_t seq_ = 0;         // epoch sequence number (request id of its frames)
  BatchInput input_;
  int64_t num_batches_ = 0, next_ = 0;
  bool shut_down_ = false;
};

}  // namespace dg
