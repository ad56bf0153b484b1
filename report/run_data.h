// RunData: what a run directory says about its run, for the report.
//
// Reads RUN_DIR/metrics.jsonl (per epoch, written by trainer 0: with a
// feature cache its hits, and the trainer's bytes per message type),
// trainer-R.json (per trainer: epoch times, per-step split), logs/*.log
// ("peak RSS X MB" and "bytes by message: ..." lines of every process), run.json (written by launch / train-local: how the run was
// started, the partition json, the job YAML copied to job.yaml) and the
// partition json's statistics (edge cut, halo, balance). Anything missing is
// simply absent; only an unreadable metrics.jsonl line is an error.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "common/net/message_bytes.h"

namespace dg {

// Per-step milliseconds, in this order: sample gather transfer forward backward optimizer allreduce wait.
inline const std::vector<std::string>& StepPhases() {
  static const std::vector<std::string> k{"sample", "gather", "transfer", "forward", "backward", "optimizer",
                                          "allreduce", "wait"};
  return k;
}

struct EpochRow {
  int epoch = 0;
  double loss = 0, train_acc = -1, val_acc = -1, test_acc = -1;  // -1 = not evaluated
  double seconds = 0, wait_fraction = 0;
  long steps = 0, seeds = 0;
  std::map<std::string, double> step_ms;
  // The feature cache's counts in the epoch (train.feature_cache_mb); rows < 0: no cache.
  long cache_rows = -1;
  double cache_mb = 0, cache_hit_rate = 0, cache_bytes_saved = 0;
  long cache_hits = 0, cache_misses = 0;
};

struct TrainerRow {
  int rank = 0;
  long steps = 0;
  std::vector<double> epoch_seconds;
  double wait_fraction = 0;
  std::map<std::string, double> step_ms;
};

struct ProcessRss {
  std::string process;  // log file name without .log, e.g. "0-server-0"
  double mb = 0;
};

// A process's bytes per message type over its life (its last
// "bytes by message:" log line).
struct ProcessMessageBytes {
  std::string process;  // log file name without .log
  std::vector<MessageByteCount> counts;
};

struct PartRow {
  int part = 0;
  long nodes = 0, edges = 0, train = 0, halo = 0;
};

struct PartitionStats {
  std::string path, graph_name, method;
  long num_nodes = 0, num_edges = 0, edge_cut = -1;
  std::vector<PartRow> parts;
};

// One automatic restart of a launched job (run.json's "restarts", written by
// roles/launcher/restart.h).
struct RestartRow {
  std::string when, failure;
  double wait_seconds = 0;
  int64_t reached_step = -1, resumed_step = -1, steps_redone = -1;  // -1 unknown
};

struct RunData {
  std::string run_dir;
  std::vector<EpochRow> epochs;
  bool has_final = false;
  int best_epoch = 0;
  double best_val_acc = -1, final_test_acc = -1;
  // How the kept model was chosen (train.select_by) and the last evaluation
  // beside it; "" / -1 in runs that did not write them.
  std::string select_by;
  int last_evaluated_epoch = -1;
  double last_test_acc = -1;
  std::vector<TrainerRow> trainers;
  std::vector<ProcessRss> rss;
  std::vector<ProcessMessageBytes> message_bytes;
  std::map<std::string, std::string> run_info;  // run.json's string fields
  std::vector<RestartRow> restarts;             // run.json's "restarts"
  std::string config_text;                      // job.yaml (launch) or the command line (train-local)
  bool has_partition = false;
  PartitionStats partition;
};

Result<RunData> LoadRunData(const std::string& run_dir);

// Writes RUN_DIR/run.json ({"kind", "started", ...} from `fields`) and, when
// config_text is not empty, RUN_DIR/job.yaml.
Status WriteRunInfo(const std::string& run_dir, const std::map<std::string, std::string>& fields,
                    const std::string& config_text);

}  // namespace dg
