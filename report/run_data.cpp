#include "report/run_data.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "common/io/json_writer.h"

namespace dg {
namespace fs = std::filesystem;
namespace {

double Num(const YAML::Node& n, double fallback = -1) {
  if (!n || n.IsNull() || !n.IsScalar()) return fallback;
  try {
    return n.as<double>();
  } catch (const YAML::Exception&) {
    return fallback;
  }
}

std::map<std::string, double> StepMs(const YAML::Node& n) {
  std::map<std::string, double> out;
  if (!n || !n.IsMap()) return out;
  for (const auto& k : StepPhases()) out[k] = Num(n[k], 0);
  return out;
}

std::string ReadText(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

void LoadPartition(const std::string& path, RunData* d) {
  try {
    YAML::Node r = YAML::LoadFile(path);
    PartitionStats& p = d->partition;
    p.path = path;
    p.graph_name = r["graph_name"] ? r["graph_name"].as<std::string>() : "";
    p.method = r["part_method"] ? r["part_method"].as<std::string>() : "";
    p.num_nodes = static_cast<long>(Num(r["num_nodes"], 0));
    p.num_edges = static_cast<long>(Num(r["num_edges"], 0));
    p.edge_cut = static_cast<long>(Num(r["edge_cut"], -1));
    int i = 0;
    for (const auto& part : r["parts"]) {
      PartRow row;
      row.part = i++;
      row.nodes = static_cast<long>(Num(part["num_nodes"], 0));
      row.edges = static_cast<long>(Num(part["num_edges"], 0));
      row.train = static_cast<long>(Num(part["num_train"], 0));
      row.halo = static_cast<long>(Num(part["num_halo"], 0));
      p.parts.push_back(row);
    }
    d->has_partition = true;
  } catch (const YAML::Exception&) {
    // no statistics
  }
}

EpochRow ReadEpochLine(const YAML::Node& n) {
  EpochRow e;
  e.epoch = static_cast<int>(Num(n["epoch"], 0));
  e.loss = Num(n["loss"], 0);
  e.train_acc = Num(n["train_acc"]);
  e.val_acc = Num(n["val_acc"]);
  e.test_acc = Num(n["test_acc"]);
  e.seconds = Num(n["epoch_seconds"], 0);
  e.wait_fraction = Num(n["wait_fraction"], 0);
  e.steps = static_cast<long>(Num(n["steps"], 0));
  e.seeds = static_cast<long>(Num(n["seeds"], 0));
  e.step_ms = StepMs(n["step_ms"]);
  if (const YAML::Node c = n["feature_cache"]) {
    e.cache_rows = static_cast<long>(Num(c["rows"], 0));
    e.cache_mb = Num(c["mb"], 0);
    e.cache_hits = static_cast<long>(Num(c["hits"], 0));
    e.cache_misses = static_cast<long>(Num(c["misses"], 0));
    e.cache_hit_rate = Num(c["hit_rate"], 0);
    e.cache_bytes_saved = Num(c["bytes_saved"], 0);
  }
  return e;
}

// metrics.jsonl: one EpochRow per epoch line, and the final line.
Status ReadMetrics(const std::string& run_dir, RunData* d) {
  std::ifstream metrics(run_dir + "/metrics.jsonl");
  int lineno = 0;
  for (std::string line; std::getline(metrics, line);) {
    ++lineno;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    YAML::Node n;
    try {
      n = YAML::Load(line);
    } catch (const YAML::Exception& e) {
      return Status::Corruption(run_dir + "/metrics.jsonl:" + std::to_string(lineno) + ": " + e.what());
    }
    if (n["final"]) {
      d->has_final = true;
      d->best_epoch = static_cast<int>(Num(n["best_epoch"], 0));
      d->best_val_acc = Num(n["best_val_acc"]);
      d->final_test_acc = Num(n["test_acc"]);
      if (n["select_by"]) d->select_by = n["select_by"].as<std::string>();
      d->last_evaluated_epoch = static_cast<int>(Num(n["last_evaluated_epoch"], -1));
      d->last_test_acc = Num(n["last_test_acc"]);
      continue;
    }
    d->epochs.push_back(ReadEpochLine(n));
  }
  return Status::OK();
}

// trainer-R.json summaries, by rank.
void ReadTrainers(const std::string& run_dir, RunData* d_ptr) {
  RunData& d = *d_ptr;
  std::error_code ec;
  std::vector<std::string> trainer_files;
  for (const auto& f : fs::directory_iterator(run_dir, ec)) {
    const std::string name = f.path().filename().string();
    if (name.rfind("trainer-", 0) == 0 && f.path().extension() == ".json") trainer_files.push_back(f.path().string());
  }
  for (const auto& path : trainer_files) {
    try {
      YAML::Node n = YAML::LoadFile(path);
      TrainerRow t;
      t.rank = static_cast<int>(Num(n["rank"], 0));
      t.steps = static_cast<long>(Num(n["steps"], 0));
      for (const auto& s : n["epoch_seconds"]) t.epoch_seconds.push_back(Num(s, 0));
      t.wait_fraction = Num(n["wait_fraction"], 0);
      t.step_ms = StepMs(n["step_ms"]);
      d.trainers.push_back(std::move(t));
    } catch (const YAML::Exception&) {
      // a half-written summary: skip it
    }
  }
  std::sort(d.trainers.begin(), d.trainers.end(), [](const auto& a, const auto& b) { return a.rank < b.rank; });
}

// logs/*.log: each process's peak RSS and bytes per message type.
void ReadLogs(const std::string& run_dir, RunData* d_ptr) {
  RunData& d = *d_ptr;
  std::error_code ec;
  const std::regex rss_re("peak RSS ([0-9.]+) MB");
  std::vector<std::string> logs;
  for (const auto& f : fs::directory_iterator(run_dir + "/logs", ec))
    if (f.path().extension() == ".log") logs.push_back(f.path().string());
  std::sort(logs.begin(), logs.end());
  for (const auto& path : logs) {
    std::ifstream f(path);
    double mb = -1;
    ProcessMessageBytes bytes;
    bool has_bytes = false;
    for (std::string line; std::getline(f, line);) {
      std::smatch m;
      if (line.find("peak RSS") != std::string::npos && std::regex_search(line, m, rss_re))
        mb = std::max(mb, std::atof(m[1].str().c_str()));
      std::vector<MessageByteCount> counts;
      if (ParseMessageBytesLogLine(line, &counts)) {
        bytes.counts = std::move(counts);
        has_bytes = true;
      }
    }
    if (mb >= 0) d.rss.push_back({fs::path(path).stem().string(), mb});
    if (has_bytes) {
      bytes.process = fs::path(path).stem().string();
      d.message_bytes.push_back(std::move(bytes));
    }
  }
}

// run.json: its scalar fields and the restarts.
void ReadRunInfo(const std::string& run_dir, RunData* d_ptr) {
  RunData& d = *d_ptr;
  try {
    if (fs::exists(run_dir + "/run.json")) {
      YAML::Node n = YAML::LoadFile(run_dir + "/run.json");
      for (const auto& kv : n)
        if (kv.second.IsScalar()) d.run_info[kv.first.as<std::string>()] = kv.second.as<std::string>();
      for (const auto& r : n["restarts"]) {
        RestartRow row;
        row.when = r["when"].as<std::string>("");
        row.failure = r["failure"].as<std::string>("");
        row.wait_seconds = r["wait_seconds"].as<double>(0);
        row.reached_step = r["reached_step"].as<int64_t>(-1);
        row.resumed_step = r["resumed_step"].as<int64_t>(-1);
        row.steps_redone = r["steps_redone"].as<int64_t>(-1);
        d.restarts.push_back(row);
      }
    }
  } catch (const YAML::Exception&) {
  }
}

}  // namespace

Result<RunData> LoadRunData(const std::string& run_dir) {
  RunData d;
  d.run_dir = run_dir;
  if (!fs::is_directory(run_dir)) return Status::NotFound(run_dir + ": no such run directory");
  DG_RETURN_IF_ERROR(ReadMetrics(run_dir, &d));
  ReadTrainers(run_dir, &d);
  ReadLogs(run_dir, &d);
  ReadRunInfo(run_dir, &d);
  if (fs::exists(run_dir + "/job.yaml")) d.config_text = ReadText(run_dir + "/job.yaml");
  else if (d.run_info.count("command")) d.config_text = d.run_info["command"];
  if (d.run_info.count("partition") && !d.run_info["partition"].empty()) LoadPartition(d.run_info["partition"], &d);
  return d;
}

Status WriteRunInfo(const std::string& run_dir, const std::map<std::string, std::string>& fields,
                    const std::string& config_text) {
  std::error_code ec;
  fs::create_directories(run_dir, ec);
  if (ec) return Status::IOError("cannot create " + run_dir + ": " + ec.message());
  std::time_t now = std::time(nullptr);
  char when[64];
  std::strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  std::ostringstream s;
  s << "{\"started\": " << JsonQuote(when);
  for (const auto& [k, v] : fields) s << ", " << JsonQuote(k) << ": " << JsonQuote(v);
  s << "}\n";
  std::ofstream f(run_dir + "/run.json");
  f << s.str();
  if (!f) return Status::IOError("write " + run_dir + "/run.json failed");
  if (!config_text.empty()) {
    std::ofstream y(run_dir + "/job.yaml");
    y << config_text;
    if (!y) return Status::IOError("write " + run_dir + "/job.yaml failed");
  }
  return Status::OK();
}

}  // namespace dg
