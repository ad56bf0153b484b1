// distgnn-mpi-partition's edge pieces under a real `mpirun` on 127.0.0.1:
// --edge-data rows follow their edges through every normalization (checked
// against NormalizeEdges' origins in memory: each part's row of an edge is the
// input row the single-machine partitioner gives it); a file with the wrong
// row count, or a typed dataset, is one error naming the flag; --edge-split
// holds the same edges out for P = 2 and P = 3 with one machine's counts, an
// edge and its reverse together, out of every CSR; and `partition verify`
// finds every file of a plain, a split and a typed MPI output matching the
// SHA-256 recorded in NAME.json. Cora split by the MPI partitioner trains
// link prediction through `distgnn launch` (2 machines on 127.0.0.1).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "common/io/npy.h"
#include "common/storage/dataset.h"
#include "common/storage/link_split.h"
#include "common/storage/partition.h"
#include "test/partition/mpi_run.h"
#include "test/partition/partition_checks.h"
#include "test/support/skip.h"
#include "test/support/test_support.h"

using namespace dg;
using namespace dg::test;
namespace fs = std::filesystem;

namespace {

using Pair = std::pair<int64_t, int64_t>;

Array Column(const std::vector<int64_t>& v) {
  Array a = Array::Zeros(DType::kInt64, {static_cast<int64_t>(v.size())});
  std::copy(v.begin(), v.end(), a.as<int64_t>());
  return a;
}

// Rows origin[k] of a, for k in order.
Array Gather(const Array& a, const std::vector<int64_t>& origin) {
  std::vector<int64_t> shape = a.shape;
  shape[0] = static_cast<int64_t>(origin.size());
  Array out = Array::Zeros(a.dtype, shape);
  const size_t rb = a.row_bytes();
  for (size_t k = 0; k < origin.size(); ++k)
    std::memcpy(static_cast<char*>(out.data) + k * rb, static_cast<const char*>(a.data) + origin[k] * rb, rb);
  return out;
}

// `partition verify` on json: exit 0 and every file of the output directory
// but the json matching its recorded checksum.
void CheckVerify(const std::string& json) {
  size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(json).parent_path()))
    files += e.is_regular_file() && e.path() != json;
  auto v = RunDistgnn({"partition", "verify", json});
  INFO(v.output);
  CHECK(v.exit_code == 0);
  CHECK(v.output.find(std::to_string(files) + " files match their SHA-256 checksums") != std::string::npos);
  auto cfg = LoadAnyPartitionConfig(json);
  REQUIRE(cfg.ok());
  CHECK(cfg->checksums.size() == files);
}

// A graph with loops, duplicates and reverse pairs, labels, and two edge
// arrays beside the dataset directory (whose .npy files are node arrays).
struct EdgeDataset {
  std::string dir, w_file, t_file;
  int64_t num_nodes = 300;
  EdgeList edges;
  std::map<std::string, Array> edge_data;
};

EdgeDataset MakeEdgeDataset(const std::string& dir) {
  EdgeDataset d;
  d.dir = dir;
  d.w_file = dir + "-w.npy";
  d.t_file = dir + "-t.npy";
  fs::create_directories(dir);
  std::mt19937_64 rng(11);
  for (int e = 0; e < 3000; ++e) {
    int64_t s = static_cast<int64_t>(rng() % d.num_nodes), t = static_cast<int64_t>(rng() % d.num_nodes);
    if (e % 53 == 0) t = s;                                                   // a loop
    if (e % 7 == 0 && e > 0) s = d.edges.src[e - 5], t = d.edges.dst[e - 5];  // a duplicate
    if (e % 11 == 0 && e > 0) s = d.edges.dst[e - 3], t = d.edges.src[e - 3];  // a reverse
    d.edges.src.push_back(s);
    d.edges.dst.push_back(t);
  }
  const int64_t E = static_cast<int64_t>(d.edges.src.size());
  Array w = Array::Zeros(DType::kFloat32, {E, 3});
  for (int64_t e = 0; e < 3 * E; ++e) w.as<float>()[e] = static_cast<float>(e) * 0.5f;
  std::vector<int64_t> t(E), labels(d.num_nodes);
  for (int64_t e = 0; e < E; ++e) t[e] = 7 * e + 1;
  for (int64_t v = 0; v < d.num_nodes; ++v) labels[v] = v % 5;
  d.edge_data["w"] = w;
  d.edge_data["t"] = Column(t);
  REQUIRE(NpyWrite(dir + "/src.npy", Column(d.edges.src)).ok());
  REQUIRE(NpyWrite(dir + "/dst.npy", Column(d.edges.dst)).ok());
  REQUIRE(NpyWrite(dir + "/labels.npy", Column(labels)).ok());
  REQUIRE(NpyWrite(d.w_file, w).ok());
  REQUIRE(NpyWrite(d.t_file, d.edge_data["t"]).ok());
  return d;
}

