// LoadJobConfig: the job YAML schema in code. Every key is read through a
// Checker (yaml_checker.h) that knows the file, the key path and the node's
// line, so every error reads "FILE:LINE: key 'train.fanouts[1]': expected ...,
// got ..."; --set overrides (yaml_overrides.h) are applied to the tree first.
#include "config/job_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <thread>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <cerrno>
#include <map>
#include <set>

#include "common/storage/link_split.h"
#include "config/partition_summary.h"
#include "config/slurm_allocation.h"
#include "config/train_yaml.h"
#include "config/tls_yaml.h"
#include "config/yaml_checker.h"
#include "config/yaml_overrides.h"

namespace dg {

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kTopKeys = {"job",       "partition", "token",  "machines",
                                           "ports",     "processes", "train",  "output_dir",
                                           "network",   "limits",    "restart", "verify_checksums",
                                           "scheduler", "tls"};
const std::vector<std::string> kMachineKeys = {"host",      "ssh",    "ssh_port",   "ssh_key",
                                               "workspace", "binary", "ssh_options", "tls_dir"};
const std::vector<std::string> kPortKeys = {"server", "trainer", "rendezvous", "metrics"};
const std::vector<std::string> kProcessKeys = {"servers", "trainers", "samplers_per_trainer"};
const std::vector<std::string> kRestartKeys = {"max", "wait_seconds"};
const std::vector<std::string> kNetworkKeys = {"max_frame_bytes", "heartbeat_seconds", "peer_timeout_seconds",
                                               "rendezvous_timeout_seconds", "connect_wait_seconds", "stop_seconds"};

const std::vector<std::string> kLimitKeys = {"mutable_tensor_bytes", "max_fanout", "max_pending_bytes",
                                             "max_pending", "max_threads_per_connection",
                                             "max_queued_request_bytes", "max_connections",
                                             "max_aggregate_edges", "max_handshaking_connections",
                                             "handshake_timeout_seconds"};

Status LoadLimits(const Checker& c, const YAML::Node& n, LimitsConfig* l) {
  DG_RETURN_IF_ERROR(c.Map(n, "limits"));
  DG_RETURN_IF_ERROR(c.CheckKeys(n, "limits", kLimitKeys));
  if (n["mutable_tensor_bytes"])
    DG_RETURN_IF_ERROR(c.Int(n["mutable_tensor_bytes"], "limits.mutable_tensor_bytes", 0, INT64_MAX,
                             &l->mutable_tensor_bytes));
  if (n["max_fanout"]) DG_RETURN_IF_ERROR(c.Int(n["max_fanout"], "limits.max_fanout", 1, INT64_MAX, &l->max_fanout));
  if (n["max_pending_bytes"])
    DG_RETURN_IF_ERROR(c.Int(n["max_pending_bytes"], "limits.max_pending_bytes", 0, INT64_MAX, &l->max_pending_bytes));
  if (n["max_pending"]) DG_RETURN_IF_ERROR(c.Int(n["max_pending"], "limits.max_pending", 1, 1 << 24, &l->max_pending));
  if (n["max_threads_per_connection"])
    DG_RETURN_IF_ERROR(c.Int(n["max_threads_per_connection"], "limits.max_threads_per_connection", 0, 1024,
                             &l->max_threads_per_connection));
  if (n["max_queued_request_bytes"])
    DG_RETURN_IF_ERROR(c.Int(n["max_queued_request_bytes"], "limits.max_queued_request_bytes", 4096, INT64_MAX,
                             &l->max_queued_request_bytes));
  if (n["max_connections"])
    DG_RETURN_IF_ERROR(c.Int(n["max_connections"], "limits.max_connections", 1, 1 << 20, &l->max_connections));
  if (n["max_handshaking_connections"])
    DG_RETURN_IF_ERROR(c.Int(n["max_handshaking_connections"], "limits.max_handshaking_connections", 1, 1 << 20,
                             &l->max_handshaking_connections));
  if (n["handshake_timeout_seconds"])
    DG_RETURN_IF_ERROR(c.Double(n["handshake_timeout_seconds"], "limits.handshake_timeout_seconds", 0, true, 3600,
                                &l->handshake_timeout_seconds));
  if (n["max_aggregate_edges"])
    DG_RETURN_IF_ERROR(c.Int(n["max_aggregate_edges"], "limits.max_aggregate_edges", 1, INT64_MAX,
                             &l->max_aggregate_edges));
  return Status::OK();
}

Status ExpectFile(const Checker& c, const YAML::Node& n, const std::string& key, const std::string& resolved,
                  const std::string& what) {
  std::error_code ec;
  if (!fs::is_regular_file(resolved, ec))
    return c.Err(n, key, what + " '" + resolved + "' does not exist (paths are relative to the config file)");
  return Status::OK();
}

// `machines: {from: slurm}`: the nodes of the allocation (slurm_allocation.h).
Status LoadSlurmMachines(const Checker& c, const YAML::Node& n, JobConfig* cfg) {
  DG_RETURN_IF_ERROR(c.CheckKeys(n, "machines", {"from"}));
  std::string from;
  DG_RETURN_IF_ERROR(c.String(n["from"], "machines.from", true, &from));
  if (from != "slurm")
    return c.Err(n["from"], "machines.from", "expected slurm (the nodes of the Slurm allocation), got '" + from + "'");
  auto machines = SlurmAllocationMachines();
  if (!machines.ok()) return c.Err(n["from"], "machines.from", machines.status().message());
  cfg->machines = std::move(*machines);
  cfg->machine_source = MachineSource::kSlurm;
  cfg->scheduler = Scheduler::kSlurm;
  return Status::OK();
}

Status LoadMachines(const Checker& c, const YAML::Node& seq, const std::string& base_dir, JobConfig* cfg) {
  if (seq.IsMap() && seq["from"]) return LoadSlurmMachines(c, seq, cfg);
  if (!seq.IsSequence() || seq.size() == 0)
    return c.Err(seq, "machines", "expected a non-empty list of {host: ...} or {from: slurm}, got " + Describe(seq));
  for (size_t m = 0; m < seq.size(); ++m) {
    const YAML::Node n = seq[m];
    const std::string p = "machines[" + std::to_string(m) + "]";
    DG_RETURN_IF_ERROR(c.Map(n, p));
    DG_RETURN_IF_ERROR(c.CheckKeys(n, p, kMachineKeys));
    MachineConfig mc;
    if (!n["host"]) return c.Err(n, p + ".host", "missing (the address its servers bind to and peers dial)");
    DG_RETURN_IF_ERROR(c.String(n["host"], p + ".host", true, &mc.host));
    if (mc.host.find_first_of(" \t'\"") != std::string::npos)
      return c.Err(n["host"], p + ".host", "expected a host name or address, got '" + mc.host + "'");
    if (n["ssh"]) DG_RETURN_IF_ERROR(c.String(n["ssh"], p + ".ssh", false, &mc.ssh));
    if (n["ssh_port"]) DG_RETURN_IF_ERROR(c.Int(n["ssh_port"], p + ".ssh_port", 1, 65535, &mc.ssh_port));
    if (n["ssh_key"]) {
      DG_RETURN_IF_ERROR(c.String(n["ssh_key"], p + ".ssh_key", false, &mc.ssh_key));
      mc.ssh_key = ResolvePath(base_dir, mc.ssh_key);
      if (!mc.ssh_key.empty())
        DG_RETURN_IF_ERROR(ExpectFile(c, n["ssh_key"], p + ".ssh_key", mc.ssh_key, "ssh identity file"));
    }
    if (n["workspace"]) DG_RETURN_IF_ERROR(c.String(n["workspace"], p + ".workspace", false, &mc.workspace));
    if (n["binary"]) DG_RETURN_IF_ERROR(c.String(n["binary"], p + ".binary", false, &mc.binary));
    if (n["tls_dir"]) {
      DG_RETURN_IF_ERROR(c.String(n["tls_dir"], p + ".tls_dir", true, &mc.tls_dir));
      mc.tls_dir = ResolvePath(base_dir, mc.tls_dir);
    }
    if (n["ssh_options"]) {
      const YAML::Node o = n["ssh_options"];
      if (!o.IsSequence())
        return c.Err(o, p + ".ssh_options", "expected a list of ssh -o options, got " + Describe(o));
      for (size_t k = 0; k < o.size(); ++k) {
        std::string opt;
        DG_RETURN_IF_ERROR(c.String(o[k], p + ".ssh_options[" + std::to_string(k) + "]", true, &opt));
        mc.ssh_options.push_back(opt);
      }
    }
    if (mc.ssh.empty() && (!mc.workspace.empty() || !mc.ssh_key.empty()))
      return c.Err(n, p, "workspace/ssh_key given without an ssh target; add ssh: user@host");
    mc.slurm_node = mc.host;
    cfg->machines.push_back(mc);
  }
  return Status::OK();
}

// Derived ports stay in range and never collide on one host.
Status CheckPorts(const Checker& c, const YAML::Node& ports_node, const JobConfig& cfg) {
  const int M = cfg.num_machines();
  struct Range {
    const char* key;
    int base, count;
  };
  for (const Range& r : {Range{"server", cfg.server_port, M * cfg.servers_per_machine},
                         Range{"trainer", cfg.trainer_port, M * cfg.trainers_per_machine}}) {
    if (r.base + r.count - 1 > 65535)
      return c.Err(ports_node, std::string("ports.") + r.key,
                   "derived ports run from " + std::to_string(r.base) + " to " +
                       std::to_string(r.base + r.count - 1) + " (base + machines * per-machine - 1), beyond 65535");
  }
  std::map<std::pair<std::string, int>, std::string> used;
  auto claim = [&](const std::string& host, int port, const std::string& who) -> Status {
    std::string group = IsLoopbackAddress(host) ? "loopback" : host;
    auto [it, inserted] = used.emplace(std::make_pair(group, port), who);
    if (!inserted)
      return c.Err(ports_node, "ports",
                   "port " + std::to_string(port) + " on host " + host + " is used by both " + it->second +
                       " and " + who + "; server i of machine m uses ports.server + m*servers + i, trainer t "
                       "uses ports.trainer + m*trainers + t: choose bases whose ranges do not overlap");
    return Status::OK();
  };
  for (int m = 0; m < M; ++m) {
    const std::string& host = cfg.machines[m].host;
    for (int i = 0; i < cfg.servers_per_machine; ++i)
      DG_RETURN_IF_ERROR(claim(host, cfg.ServerPort(m, i),
                               "server " + std::to_string(i) + " of machine " + std::to_string(m)));
    for (int t = 0; t < cfg.trainers_per_machine; ++t)
      DG_RETURN_IF_ERROR(claim(host, cfg.TrainerPort(m, t),
                               "trainer " + std::to_string(t) + " of machine " + std::to_string(m)));
  }
  DG_RETURN_IF_ERROR(claim(cfg.RendezvousHost(), cfg.rendezvous_port, "the trainers' rendezvous (ports.rendezvous)"));
  if (cfg.metrics_port > 0) {
    const int last = cfg.MetricsPort(MetricsRole::kSampler, M - 1, cfg.num_samplers_per_machine() - 1);
    if (std::max(last, cfg.MetricsPort(MetricsRole::kTrainer, M - 1, cfg.trainers_per_machine - 1)) > 65535)
      return c.Err(ports_node, "ports.metrics",
                   "derived metrics ports run beyond 65535 (ports.metrics + machines * processes per machine - 1)");
    for (int m = 0; m < M; ++m) {
      const std::string& host = cfg.machines[m].host;
      const std::string of = " of machine " + std::to_string(m) + " (ports.metrics)";
      for (int i = 0; i < cfg.servers_per_machine; ++i)
        DG_RETURN_IF_ERROR(claim(host, cfg.MetricsPort(MetricsRole::kServer, m, i), "metrics of server " + std::to_string(i) + of));
      for (int t = 0; t < cfg.trainers_per_machine; ++t)
        DG_RETURN_IF_ERROR(claim(host, cfg.MetricsPort(MetricsRole::kTrainer, m, t), "metrics of trainer " + std::to_string(t) + of));
      for (int k = 0; k < cfg.num_samplers_per_machine(); ++k)
        DG_RETURN_IF_ERROR(claim(host, cfg.MetricsPort(MetricsRole::kSampler, m, k), "metrics of sampler " + std::to_string(k) + of));
    }
  }
  return Status::OK();
}

// train.link_etype against the partition: required on a typed one (an edge
// type of it, and the one its edge split holds out), absent on a homogeneous one.
Status CheckLinkEdgeType(const Checker& c, const YAML::Node& train, const PartitionSummary& s,
                         const std::string& split_path, const std::string& link_etype) {
  if (!s.typed) {
    if (link_etype.empty()) return Status::OK();
    return c.Err(train["link_etype"], "train.link_etype",
                 s.path + " is not a typed partition (one edge type); drop the key");
  }
  std::vector<EdgeTypeNames> names;
  for (const std::string& e : s.edge_types) {
    const size_t a = e.find(':'), b = e.rfind(':');
    names.push_back({e.substr(0, a), e.substr(a + 1, b - a - 1), e.substr(b + 1)});
  }
  if (link_etype.empty())
    return c.Err(train, "train.link_etype",
                 "missing: " + s.path + " is typed; name the edge type to predict as src:relation:dst (edge types: " +
                     EdgeTypeList(names) + ")");
  auto etype = MatchEdgeType(names, link_etype, "");
  if (!etype.ok())  // the message starts " 'spec': ..." with an empty flag
    return c.Err(train["link_etype"], "train.link_etype", etype.status().message().substr(1));
  auto info = ReadLinkSplitInfo(fs::path(split_path).parent_path().string());
  if (!info.ok()) return c.Err(train["task"], "train.task", info.status().message());
  auto split = MatchEdgeType(names, info->etype, "");
  if (info->etype.empty() || !split.ok() || *split != *etype)
    return c.Err(train["link_etype"], "train.link_etype",
                 "'" + link_etype + "' is " + names[*etype].Name() + ", but the edge split of " + s.path +
                     " holds out " + (info->etype.empty() ? std::string("no edge type") : info->etype) +
                     " (partition with --edge-split and --link-etype " + names[*etype].Name() + ")");
  return Status::OK();
}

// The file as a YAML tree with the --set overrides applied (`overridden`:
// key -> "key=value", for errors naming the override).
Result<YAML::Node> LoadTree(const std::string& yaml_path, const std::vector<std::string>& overrides,
                            std::map<std::string, std::string>* overridden) {
  std::error_code ec;
  if (!fs::is_regular_file(yaml_path, ec)) return Status::NotFound(yaml_path + ": config file not found");
  YAML::Node root;
  try {
    root = YAML::LoadFile(yaml_path);
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(yaml_path + ":" + std::to_string(e.mark.line + 1) + ":" +
                                   std::to_string(e.mark.column + 1) + ": YAML syntax error: " + e.msg);
  }
  if (!root.IsMap() && !(root.IsNull() && !overrides.empty()))
    return Status::InvalidArgument(yaml_path + ": expected a map of keys (job, partition, machines, ...) at the top");
  for (const auto& o : overrides) DG_RETURN_IF_ERROR(ApplyOverride(root, o, overridden).WithContext(yaml_path));
  return root;
}

// job, partition and token.
Status LoadIdentity(const Checker& c, const YAML::Node& r, JobConfig* cfg) {
  if (!r["job"]) return c.Err(r, "job", "missing (the job's name; outputs go to output_dir/job/)");
  DG_RETURN_IF_ERROR(c.String(r["job"], "job", true, &cfg->job));
  for (char ch : cfg->job) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_' && ch != '.')
      return c.Err(r["job"], "job", "expected letters, digits, '-', '_' or '.' (it names a folder), got '" + cfg->job + "'");
  }
  if (cfg->job[0] == '.') return c.Err(r["job"], "job", "must not start with '.'");

