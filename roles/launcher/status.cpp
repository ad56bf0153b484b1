// `distgnn status JOB.yaml [--once] [--interval S]`: a live table of a running
// job, from every process's metrics endpoint (ports.metrics, derived per
// process as JobConfig::MetricsPort says), so it works for jobs started by
// `distgnn launch` and by the systemd units alike.
//
//   servers:  uptime, open connections, and per message type requests/s and
//             bytes/s (over the refresh interval) and p50/p99 latency (since start)
//   trainers: epoch, step, loss, steps/s, wait fraction, ETA of the run
//   samplers: batches/s, MB/s sent, credits
// At a terminal the table is redrawn every --interval seconds; --once (or no
// terminal) prints it once, with rates over one interval. Exit code 1 when no
// endpoint answers.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <thread>

#include "common/base/console.h"
#include "common/net/metrics_http.h"
#include "common/net/prometheus.h"
#include "config/job_config.h"
#include "roles/launcher/launcher.h"
#include "roles/launcher/status.h"
#include "roles/job/job_tls.h"

namespace dg {
namespace {

struct Endpoint {
  std::string label, host;
  MetricsRole role;
  int port = 0;
};

struct Scrape {
  bool ok = false;
  std::string error;
  std::vector<PromSample> samples;
  double when = 0;  // seconds, steady clock
};

double Now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double Get(const Scrape& s, const std::string& name, const std::map<std::string, std::string>& labels = {},
           double fallback = 0) {
  for (const auto& x : s.samples) {
    if (x.name != name) continue;
    bool match = true;
    for (const auto& [k, v] : labels) match = match && x.labels.count(k) && x.labels.at(k) == v;
    if (match) return x.value;
  }
  return fallback;
}

// Quantile from cumulative histogram buckets (upper bound of the bucket reaching q).
double Quantile(const Scrape& s, const std::string& type, double q) {
  std::vector<std::pair<double, double>> b;
  for (const auto& x : s.samples)
    if (x.name == "distgnn_server_request_duration_seconds_bucket" && x.labels.count("type") &&
        x.labels.at("type") == type)
      b.emplace_back(x.labels.count("le") && x.labels.at("le") == "+Inf" ? INFINITY : std::atof(x.labels.at("le").c_str()),
                     x.value);
  if (b.empty() || b.back().second <= 0) return 0;
  const double want = q * b.back().second;
  for (const auto& [le, c] : b)
    if (c >= want) return le;
  return INFINITY;
}

std::string Fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), f, v);
  return buf;
}

std::string Bytes(double v) {
  if (v >= 1e9) return Fmt("%.2f GB", v / 1e9);
  if (v >= 1e6) return Fmt("%.1f MB", v / 1e6);
  if (v >= 1e3) return Fmt("%.1f kB", v / 1e3);
  return Fmt("%.0f B", v);
}

std::string Ms(double seconds) {
  if (std::isinf(seconds)) return ">10 s";
  return seconds >= 0.1 ? Fmt("%.0f ms", seconds * 1e3) : Fmt("%.2f ms", seconds * 1e3);
}

std::string Table(const JobConfig& job, const std::vector<Endpoint>& eps, const std::vector<Scrape>& now,
                  const std::vector<Scrape>& before) {
  std::string out = "job " + job.job + " (" + job.path + "): " + std::to_string(eps.size()) + " processes\n";
  int reachable = 0;
  for (size_t i = 0; i < eps.size(); ++i) {
    const Endpoint& e = eps[i];
    const Scrape& s = now[i];
    const Scrape* prev = i < before.size() && before[i].ok ? &before[i] : nullptr;
    const double dt = prev ? s.when - prev->when : 0;
    std::string head = "[" + e.label + "] " + e.host + ":" + std::to_string(e.port);
    head.resize(std::max<size_t>(head.size(), 34), ' ');
    if (!s.ok) {
      out += head + "unreachable (" + s.error + ")\n";
      continue;
    }
    ++reachable;
    const double rss = Get(s, "distgnn_process_resident_bytes");
    if (e.role == MetricsRole::kServer) {
      out += head + "up " + ShortDuration(Get(s, "distgnn_server_uptime_seconds")) + ", " +
             Fmt("%.0f", Get(s, "distgnn_server_connections")) + " connections, RSS " + Bytes(rss) + "\n";
      for (const auto& x : s.samples) {
        if (x.name != "distgnn_server_requests_total") continue;
        const std::string type = x.labels.count("type") ? x.labels.at("type") : "?";
        const std::map<std::string, std::string> l{{"type", type}};
        const double bytes = Get(s, "distgnn_server_received_bytes_total", l) + Get(s, "distgnn_server_sent_bytes_total", l);
        std::string rate = "          -", brate = "          -";
        if (prev && dt > 0) {
          const double pb = Get(*prev, "distgnn_server_received_bytes_total", l) +
                            Get(*prev, "distgnn_server_sent_bytes_total", l);
          rate = Fmt("%9.1f/s", (x.value - Get(*prev, "distgnn_server_requests_total", l)) / dt);
          brate = Bytes((bytes - pb) / dt) + "/s";
        }
        char line[256];
        std::snprintf(line, sizeof(line), "    %-16s %10.0f req %12s %12s   p50 %9s  p99 %9s  errors %.0f\n",
                      type.c_str(), x.value, rate.c_str(), brate.c_str(), Ms(Quantile(s, type, 0.5)).c_str(),
                      Ms(Quantile(s, type, 0.99)).c_str(), Get(s, "distgnn_server_request_errors_total", l));
        out += line;
      }
    } else if (e.role == MetricsRole::kTrainer) {
      const double epoch = Get(s, "distgnn_trainer_epoch"), epochs = Get(s, "distgnn_trainer_epochs");
      const double step = Get(s, "distgnn_trainer_step"), steps = Get(s, "distgnn_trainer_steps_per_epoch");
      const double sps = Get(s, "distgnn_trainer_steps_per_second");
      const double last = Get(s, "distgnn_trainer_last_epoch_seconds");
      const bool done = Get(s, "distgnn_trainer_done") > 0;
      double eta = -1;
      if (sps > 0) eta = (steps - step) / sps + std::max(0.0, epochs - epoch) * (last > 0 ? last : steps / sps);
      const double val = Get(s, "distgnn_trainer_val_accuracy", {}, -1);
      char line[320];
      std::snprintf(line, sizeof(line),
                    "epoch %.0f/%.0f  step %.0f/%.0f  loss %.4f  %.1f steps/s  wait %.0f%%  %s%s  RSS %s\n", epoch,
                    epochs, step, steps, Get(s, "distgnn_trainer_loss"), sps,
                    100 * Get(s, "distgnn_trainer_wait_fraction"), done ? "done" : ("ETA " + ShortDuration(eta)).c_str(),
                    val >= 0 ? Fmt("  val_acc %.4f", val).c_str() : "", Bytes(rss).c_str());
      out += head + line;
    } else {
      std::string rate = "-", brate = "-";
      const double batches = Get(s, "distgnn_sampler_batches_total"), bytes = Get(s, "distgnn_sampler_sent_bytes_total");
      if (prev && dt > 0) {
        rate = Fmt("%.1f batches/s", (batches - Get(*prev, "distgnn_sampler_batches_total")) / dt);
        brate = Bytes((bytes - Get(*prev, "distgnn_sampler_sent_bytes_total")) / dt) + "/s";
      }
      out += head + "epoch " + Fmt("%.0f", Get(s, "distgnn_sampler_epoch")) + "  " + Fmt("%.0f", batches) +
             " batches  " + rate + "  " + brate + "  credits " + Fmt("%.0f", Get(s, "distgnn_sampler_credits")) +
             "  RSS " + Bytes(rss) + "\n";
    }
  }
  out += std::to_string(reachable) + " of " + std::to_string(eps.size()) + " endpoints answered\n";
  return out;
}

