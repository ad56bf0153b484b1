// `distgnn bench rpc`: data-plane throughput, measured in one run against a
// ceiling measured in the same run.
//
//  1. socket: a raw loopback Asio socket blast (one writer thread, one reader
//     thread, 4 MiB writes) -- the ceiling.
//  2. pull: PULL of 100-dim float32 rows, 10k random ids per call, over the
//     socket (local shortcut off), 1 and 4 client threads.
//  3. sparse: SPARSE_UPDATE (sparse_adagrad, W = 1, 10k random ids per call,
//     one request per call) on a float32 [nodes, 64] and [nodes, 128] mutable
//     tensor, in rows/s, against PULL rows/s of the same tensor in the same run.
//  4. sample: SAMPLE_NEIGHBORS on a synthetic power-law graph, fanout 10 and
//     25, against a server with --threads 1, as sampled edges/s per server thread.
//
// Servers are child processes of this one: fork + exec of /proc/self/exe
// `--role server` on 127.0.0.1 with an ephemeral port; they get SHUTDOWN at the end.
// Prints a table and, last, one JSON line.
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/base/subprocess.h"
#include "bench/bench_rpc.h"
#include "common/client/dist_graph_client.h"
#include "common/base/logging.h"
#include "common/storage/neighbor_sampling.h"
#include "roles/server/synthetic_partition.h"

namespace dg {
namespace {

using Clock = std::chrono::steady_clock;
double Since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = std::min(v.size() - 1, static_cast<size_t>(q * v.size()));
  return v[i];
}

// Raw loopback TCP throughput with plain Asio sockets, in GB/s (1e9 bytes).
Result<double> SocketBlast(double seconds) {
  namespace asio = boost::asio;
  using tcp = asio::ip::tcp;
  asio::io_context io;
  tcp::acceptor acc(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  int port = acc.local_endpoint().port();
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> received{0};
  const size_t kChunk = 4 << 20;
  std::thread reader([&] {
    boost::system::error_code ec;
    tcp::socket s(io);
    acc.accept(s, ec);
    if (ec) return;
    std::vector<char> buf(kChunk);
    while (true) {
      size_t n = s.read_some(asio::buffer(buf), ec);
      if (ec) break;
      received += n;
    }
  });
  tcp::socket w(io);
  boost::system::error_code ec;
  w.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), ec);
  if (ec) {
    reader.detach();
    return Status::IOError("socket blast: connect: " + ec.message());
  }
  w.set_option(tcp::no_delay(true));
  std::vector<char> buf(kChunk, 'x');
  auto t0 = Clock::now();
  uint64_t start_bytes = 0;
  bool warmed = false;
  while (true) {
    asio::write(w, asio::buffer(buf), ec);
    if (ec) break;
    double t = Since(t0);
    if (!warmed && t > 0.3) {  // skip slow start
      warmed = true;
      start_bytes = received.load();
      t0 = Clock::now();
    } else if (warmed && t > seconds) {
      break;
    }
  }
  double secs = Since(t0);
  uint64_t bytes = received.load() - start_bytes;
  w.shutdown(tcp::socket::shutdown_both, ec);
  w.close(ec);
  reader.join();
  return bytes / secs / 1e9;
}

struct ChildServer {
  pid_t pid = -1;
  int port = 0;
  std::string log;
};