// The single-machine reference: NormalizeEdges' list, and each edge's rows by its origin.
ReferenceGraph Reference(const EdgeDataset& d, const EdgeListOptions& eo) {
  EdgeList el = d.edges;
  std::vector<int64_t> origin;
  NormalizeEdges(&el, eo, &origin);
  ReferenceGraph g;
  g.num_nodes = d.num_nodes;
  g.src = el.src;
  g.dst = el.dst;
  g.node_data["labels"] = *NpyMap(d.dir + "/labels.npy");
  for (const auto& [name, a] : d.edge_data) g.edge_data[name] = Gather(a, origin);
  return g;
}

// Pairs (original ids) of every part's CSR, and of its held-out val / test edges.
struct SplitPairs {
  std::set<Pair> train, val, test;
};

SplitPairs ReadSplit(const PartitionConfig& cfg) {
  auto orig = NpyMap(cfg.base_dir + "/orig_nids.npy");
  REQUIRE(orig.ok());
  const int64_t* o = orig->as<int64_t>();
  SplitPairs s;
  for (int p = 0; p < cfg.num_parts; ++p) {
    auto lp = OpenLocalPartition(cfg, p);
    REQUIRE(lp.ok());
    const int64_t* ip = lp->indptr.as<int64_t>();
    for (int64_t row = 0; row < lp->num_owned(); ++row)
      for (int64_t j = ip[row]; j < ip[row + 1]; ++j)
        s.train.insert({o[lp->indices.as<int64_t>()[j]], o[lp->node_begin + row]});
    for (const char* which : {"val", "test"}) {
      EdgeList h;
      REQUIRE(ReadHeldOutEdges(cfg.PartDir(p), which, &h).ok());
      for (size_t i = 0; i < h.src.size(); ++i) {
        CHECK(h.dst[i] >= cfg.node_map[p]);  // stored by the part owning the destination
        CHECK(h.dst[i] < cfg.node_map[p + 1]);
        (std::string(which) == "val" ? s.val : s.test).insert({o[h.src[i]], o[h.dst[i]]});
      }
    }
  }
  return s;
}

// "key": value of a metrics.jsonl line (NaN if absent or null).
double Field(const std::string& line, const std::string& key) {
  std::smatch m;
  if (!std::regex_search(line, m, std::regex("\"" + key + "\": ([-0-9.e]+)"))) return std::nan("");
  return std::stod(m[1]);
}

}  // namespace

TEST_CASE("MPI partition: --edge-data rows follow their edges through every normalization", "[partition][mpi]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  const EdgeDataset d = MakeEdgeDataset(tmp / "ds");
  struct Case {
    int np, k;
    std::vector<std::string> flags;
  };
  // Loops alone keep the input order (no flags: the same path, nothing dropped).
  for (const Case& c : std::vector<Case>{{2, 3, {"--undirected"}},
                                         {3, 4, {"--drop-duplicates", "--drop-self-loops"}},
                                         {3, 2, {"--drop-self-loops"}}}) {
    const std::string tag = std::to_string(c.np) + "-" + std::to_string(c.k);
    std::vector<std::string> args = {"--dataset", d.dir, "--num-parts", std::to_string(c.k), "--name", "g", "--out",
                                     tmp / ("g" + tag), "--edge-data", "w=" + d.w_file, "--edge-data",
                                     "t=" + d.t_file};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    auto r = RunMpi(c.np, args, tmp / ("log" + tag));
    INFO("P=" << c.np << " K=" << c.k << "\n" << r.output);
    REQUIRE(r.exit_code == 0);
    EdgeListOptions eo;
    for (const std::string& f : c.flags) {
      eo.undirected |= f == "--undirected";
      eo.drop_duplicates |= f == "--drop-duplicates";
      eo.drop_self_loops |= f == "--drop-self-loops";
    }
    // Every edge once in its part, with the rows of its origin (CheckPartition compares them).
    const PartitionConfig cfg = CheckPartition(tmp / ("g" + tag + "/g.json"), Reference(d, eo), c.k);
    REQUIRE(cfg.edge_data.size() == 2);
    CHECK(cfg.edge_data.at("w").dtype == DType::kFloat32);
    CHECK(cfg.edge_data.at("w").shape == std::vector<int64_t>{cfg.num_edges, 3});
    CHECK(cfg.edge_data.at("t").shape == std::vector<int64_t>{cfg.num_edges});
    CheckVerify(tmp / ("g" + tag + "/g.json"));
  }
}