  if (!r["partition"]) return c.Err(r, "partition", "missing (path of the partition json written by distgnn partition)");
  DG_RETURN_IF_ERROR(c.String(r["partition"], "partition", true, &cfg->partition));
  cfg->partition = ResolvePath(cfg->base_dir, cfg->partition);
  DG_RETURN_IF_ERROR(ExpectFile(c, r["partition"], "partition", cfg->partition, "partition config"));

  if (r["token"]) DG_RETURN_IF_ERROR(c.String(r["token"], "token", false, &cfg->token));
  cfg->token_from_yaml = !cfg->token.empty();
  if (cfg->token.empty()) {
    auto env = TokenFromEnvironment();
    if (!env.ok()) return env.status();
    cfg->token = *env;
  }
  return Status::OK();
}

Status LoadPortsAndProcesses(const Checker& c, const YAML::Node& r, JobConfig* cfg) {
  if (const YAML::Node ports = r["ports"]) {
    DG_RETURN_IF_ERROR(c.Map(ports, "ports"));
    DG_RETURN_IF_ERROR(c.CheckKeys(ports, "ports", kPortKeys));
    if (ports["server"]) DG_RETURN_IF_ERROR(c.Int(ports["server"], "ports.server", 1, 65535, &cfg->server_port));
    if (ports["trainer"]) DG_RETURN_IF_ERROR(c.Int(ports["trainer"], "ports.trainer", 1, 65535, &cfg->trainer_port));
    if (ports["rendezvous"])
      DG_RETURN_IF_ERROR(c.Int(ports["rendezvous"], "ports.rendezvous", 1, 65535, &cfg->rendezvous_port));
    if (ports["metrics"]) DG_RETURN_IF_ERROR(c.Int(ports["metrics"], "ports.metrics", 0, 65535, &cfg->metrics_port));
  }
  if (const YAML::Node p = r["processes"]) {
    DG_RETURN_IF_ERROR(c.Map(p, "processes"));
    DG_RETURN_IF_ERROR(c.CheckKeys(p, "processes", kProcessKeys));
    if (p["servers"]) DG_RETURN_IF_ERROR(c.Int(p["servers"], "processes.servers", 1, 64, &cfg->servers_per_machine));
    if (p["trainers"]) DG_RETURN_IF_ERROR(c.Int(p["trainers"], "processes.trainers", 1, 64, &cfg->trainers_per_machine));
    if (p["samplers_per_trainer"])
      DG_RETURN_IF_ERROR(c.Int(p["samplers_per_trainer"], "processes.samplers_per_trainer", 0, 64,
                               &cfg->samplers_per_trainer));
  }
  return Status::OK();
}