std::vector<Scrape> ScrapeAll(const std::vector<Endpoint>& eps, double timeout,
                              const std::shared_ptr<const TlsContext>& tls) {
  std::vector<Scrape> out(eps.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < eps.size(); ++i)
    threads.emplace_back([&, i] {
      auto body = HttpGet(eps[i].host, eps[i].port, "/metrics", timeout, tls);
      out[i].when = Now();
      if (body.ok()) {
        out[i].ok = true;
        out[i].samples = ParsePromText(*body);
      } else {
        out[i].error = body.status().message();
        auto colon = out[i].error.rfind(": ");
        if (colon != std::string::npos) out[i].error = out[i].error.substr(colon + 2);
      }
    });
  for (auto& t : threads) t.join();
  return out;
}

}  // namespace

int ShowJobStatus(const JobStatusOptions& options, const std::string& program) {
  const std::string& file = options.config;
  const double interval = options.interval;
  const int base = options.metrics_port;
  auto job = LoadJobConfig(file, options.sets);
  if (!job.ok()) return ToolExitCode(program, job.status());
  if (base > 0) job->metrics_port = base;
  if (job->metrics_port <= 0)
    return ToolExitCode(program, Status::InvalidArgument(file + ": ports.metrics is not set, so the job's processes "
                                                                 "serve no metrics (set it, or pass --metrics-port)"));
  // HTTPS endpoints want a certificate of the job: the client's.
  if (job->tls.https_metrics) {
    const Status st = LoadJobTls(&*job, "client", -1);
    if (!st.ok()) return ToolExitCode(program, st);
  }
  const std::shared_ptr<const TlsContext> tls = job->tls.https_metrics ? job->tls.context : nullptr;
  std::vector<Endpoint> eps;
  for (int m = 0; m < job->num_machines(); ++m) {
    const std::string& host = job->machines[m].host;
    const std::string mm = std::to_string(m) + "/";
    for (int i = 0; i < job->servers_per_machine; ++i)
      eps.push_back({mm + "server/" + std::to_string(i), host, MetricsRole::kServer,
                     job->MetricsPort(MetricsRole::kServer, m, i)});
    for (int t = 0; t < job->trainers_per_machine; ++t)
      eps.push_back({mm + "trainer/" + std::to_string(t), host, MetricsRole::kTrainer,
                     job->MetricsPort(MetricsRole::kTrainer, m, t)});
    for (int k = 0; k < job->num_samplers_per_machine(); ++k)
      eps.push_back({mm + "sampler/" + std::to_string(k), host, MetricsRole::kSampler,
                     job->MetricsPort(MetricsRole::kSampler, m, k)});
  }
  const bool live = !options.once && IsTerminal(STDOUT_FILENO);
  const double timeout = std::max(0.5, std::min(3.0, interval));
  std::vector<Scrape> before = ScrapeAll(eps, timeout, tls);
  while (true) {
    std::this_thread::sleep_for(std::chrono::duration<double>(interval));
    std::vector<Scrape> now = ScrapeAll(eps, timeout, tls);
    const std::string table = Table(*job, eps, now, before);
    bool any = false;
    for (const auto& s : now) any = any || s.ok;
    if (!live) {
      std::fputs(table.c_str(), stdout);
      return any ? 0 : 1;
    }
    std::fputs(("\033[H\033[2J" + table + "(refreshing every " + Fmt("%.0f", interval) + " s; Ctrl-C to quit)\n").c_str(),
               stdout);
    std::fflush(stdout);
    before = std::move(now);
  }
}

}  // namespace dg