Result<ChildServer> StartServer(const std::string& json, int threads, const std::string& log) {
  // Port 0 is not reportable back to us, so pick a free one.
  namespace asio = boost::asio;
  int port;
  {
    asio::io_context io;
    asio::ip::tcp::acceptor a(io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    port = a.local_endpoint().port();
  }
  ChildServer c;
  c.port = port;
  c.log = log;
  std::vector<std::string> args = {"/proc/self/exe", "--role", "server", "--partition-config", json, "--part", "0",
                                   "--host", "127.0.0.1", "--port", std::to_string(port), "--threads",
                                   std::to_string(threads), "--log-level", "warn"};
  SpawnOptions so;
  so.err_path = log;
  pid_t pid = Spawn(args, so);
  if (pid < 0) return Status::FromErrno("fork", errno);
  c.pid = pid;
  return c;
}

Result<std::unique_ptr<DistGraphClient>> ConnectWithRetry(const PartitionConfig& cfg, const ChildServer& s,
                                                          ClientOptions o) {
  auto t0 = Clock::now();
  while (true) {
    auto c = DistGraphClient::Connect(cfg, {ServerEndpoints{"127.0.0.1", {s.port}}}, "", "launcher", 0, o);  // it stops its server
    if (c.ok() || Since(t0) > 60) return c;
    int status;
    if (waitpid(s.pid, &status, WNOHANG) == s.pid) {
      std::ifstream in(s.log);
      std::stringstream ss;
      ss << in.rdbuf();
      return Status::IOError("benchmark server exited: " + ss.str());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void StopServer(DistGraphClient* client, ChildServer* s) {
  if (client) (void)client->Shutdown(0, 0);
  for (int i = 0; i < 200; ++i) {
    int status;
    if (waitpid(s->pid, &status, WNOHANG) == s->pid) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  kill(s->pid, SIGKILL);
  waitpid(s->pid, nullptr, 0);
}

struct RunStats {
  double gbps = 0, calls_per_s = 0, items_per_s = 0, p50_ms = 0, p99_ms = 0;
};

struct SparseFigures {
  int64_t dim = 0;
  RunStats pull, update;  // items = rows
};

// Runs `call` from `threads` threads for `seconds`; call returns the payload
// bytes (or items) it produced, or -1 on error.
RunStats Drive(int threads, double seconds, const std::function<int64_t(int, uint64_t)>& call, Status* error) {
  std::vector<std::vector<double>> lat(threads);
  std::vector<int64_t> bytes(threads, 0);
  std::atomic<bool> failed{false};
  auto t0 = Clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      uint64_t i = 0;
      while (Since(t0) < seconds && !failed) {
        auto c0 = Clock::now();
        int64_t b = call(t, i++);
        if (b < 0) {
          failed = true;
          break;
        }
        lat[t].push_back(Since(c0) * 1e3);
        bytes[t] += b;
      }
    });
  }
  for (auto& th : pool) th.join();
  double secs = Since(t0);
  RunStats r;
  std::vector<double> all;
  int64_t total = 0;
  for (int t = 0; t < threads; ++t) {
    all.insert(all.end(), lat[t].begin(), lat[t].end());
    total += bytes[t];
  }
  r.gbps = total / secs / 1e9;
  r.items_per_s = total / secs;
  r.calls_per_s = all.size() / secs;
  r.p50_ms = Percentile(all, 0.5);
  r.p99_ms = Percentile(all, 0.99);
  if (failed && error->ok()) *error = Status::Internal("benchmark call failed");
  return r;
}

// SPARSE_UPDATE (W = 1) and PULL of the same float32 [nodes, dim] tensor,
// ids_per_call random ids per call, one client thread.
Result<SparseFigures> BenchSparse(DistGraphClient* client, int64_t nodes, int64_t dim, int64_t ids_per_call,
                                  double seconds, Status* err) {
  SparseFigures fig;
  fig.dim = dim;
  InitTensorSpec spec;
  spec.name = "sparse" + std::to_string(dim);
  spec.shape = {nodes, dim};
  spec.init = Initializer::kUniform;
  spec.seed = 3;
  spec.a = -0.1;
  spec.b = 0.1;
  DG_RETURN_IF_ERROR(client->InitTensor(spec));
  Array grads = Array::Zeros(DType::kFloat32, {ids_per_call, dim});
  Rng g(7);
  for (int64_t i = 0; i < grads.numel(); ++i) grads.as<float>()[i] = static_cast<float>(g.UniformDouble() - 0.5);
  const SparseOptimizerSpec opt = SparseOptimizerSpec::Defaults(SparseOptimizerKind::kAdagrad, 0.01);
  auto random_ids = [&](uint64_t salt, uint64_t i) {
    Rng rng(MixSeed(salt, i));
    std::vector<int64_t> ids(ids_per_call);
    for (auto& id : ids) id = static_cast<int64_t>(rng.Uniform(nodes));
    return ids;
  };
  uint64_t step = 0;
  auto pull = [&](int, uint64_t i) -> int64_t {
    auto r = client->Pull(spec.name, random_ids(dim, i));
    if (!r.ok()) spdlog::error("{}", r.status().ToString());
    return r.ok() ? ids_per_call : -1;
  };
  auto update = [&](int, uint64_t i) -> int64_t {
    Status st = client->SparseUpdate(spec.name, opt, step++, 1, 0, random_ids(1000 + dim, i), grads);
    if (!st.ok()) spdlog::error("{}", st.ToString());
    return st.ok() ? ids_per_call : -1;
  };
  Drive(1, 0.3, update, err);  // warm-up: allocates the optimizer state
  fig.pull = Drive(1, seconds, pull, err);
  fig.update = Drive(1, seconds, update, err);
  return fig;
}

}  // namespace

Status BenchRpc(const BenchRpcOptions& o) {
  const int64_t nodes = o.nodes, feat_dim = o.feat_dim, ids_per_call = o.ids_per_call, sample_nodes = o.sample_nodes,
                sample_edges = o.sample_edges, batch = o.batch;
  const double seconds = o.seconds;
  const int server_threads = o.server_threads;
  std::string workdir = o.workdir;
  SetupLogging("bench", -1, "warn");
  if (workdir.empty()) {
    char tmpl[] = "/tmp/distgnn-bench-rpc-XXXXXX";
    if (!mkdtemp(tmpl)) return Status::FromErrno("mkdtemp", errno);
    workdir = tmpl;
  }
  std::printf("distgnn bench rpc  (servers: child processes via fork+exec of /proc/self/exe; 127.0.0.1; %u cores)\n",
              std::thread::hardware_concurrency());

  // 1. Ceiling.
  auto sock = SocketBlast(seconds);
  if (!sock.ok()) return sock.status();

  // 2. PULL.
  SyntheticGraph fg = MakeRandomGraph(nodes, nodes * 2, feat_dim, 1);
  fg.name = "benchfeat";
  auto json = WriteContiguousPartition(fg, 1, workdir + "/feat");
  if (!json.ok()) return json.status();
  fg = SyntheticGraph();  // free the in-memory copy; the server mmaps the files
  auto cfg = LoadPartitionConfig(*json);
  if (!cfg.ok()) return cfg.status();
  auto srv = StartServer(*json, server_threads, workdir + "/feat_server.log");
  if (!srv.ok()) return srv.status();
  ClientOptions co;
  co.disable_local_shortcut = true;
  co.io_threads = 1;
  co.max_ids_per_request = ids_per_call;  // one request per call: 10k ids each
  auto client = ConnectWithRetry(*cfg, *srv, co);
  if (!client.ok()) {
    kill(srv->pid, SIGKILL);
    return client.status();
  }
  ClientOptions co_chunk = co;
  co_chunk.max_ids_per_request = ids_per_call / 4;  // same calls, split into 4 pipelined requests
  auto chunked = ConnectWithRetry(*cfg, *srv, co_chunk);
  if (!chunked.ok()) return chunked.status();

  Status err;
  const size_t row_bytes = static_cast<size_t>(feat_dim) * 4;
  auto pull_with = [&](DistGraphClient* c) {
    return [&, c](int t, uint64_t i) -> int64_t {
      Rng rng(MixSeed(t, i));
      std::vector<int64_t> ids(ids_per_call);
      for (auto& id : ids) id = static_cast<int64_t>(rng.Uniform(nodes));
      auto r = c->Pull("features", ids);
      if (!r.ok()) {
        spdlog::error("{}", r.status().ToString());
        return -1;
      }
      return static_cast<int64_t>(ids.size() * row_bytes);
    };
  };
  Drive(1, 0.5, pull_with(client->get()), &err);  // warm-up (page cache, malloc)
  RunStats pull1 = Drive(1, seconds, pull_with(client->get()), &err);
  RunStats pull4 = Drive(4, seconds, pull_with(client->get()), &err);
  RunStats pull1c = Drive(1, seconds, pull_with(chunked->get()), &err);
  chunked->reset();
  std::vector<SparseFigures> sparse;
  for (int64_t dim : {int64_t(64), int64_t(128)}) {
    auto f = BenchSparse(client->get(), nodes, dim, ids_per_call, seconds, &err);
    if (!f.ok()) {
      StopServer(client->get(), &*srv);
      return f.status();
    }
    sparse.push_back(*f);
  }
  StopServer(client->get(), &*srv);
  client->reset();

  // 3. SAMPLE_NEIGHBORS, one server thread.
  SyntheticGraph pg = MakePowerLawGraph(sample_nodes, sample_edges, 1, 2);
  auto pjson = WriteContiguousPartition(pg, 1, workdir + "/powerlaw");
  if (!pjson.ok()) return pjson.status();
  pg = SyntheticGraph();
  auto pcfg = LoadPartitionConfig(*pjson);
  if (!pcfg.ok()) return pcfg.status();
  auto psrv = StartServer(*pjson, 1, workdir + "/sample_server.log");
  if (!psrv.ok()) return psrv.status();
  ClientOptions so;
  so.disable_local_shortcut = true;
  so.max_ids_per_request = batch;
  auto sclient = ConnectWithRetry(*pcfg, *psrv, so);
  if (!sclient.ok()) {
    kill(psrv->pid, SIGKILL);
    return sclient.status();
  }
  auto sample_with = [&](int64_t fanout) {
    return [&, fanout](int t, uint64_t i) -> int64_t {
      Rng rng(MixSeed(100 + t, i));
      std::vector<int64_t> seeds(batch);
      for (auto& s : seeds) s = static_cast<int64_t>(rng.Uniform(sample_nodes));
      SampleSpec spec;
      spec.fanout = fanout;
      spec.seed = i;
      spec.edge_ids = true;
      auto r = (*sclient)->SampleNeighbors(seeds, spec);
      if (!r.ok()) {
        spdlog::error("{}", r.status().ToString());
        return -1;
      }
      return static_cast<int64_t>(r->src.size());
    };
  };
  // Two client threads keep the single server thread busy (pipelined).
  Drive(2, 0.5, sample_with(10), &err);
  RunStats s10 = Drive(2, seconds, sample_with(10), &err);
  RunStats s25 = Drive(2, seconds, sample_with(25), &err);
  StopServer(sclient->get(), &*psrv);
  sclient->reset();
  if (!err.ok()) return err;

  const double sock_gbps = *sock;
  std::printf("\n%-44s %10s %10s %10s %10s\n", "measurement", "GB/s", "calls/s", "p50 ms", "p99 ms");
  std::printf("%-44s %10.2f %10s %10s %10s\n", "raw loopback Asio socket blast (ceiling)", sock_gbps, "-", "-", "-");
  auto row = [&](const char* name, const RunStats& r) {
    std::printf("%-44s %10.2f %10.0f %10.2f %10.2f\n", name, r.gbps, r.calls_per_s, r.p50_ms, r.p99_ms);
  };
  row("PULL 10k ids x 400 B, 1 client thread", pull1);
  row("PULL 10k ids x 400 B, 4 client threads", pull4);
  row("PULL 10k ids as 4 pipelined requests, 1 thr", pull1c);
  std::printf("%-44s %10s %10s %10s %10s\n", "SAMPLE_NEIGHBORS (1 server thread)", "Medges/s", "calls/s", "p50 ms",
              "p99 ms");
  std::printf("%-44s %10.2f %10.0f %10.2f %10.2f\n", "  fanout 10, 1000 seeds/call", s10.items_per_s / 1e6,
              s10.calls_per_s, s10.p50_ms, s10.p99_ms);
  std::printf("%-44s %10.2f %10.0f %10.2f %10.2f\n", "  fanout 25, 1000 seeds/call", s25.items_per_s / 1e6,
              s25.calls_per_s, s25.p50_ms, s25.p99_ms);
  std::printf("%-44s %10s %10s %10s %10s\n", "SPARSE_UPDATE sparse_adagrad, W=1, 10k ids", "Mrows/s", "calls/s",
              "p50 ms", "p99 ms");
  for (const SparseFigures& f : sparse) {
    std::printf("  dim %-3lld PULL of the same tensor %18.2f %10.0f %10.2f %10.2f\n", (long long)f.dim,
                f.pull.items_per_s / 1e6, f.pull.calls_per_s, f.pull.p50_ms, f.pull.p99_ms);
    std::printf("  dim %-3lld SPARSE_UPDATE %27.2f %10.0f %10.2f %10.2f   (%.2f x PULL)\n", (long long)f.dim,
                f.update.items_per_s / 1e6, f.update.calls_per_s, f.update.p50_ms, f.update.p99_ms,
                f.update.items_per_s / f.pull.items_per_s);
  }
  std::printf("pull_ratio = PULL (1 thread) / socket ceiling = %.2f (target >= 0.8)\n", pull1.gbps / sock_gbps);
  double per_thread = std::min(s10.items_per_s, s25.items_per_s) / 1e6;
  std::string sparse_json;
  for (const SparseFigures& f : sparse) {
    char buf[256];
    std::snprintf(buf, sizeof(buf),
                  "\"sparse_update_rows_per_s_d%lld\": %.0f, \"sparse_pull_rows_per_s_d%lld\": %.0f, "
                  "\"sparse_update_vs_pull_d%lld\": %.3f, \"sparse_update_p50_ms_d%lld\": %.3f, ",
                  (long long)f.dim, f.update.items_per_s, (long long)f.dim, f.pull.items_per_s, (long long)f.dim,
                  f.update.items_per_s / f.pull.items_per_s, (long long)f.dim, f.update.p50_ms);
    sparse_json += buf;
  }
  std::printf("sampled edges/s per server thread = %.2f M (min of fanout 10/25; target >= 5)\n\n", per_thread);
  std::printf(
      "{\"socket_gbps\": %.3f, \"pull_gbps\": %.3f, \"pull_ratio\": %.3f, \"pull_gbps_4\": %.3f, "
      "\"pull_gbps_pipelined\": %.3f, \"pull_p50_ms\": %.3f, \"pull_p99_ms\": %.3f, "
      "\"sample_medges_per_s_per_thread\": %.3f, \"sample_medges_f10\": %.3f, \"sample_medges_f25\": %.3f, "
      "\"sample_p50_ms\": %.3f, \"sample_p99_ms\": %.3f, %s\"cores\": %u, \"servers\": \"child processes\"}\n",
      sock_gbps, pull1.gbps, pull1.gbps / sock_gbps, pull4.gbps, pull1c.gbps, pull1.p50_ms, pull1.p99_ms, per_thread,
      s10.items_per_s / 1e6, s25.items_per_s / 1e6, s10.p50_ms, s10.p99_ms, sparse_json.c_str(),
      std::thread::hardware_concurrency());
  std::fflush(stdout);
  if (o.workdir.empty()) {  // a temp dir of ours
    std::string cmd = "rm -rf '" + workdir + "'";
    if (std::system(cmd.c_str()) != 0) spdlog::warn("could not remove {}", workdir);
  }
  return Status::OK();
}

}  // namespace dg