// The train: section (train_yaml.h, train_spec.h), then what it needs of the
// rest of the job: a link job's edge split, in-process sampling for the
// wire-byte options.
Status LoadTrain(const Checker& c, const YAML::Node& r, const PartitionSummary& summary, JobConfig* cfg) {
  if (!r["train"]) return c.Err(r, "train", "missing (at least train.model)");
  const YAML::Node train = r["train"];
  TrainSpecSource source;
  DG_RETURN_IF_ERROR(ParseTrainSection(c, train, cfg->base_dir, &cfg->train, &source));
  DG_RETURN_IF_ERROR(ValidateTrainSpec(cfg->train, source));
  const TrainSpec& t = cfg->train;
  if (t.task == TrainTask::kLink) {  // the partition must carry an edge split
    const std::string split = fs::path(cfg->partition).parent_path().string() + "/link_split.json";
    if (!fs::exists(split))
      return c.Err(train["task"], "train.task",
                   "link needs a partition made with --edge-split (no " + split + "); partition with e.g. "
                   "--edge-split 0.85,0.05,0.10");
    DG_RETURN_IF_ERROR(CheckLinkEdgeType(c, train, summary, split, t.link.etype));
  }
  return Status::OK();
}

Status LoadNetwork(const Checker& c, const YAML::Node& n, JobConfig* cfg) {
  DG_RETURN_IF_ERROR(c.Map(n, "network"));
  DG_RETURN_IF_ERROR(c.CheckKeys(n, "network", kNetworkKeys));
  if (n["max_frame_bytes"])
    DG_RETURN_IF_ERROR(c.Int(n["max_frame_bytes"], "network.max_frame_bytes", 4096, INT64_MAX, &cfg->max_frame_bytes));
  if (n["heartbeat_seconds"])
    DG_RETURN_IF_ERROR(c.Double(n["heartbeat_seconds"], "network.heartbeat_seconds", 0, true, 3600, &cfg->heartbeat_seconds));
  if (n["peer_timeout_seconds"])
    DG_RETURN_IF_ERROR(c.Double(n["peer_timeout_seconds"], "network.peer_timeout_seconds", 0, true, 86400,
                                &cfg->peer_timeout_seconds));
  if (n["rendezvous_timeout_seconds"])
    DG_RETURN_IF_ERROR(c.Double(n["rendezvous_timeout_seconds"], "network.rendezvous_timeout_seconds", 0, true,
                                86400, &cfg->rendezvous_timeout_seconds));
  if (n["connect_wait_seconds"])
    DG_RETURN_IF_ERROR(c.Double(n["connect_wait_seconds"], "network.connect_wait_seconds", 0, true, 86400,
                                &cfg->connect_wait_seconds));
  if (n["stop_seconds"])
    DG_RETURN_IF_ERROR(c.Double(n["stop_seconds"], "network.stop_seconds", 0, false, 86400, &cfg->stop_seconds));
  if (cfg->peer_timeout_seconds <= cfg->heartbeat_seconds)
    return c.Err(n, "network.peer_timeout_seconds", "must be larger than network.heartbeat_seconds");
  return Status::OK();
}