TEST_CASE("MPI partition: --edge-data with the wrong row count or a typed dataset is one error", "[partition][mpi]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  const EdgeDataset d = MakeEdgeDataset(tmp / "ds");
  REQUIRE(NpyWrite(tmp / "short.npy", Column(std::vector<int64_t>(2999, 1))).ok());
  auto r = RunMpi(2, {"--dataset", d.dir, "--undirected", "--num-parts", "2", "--name", "x", "--out",
                      tmp / "badrows", "--edge-data", "w=" + (tmp / "short.npy")},
                  tmp / "log1", 60);
  INFO(r.output);
  CHECK(r.exit_code != 0);
  const std::string want = "--edge-data w=" + (tmp / "short.npy") + ": 2999 rows, expected 3000 (one per input edge)";
  CHECK(r.output.find(want) != std::string::npos);
  CHECK(r.output.find(want) == r.output.rfind(want));  // once, from the lowest rank
  CHECK(r.output.find("rank 0 on ") != std::string::npos);
  CHECK(NoTraceOf(tmp.path(), "badrows"));

  r = RunMpi(2, {"--dataset", SourceDir() + "/data/imdb-hetero", "--num-parts", "2", "--name", "y", "--out",
                 tmp / "typedrun", "--edge-data", "w=" + d.w_file},
             tmp / "log2", 60);
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("--edge-data is not supported for a typed dataset") != std::string::npos);
  CHECK(NoTraceOf(tmp.path(), "typedrun"));
}

TEST_CASE("MPI partition: --edge-split holds out the same edges for P = 2 and P = 3", "[partition][mpi][link]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  auto input = LoadDataset(CoraDir(), EdgeListOptions{});
  REQUIRE(input.ok());
  const int64_t E0 = static_cast<int64_t>(input->edges.src.size());
  std::vector<int64_t> row(E0);  // an edge array holding each input edge's row
  for (int64_t e = 0; e < E0; ++e) row[e] = e;
  REQUIRE(NpyWrite(tmp / "row.npy", Column(row)).ok());
  // The reference: the normalized pairs and the input row each takes its edge data from.
  EdgeList all_edges = input->edges;
  std::vector<int64_t> origin;
  EdgeListOptions eo;
  eo.undirected = true;
  NormalizeEdges(&all_edges, eo, &origin);
  std::map<Pair, int64_t> origin_of;
  for (size_t k = 0; k < origin.size(); ++k) origin_of[{all_edges.src[k], all_edges.dst[k]}] = origin[k];
  REQUIRE(origin_of.size() == 10556);

  SplitPairs first;
  for (int np : {2, 3}) {
    const std::string out = tmp / ("cora" + std::to_string(np));
    auto r = RunMpi(np, {"--dataset", CoraDir(), "--undirected", "--num-parts", std::to_string(np), "--name", "cora",
                         "--out", out, "--edge-split", "0.85,0.05,0.10", "--seed", "3", "--edge-data",
                         "row=" + (tmp / "row.npy")},
                    tmp / ("log" + std::to_string(np)));
    INFO("P=" << np << "\n" << r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(r.output.find("edge split: 8972 train / 528 val / 1056 test edges") != std::string::npos);
    auto cfg = LoadPartitionConfig(out + "/cora.json");
    REQUIRE(cfg.ok());
    auto info = ReadLinkSplitInfo(out);
    REQUIRE(info.ok());
    REQUIRE(info->present);
    CHECK(info->undirected);
    const SplitPairs s = ReadSplit(*cfg);
    CHECK(static_cast<int64_t>(s.train.size()) == cfg->num_edges);
    CHECK(info->num_train == cfg->num_edges);
    CHECK(info->num_val == static_cast<int64_t>(s.val.size()));
    CHECK(info->num_test == static_cast<int64_t>(s.test.size()));
    // One machine's counts: round(0.05 * 5278) = 264 val pairs, 528 test pairs, both directions.
    CHECK(s.val.size() == 2 * 264);
    CHECK(s.test.size() == 2 * 528);
    CHECK(s.train.size() + s.val.size() + s.test.size() == origin_of.size());
    for (const std::set<Pair>* held : {&s.val, &s.test})
      for (const auto& [a, b] : *held) {
        CHECK(origin_of.count({a, b}) == 1);
        CHECK(held->count({b, a}) == 1);  // the reverse shares the split
        CHECK(s.train.count({a, b}) == 0);
        CHECK(s.train.count({b, a}) == 0);
      }
    // Edge rows of the train edges: their origin's, after the held-out edges left.
    auto orig = NpyMap(out + "/orig_nids.npy");
    for (int p = 0; p < cfg->num_parts; ++p) {
      auto lp = OpenLocalPartition(*cfg, p);
      REQUIRE(lp.ok());
      const int64_t* ip = lp->indptr.as<int64_t>();
      for (int64_t v = 0; v < lp->num_owned(); ++v)
        for (int64_t j = ip[v]; j < ip[v + 1]; ++j) {
          const Pair e{orig->as<int64_t>()[lp->indices.as<int64_t>()[j]], orig->as<int64_t>()[lp->node_begin + v]};
          REQUIRE(lp->edge_data.at("row").as<int64_t>()[j] == origin_of.at(e));
        }
    }
    CheckVerify(out + "/cora.json");
    if (np == 2) first = s;
    else CHECK((s.val == first.val && s.test == first.test && s.train == first.train));
  }
}

TEST_CASE("MPI partition: partition verify matches the checksums of a typed output", "[partition][mpi][typed]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  auto r = RunMpi(2, {"--dataset", SourceDir() + "/data/imdb-hetero", "--undirected", "--num-parts", "3", "--name",
                      "imdb", "--out", tmp / "imdb"},
                  tmp / "log");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CheckVerify(tmp / "imdb/imdb.json");
  auto cfg = LoadAnyPartitionConfig(tmp / "imdb/imdb.json");
  REQUIRE(cfg.ok());
  for (const char* f : {"type_nids/movie.npy", "orig_eids.npy", "part2/edge_types.npy", "part1/agg_src.npy"})
    CHECK(cfg->checksums.count(f) == 1);
}