Status LoadScheduler(const Checker& c, const YAML::Node& n, Scheduler* out) {
  std::string word;
  DG_RETURN_IF_ERROR(c.String(n, "scheduler", true, &word));
  if (!Parse(word, out))
    return c.Err(n, "scheduler",
                 "expected direct (here or over ssh, as each machine says) or slurm (srun steps), got '" + word + "'");
  return Status::OK();
}

Status LoadRestart(const Checker& c, const YAML::Node& rs, RestartConfig* restart) {
  DG_RETURN_IF_ERROR(c.Map(rs, "restart"));
  DG_RETURN_IF_ERROR(c.CheckKeys(rs, "restart", kRestartKeys));
  if (rs["max"]) DG_RETURN_IF_ERROR(c.Int(rs["max"], "restart.max", 0, 1000, &restart->max));
  if (rs["wait_seconds"])
    DG_RETURN_IF_ERROR(c.Double(rs["wait_seconds"], "restart.wait_seconds", 0, false, 86400, &restart->wait_seconds));
  return Status::OK();
}

Result<JobConfig> LoadImpl(const std::string& yaml_path, const std::vector<std::string>& overrides) {
  std::map<std::string, std::string> overridden;
  DG_ASSIGN_OR_RETURN(YAML::Node root, LoadTree(yaml_path, overrides, &overridden));
  const YAML::Node& r = root;  // const lookups never insert keys
  Checker c(yaml_path, overridden);
  JobConfig cfg;
  cfg.path = fs::absolute(yaml_path).lexically_normal().string();
  cfg.base_dir = fs::path(cfg.path).parent_path().string();
  cfg.overrides = overrides;
  DG_RETURN_IF_ERROR(c.CheckKeys(r, "", kTopKeys));
  DG_RETURN_IF_ERROR(LoadIdentity(c, r, &cfg));
  auto summary = ReadPartitionSummary(cfg.partition);
  if (!summary.ok()) return c.Err(r["partition"], "partition", summary.status().message());

  if (!r["machines"]) return c.Err(r, "machines", "missing (one {host: ...} per partition)");
  DG_RETURN_IF_ERROR(LoadMachines(c, r["machines"], cfg.base_dir, &cfg));
  if (cfg.num_machines() != summary->num_parts && cfg.machine_source == MachineSource::kSlurm)
    return c.Err(r["machines"], "machines.from",
                 "the Slurm allocation has " + std::to_string(cfg.num_machines()) + " node(s), but " + cfg.partition +
                     " has num_parts " + std::to_string(summary->num_parts) + " (ask for one node per partition: "
                     "sbatch --nodes=" + std::to_string(summary->num_parts) + ")");
  if (cfg.num_machines() != summary->num_parts)
    return c.Err(r["machines"], "machines",
                 std::to_string(cfg.num_machines()) + " machines listed, but " + cfg.partition + " has num_parts " +
                     std::to_string(summary->num_parts) + " (one machine per partition, in partition order)");
  if (const YAML::Node sch = r["scheduler"]) DG_RETURN_IF_ERROR(LoadScheduler(c, sch, &cfg.scheduler));
  DG_RETURN_IF_ERROR(LoadPortsAndProcesses(c, r, &cfg));
  DG_RETURN_IF_ERROR(LoadTrain(c, r, *summary, &cfg));

  if (r["output_dir"]) DG_RETURN_IF_ERROR(c.String(r["output_dir"], "output_dir", true, &cfg.output_dir));
  cfg.output_dir = ResolvePath(cfg.base_dir, cfg.output_dir);
  if (const YAML::Node n = r["network"]) DG_RETURN_IF_ERROR(LoadNetwork(c, n, &cfg));
  if (const YAML::Node l = r["limits"]) DG_RETURN_IF_ERROR(LoadLimits(c, l, &cfg.limits));
  if (r["verify_checksums"]) DG_RETURN_IF_ERROR(c.Bool(r["verify_checksums"], "verify_checksums", &cfg.verify_checksums));
  if (const YAML::Node rs = r["restart"]) DG_RETURN_IF_ERROR(LoadRestart(c, rs, &cfg.restart));
  if (const YAML::Node t = r["tls"]) DG_RETURN_IF_ERROR(LoadTls(c, t, &cfg));
  const YAML::Node ports = r["ports"];
  DG_RETURN_IF_ERROR(CheckPorts(c, ports ? ports : r, cfg));
  return cfg;
}

}  // namespace