// The job of test_link_launch.cpp's 2-partition case (SAGE, lr 0.001, fanouts
// [10, 25], 256 edges a batch per trainer) without sampler processes and with
// 4 epochs at lr 0.002 instead of 30 at 0.001, to stay short.
TEST_CASE("MPI partition: Cora split by --edge-split trains link prediction through launch",
          "[partition][mpi][link][cora]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir dir;
  auto r = RunMpi(2, {"--dataset", CoraDir(), "--undirected", "--num-parts", "2", "--name", "cora", "--out",
                      dir / "parts", "--edge-split", "0.85,0.05,0.10"},
                  dir / "mpi.log");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  r = RunDistgnn({"model", "export", "--arch", "sage", "--in-dim", "1433", "--hidden", "128", "--layers", "2", "--task",
                  "link", "-o", dir / "sage.pt"});
  REQUIRE(r.exit_code == 0);
  const int base = FreePortRange(5);
  std::ofstream(dir / "job.yaml")
      << "job: link\npartition: parts/cora.json\nmachines:\n  - host: 127.0.0.1\n  - host: 127.0.0.1\n"
      << "ports: {server: " << base << ", trainer: " << base + 2 << ", rendezvous: " << base + 4 << "}\n"
      << "processes: {servers: 1, trainers: 1, samplers_per_trainer: 0}\n"
      << "train: {model: sage.pt, task: link, negative: {k: 1, distribution: uniform}, eval_negatives: 100, "
      << "fanouts: [10, 25], batch_size: 256, epochs: 4, eval_every: 4, lr: 0.002, seed: 0, intra_op_threads: 1}\n"
      << "output_dir: runs\n";
  r = RunDistgnn({"launch", dir / "job.yaml"}, 300);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  std::vector<std::string> lines;
  std::istringstream in(ReadAll(dir / "runs/link/metrics.jsonl"));
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  REQUIRE(lines.size() == 5);
  INFO(lines.back());
  CHECK(Field(lines[0], "positive_edges") == 8972);  // every train edge once an epoch
  for (int e = 1; e < 4; ++e) CHECK(Field(lines[e], "loss") < Field(lines[e - 1], "loss"));
  CHECK(Field(lines.back(), "test_auc") >= 0.80);
}