Result<JobConfig> LoadJobConfig(const std::string& yaml_path, const std::vector<std::string>& overrides) {
  // yaml-cpp throws (bad conversions, odd trees); nothing crosses this edge.
  try {
    return LoadImpl(yaml_path, overrides);
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(yaml_path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(yaml_path + ": " + e.what());
  }
}

const char* Name(Scheduler v) { return v == Scheduler::kSlurm ? "slurm" : "direct"; }

bool Parse(const std::string& word, Scheduler* out) {
  for (Scheduler v : {Scheduler::kDirect, Scheduler::kSlurm})
    if (word == Name(v)) return *out = v, true;
  return false;
}

int JobConfig::CoresPerMachine(int machine) const {
  int same_host = 0;
  for (const auto& m : machines) same_host += m.host == machines.at(machine).host ? 1 : 0;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, cores / std::max(1, same_host));
}

const char* Name(MetricsRole role) {
  switch (role) {
    case MetricsRole::kServer: return "server";
    case MetricsRole::kTrainer: return "trainer";
    case MetricsRole::kSampler: return "sampler";
  }
  return "?";
}

bool Parse(const std::string& word, MetricsRole* out) {
  for (MetricsRole role : {MetricsRole::kServer, MetricsRole::kTrainer, MetricsRole::kSampler})
    if (word == Name(role)) {
      *out = role;
      return true;
    }
  return false;
}

}  // namespace dg
