// `--format ogb`: small datasets written in exactly OGB's on-disk layout
// (homogeneous node property datasets such as ogbn-products, and ogbn-mag's
// typed one) are read as they are, compared value by value with what was
// written, and partitioned by the binary (partition invariants checked).
#include <zlib.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <random>
#include <sstream>

#include "common/storage/ogb_dataset.h"
#include "test/partition/partition_checks.h"
#include "test/support/test_support.h"

using namespace dg;
namespace fs = std::filesystem;

namespace {

void WriteGz(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  gzFile gz = gzopen(path.c_str(), "wb");
  REQUIRE(gz != nullptr);
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
}

struct Truth {
  int64_t n = 0;
  std::vector<int64_t> src, dst, labels;  // label -1 = nan in the file
  std::vector<float> feat;                // n x f
  int f = 0;
  std::vector<int8_t> split;
};

// A random graph of n nodes written as OGB node property files under dir
// (edge.csv.gz at raw/ or raw/relations/X/, node-feat / node-label at raw/ or
// raw/node-feat/<type>/ ...); returns what was written.
Truth RandomTypeFiles(std::mt19937_64& rng, int64_t n, int64_t n_dst, int64_t e, int f, int classes) {
  Truth t;
  t.n = n;
  t.f = f;
  for (int64_t k = 0; k < e; ++k) {
    t.src.push_back(static_cast<int64_t>(rng() % n));
    t.dst.push_back(static_cast<int64_t>(rng() % n_dst));
  }
  for (int64_t i = 0; i < n * f; ++i) t.feat.push_back(static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 256.0f);
  for (int64_t i = 0; i < n; ++i) {
    t.labels.push_back(rng() % 10 == 0 ? -1 : static_cast<int64_t>(rng() % classes));
    t.split.push_back(static_cast<int8_t>(rng() % 5 == 0 ? -1 : rng() % 3));
  }
  return t;
}

std::string EdgeCsv(const Truth& t) {
  std::ostringstream s;
  for (size_t k = 0; k < t.src.size(); ++k) s << t.src[k] << "," << t.dst[k] << "\n";
  return s.str();
}
std::string FeatCsv(const Truth& t) {
  std::ostringstream s;
  s.precision(9);
  for (int64_t i = 0; i < t.n; ++i)
    for (int j = 0; j < t.f; ++j) s << t.feat[i * t.f + j] << (j + 1 == t.f ? "\n" : ",");
  return s.str();
}
std::string LabelCsv(const Truth& t) {
  std::ostringstream s;
  for (int64_t l : t.labels) {
    if (l < 0) s << "nan\n";
    else s << l << "\n";
  }
  return s.str();
}
void WriteSplit(const std::string& dir, const Truth& t) {
  const char* names[] = {"train", "valid", "test"};
  for (int v = 0; v < 3; ++v) {
    std::ostringstream s;
    for (int64_t i = 0; i < t.n; ++i)
      if (t.split[i] == v) s << i << "\n";
    WriteGz(dir + "/" + names[v] + ".csv.gz", s.str());
  }
}

void CheckNodeArrays(const std::map<std::string, Array>& got, const Truth& t) {
  REQUIRE(got.at("features").shape == std::vector<int64_t>{t.n, t.f});
  for (int64_t i = 0; i < t.n * t.f; ++i) REQUIRE(got.at("features").as<float>()[i] == t.feat[i]);
  REQUIRE(got.at("labels").shape == std::vector<int64_t>{t.n});
  for (int64_t i = 0; i < t.n; ++i) REQUIRE(got.at("labels").as<int64_t>()[i] == t.labels[i]);
  for (int64_t i = 0; i < t.n; ++i) REQUIRE(got.at("split").as<int8_t>()[i] == t.split[i]);
}

// ogbn-products' layout under dir: n nodes, e edges, 4 features, 5 classes.
Truth WriteHomogeneous(const std::string& dir, std::mt19937_64& rng, int64_t n, int64_t e) {
  Truth t = RandomTypeFiles(rng, n, n, e, 4, 5);
  WriteGz(dir + "/raw/edge.csv.gz", EdgeCsv(t));
  WriteGz(dir + "/raw/node-feat.csv.gz", FeatCsv(t));
  WriteGz(dir + "/raw/node-label.csv.gz", LabelCsv(t));
  WriteGz(dir + "/raw/num-node-list.csv.gz", std::to_string(n) + "\n");
  WriteGz(dir + "/raw/num-edge-list.csv.gz", std::to_string(e) + "\n");
  WriteSplit(dir + "/split/sales_ranking", t);
  return t;
}

const int64_t kAuthors = 120, kFields = 30, kInstitutions = 10, kPapers = 200;

struct MagTruth {
  Truth paper;
  std::vector<Truth> rels;  // affiliated_with, writes, has_topic
};

// ogbn-mag's layout under dir (types in num-node-dict's order, which OGB writes sorted).
MagTruth WriteMag(const std::string& dir, std::mt19937_64& rng) {
  WriteGz(dir + "/raw/num-node-dict.csv.gz", "author,field_of_study,institution,paper\n120,30,10,200\n");
  MagTruth m;
  m.paper = RandomTypeFiles(rng, kPapers, kPapers, 600, 3, 4);  // paper cites paper, features, labels, split
  WriteGz(dir + "/raw/relations/paper___cites___paper/edge.csv.gz", EdgeCsv(m.paper));
  WriteGz(dir + "/raw/node-feat/paper/node-feat.csv.gz", FeatCsv(m.paper));
  WriteGz(dir + "/raw/node-label/paper/node-label.csv.gz", LabelCsv(m.paper));
  WriteSplit(dir + "/split/time/paper", m.paper);
  struct Rel {
    std::string name;
    int64_t ns, nd;
  };
  const std::vector<Rel> rels = {{"author___affiliated_with___institution", kAuthors, kInstitutions},
                                 {"author___writes___paper", kAuthors, kPapers},
                                 {"paper___has_topic___field_of_study", kPapers, kFields}};
  for (const Rel& r : rels) {
    m.rels.push_back(RandomTypeFiles(rng, r.ns, r.nd, 400, 1, 2));
    WriteGz(dir + "/raw/relations/" + r.name + "/edge.csv.gz", EdgeCsv(m.rels.back()));
    WriteGz(dir + "/raw/relations/" + r.name + "/edge_reltype.csv.gz", "0\n");  // ignored
  }
  return m;
}

// `partition --format ogb` in memory and under a small budget (many spilled
// runs): every output file the same.
void RequireSameAsInMemory(const test::TempDir& tmp, const std::string& dir, std::vector<std::string> flags,
                           const std::string& tag, size_t min_files) {
  std::vector<std::string> a = {"partition", "--dataset", dir, "--format", "ogb", "--num-parts", "3",
                                "--name", "g", "--seed", "5"};
  a.insert(a.end(), flags.begin(), flags.end());
  std::vector<std::string> b = a;
  a.insert(a.end(), {"--out", tmp / ("mem-" + tag)});
  b.insert(b.end(), {"--out", tmp / ("ooc-" + tag), "--memory-budget", "64M", "--run-size", "16K", "--tmp-dir",
                     tmp.path()});
  auto ra = test::RunDistgnn(a);
  INFO(ra.output);
  REQUIRE(ra.exit_code == 0);
  auto rb = test::RunDistgnn(b);
  INFO(rb.output);
  REQUIRE(rb.exit_code == 0);
  CHECK(rb.output.find("out of core") != std::string::npos);
  test::RequireSameTree(tmp / ("mem-" + tag), tmp / ("ooc-" + tag), min_files);
}

}  // namespace

TEST_CASE("ogb format: a homogeneous node property dataset (ogbn-products layout)", "[ogb]") {
  test::TempDir tmp;
  std::mt19937_64 rng(7);
  const std::string dir = tmp / "ogbn_toy";
  Truth t = WriteHomogeneous(dir, rng, 300, 1500);
  REQUIRE(!IsOgbHeterogeneous(dir));
  auto ds = LoadOgbDataset(dir, EdgeListOptions{});
  INFO(ds.status().ToString());
  REQUIRE(ds.ok());
  CHECK(ds->num_nodes == 300);
  CHECK(ds->edges.src == t.src);
  CHECK(ds->edges.dst == t.dst);
  CheckNodeArrays(ds->node_data, t);

  auto r = test::RunDistgnn({"partition", "--dataset", dir, "--format", "ogb", "--num-parts", "2", "--name", "toy",
                             "--out", tmp / "parts"});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  test::ReferenceGraph g;
  g.num_nodes = 300;
  g.src = t.src;
  g.dst = t.dst;
  g.node_data = ds->node_data;
  PartitionConfig cfg = test::CheckPartition(tmp / "parts/toy.json", g, 2);
  CHECK(cfg.format_version == 1);

  // A malformed line is named by file:line.
  WriteGz(dir + "/raw/node-label.csv.gz", "1\n2\nx\n");
  auto bad = LoadOgbDataset(dir, EdgeListOptions{});
  REQUIRE(!bad.ok());
  CHECK(bad.status().ToString().find("node-label.csv.gz:3") != std::string::npos);
}

TEST_CASE("ogb format: ogbn-mag's typed layout", "[ogb]") {
  test::TempDir tmp;
  std::mt19937_64 rng(11);
  const std::string dir = tmp / "mag";
  const int64_t na = kAuthors, nf = kFields, ni = kInstitutions, np = kPapers;
  MagTruth m = WriteMag(dir, rng);
  const Truth& paper = m.paper;
  REQUIRE(IsOgbHeterogeneous(dir));
  auto ds = LoadOgbTypedDataset(dir, TypedLoadOptions{});
  INFO(ds.status().ToString());
  REQUIRE(ds.ok());
  REQUIRE(ds->node_types.size() == 4);
  CHECK(ds->node_types[0].name == "author");
  CHECK(ds->node_types[3].name == "paper");
  CHECK(ds->node_types[3].count == np);
  CHECK(ds->target == "paper");
  CHECK(ds->num_classes == 4);
  // Edge types in relation directory name order.
  REQUIRE(ds->edge_types.size() == 4);
  CHECK(ds->edge_types[0].relation == "affiliated_with");
  CHECK(ds->edge_types[1].relation == "writes");
  CHECK(ds->edge_types[2].relation == "cites");
  CHECK(ds->edge_types[3].relation == "has_topic");
  CHECK(ds->edge_types[2].src == paper.src);
  CHECK(ds->edge_types[2].dst == paper.dst);
  CHECK(ds->edge_types[0].src == m.rels[0].src);
  CHECK(ds->edge_types[3].dst == m.rels[2].dst);
  CheckNodeArrays(ds->node_types[3].data, paper);
  CHECK(ds->node_types[0].data.empty());

  auto r = test::RunDistgnn({"partition", "--dataset", dir, "--format", "ogb", "--undirected", "--num-parts", "2",
                             "--name", "mag", "--out", tmp / "parts"});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto und = LoadOgbTypedDataset(dir, TypedLoadOptions{true, false, false});
  REQUIRE(und.ok());
  REQUIRE(und->edge_types.size() == 8);
  CHECK(und->edge_types[6].relation == "rev_cites");
  PartitionConfig cfg = test::CheckTypedPartition(tmp / "parts/mag.json", *und, 2);
  CHECK(cfg.target == "paper");

  // --merge-types: one node and one edge type; paper rows carry paper's features,
  // labels and split (ids type-major: paper is the last type), the others zeros and -1.
  r = test::RunDistgnn({"partition", "--dataset", dir, "--format", "ogb", "--undirected", "--merge-types",
                        "--num-parts", "2", "--name", "mag", "--out", tmp / "merged"});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto merged = LoadPartitionConfig(tmp / "merged/mag.json");
  REQUIRE(merged.ok());
  CHECK(merged->num_nodes == na + nf + ni + np);
  CHECK(merged->num_edges == und->NumEdges());
  CHECK(merged->num_classes == 4);
  auto orig = NpyMap(tmp / "merged/orig_nids.npy");
  REQUIRE(orig.ok());
  const Array& feats = und->node_types[3].data.at("features");
  const Array& labels = und->node_types[3].data.at("labels");
  const int64_t paper0 = na + nf + ni;
  int64_t wrong = 0, papers = 0;
  for (int p = 0; p < 2; ++p) {
    auto lp = OpenLocalPartition(*merged, p);
    REQUIRE(lp.ok());
    const Array& f = lp->node_data.at("features");
    REQUIRE(f.shape == std::vector<int64_t>{lp->num_owned(), 3});
    for (int64_t i = 0; i < lp->num_owned(); ++i) {
      const int64_t o = orig->as<int64_t>()[lp->node_begin + i];
      const bool paper_row = o >= paper0;
      papers += paper_row;
      for (int c = 0; c < 3; ++c)
        wrong += f.as<float>()[i * 3 + c] != (paper_row ? feats.as<float>()[(o - paper0) * 3 + c] : 0.f);
      wrong += lp->node_data.at("labels").as<int64_t>()[i] != (paper_row ? labels.as<int64_t>()[o - paper0] : -1);
      if (!paper_row) wrong += lp->node_data.at("split").as<int8_t>()[i] != -1;
    }
  }
  CHECK(papers == np);
  CHECK(wrong == 0);
}

TEST_CASE("ogb format under --memory-budget: the in-memory partition, byte for byte", "[ogb][ooc]") {
  test::TempDir tmp;
  std::mt19937_64 rng(3);
  const std::string dir = tmp / "toy";
  WriteHomogeneous(dir, rng, 400, 3000);
  for (const std::string method : {"random", "stream", "metis"}) {
    INFO(method);
    RequireSameAsInMemory(tmp, dir, {"--method", method}, method, 9);
    RequireSameAsInMemory(tmp, dir, {"--method", method, "--undirected", "--normalize-features"}, method + "-u", 9);
  }
  // The node count from node-feat's rows, then (no node-feat) from the largest edge id.
  fs::remove(dir + "/raw/num-node-list.csv.gz");
  RequireSameAsInMemory(tmp, dir, {"--method", "stream"}, "no-count", 9);
  fs::remove(dir + "/raw/node-feat.csv.gz");
  RequireSameAsInMemory(tmp, dir, {"--method", "random", "--drop-self-loops"}, "no-feat", 8);

  const std::string mag = tmp / "mag";
  WriteMag(mag, rng);
  for (const std::string method : {"random", "stream", "metis"}) {
    INFO(method);
    RequireSameAsInMemory(tmp, mag, {"--method", method, "--undirected"}, "mag-" + method, 11);
  }
  RequireSameAsInMemory(tmp, mag, {"--merge-types", "--undirected"}, "mag-merged", 9);
  // No scratch directories left behind.
  for (const auto& e : fs::directory_iterator(tmp.path()))
    CHECK(e.path().filename().string().find("spill") == std::string::npos);
}

TEST_CASE("ogb format under --memory-budget: a bad line names OGB's file and line, a small budget writes nothing",
          "[ogb][ooc]") {
  test::TempDir tmp;
  std::mt19937_64 rng(5);
  const std::string dir = tmp / "toy", mag = tmp / "mag";
  WriteHomogeneous(dir, rng, 300, 1500);
  WriteMag(mag, rng);
  fs::create_directories(tmp / "outs");
  auto run = [&](const std::string& d, const std::string& budget) {
    return test::RunDistgnn({"partition", "--dataset", d, "--format", "ogb", "--num-parts", "2", "--method", "stream",
                             "--name", "g", "--out", tmp / "outs/p", "--memory-budget", budget, "--tmp-dir", tmp.path()});
  };
  auto small = run(dir, "1M");
  INFO(small.output);
  CHECK(small.exit_code != 0);
  CHECK(small.output.find("is too small for 300 nodes") != std::string::npos);
  auto small_mag = run(mag, "1M");
  CHECK(small_mag.exit_code != 0);
  CHECK(small_mag.output.find("is too small for 360 nodes") != std::string::npos);

  WriteGz(dir + "/raw/edge.csv.gz", "0,1\n2,3\n4;5\n");
  auto bad_edge = run(dir, "64M");
  INFO(bad_edge.output);
  CHECK(bad_edge.exit_code != 0);
  CHECK(bad_edge.output.find(dir + "/raw/edge.csv.gz:3") != std::string::npos);
  WriteGz(dir + "/raw/node-feat.csv.gz", "1,2,3,4\n1,2,x,4\n");
  auto bad_feat = run(dir, "64M");
  INFO(bad_feat.output);
  CHECK(bad_feat.exit_code != 0);
  CHECK(bad_feat.output.find(dir + "/raw/node-feat.csv.gz:2") != std::string::npos);
  WriteGz(mag + "/raw/relations/author___writes___paper/edge.csv.gz", "0,1\n1,500\n");
  auto bad_rel = run(mag, "64M");
  INFO(bad_rel.output);
  CHECK(bad_rel.exit_code != 0);
  CHECK(bad_rel.output.find(mag + "/raw/relations/author___writes___paper/edge.csv.gz") != std::string::npos);
  CHECK(bad_rel.output.find("spill") == std::string::npos);  // not the link in the scratch directory

  CHECK(fs::is_empty(tmp / "outs"));
  for (const auto& e : fs::directory_iterator(tmp.path()))
    CHECK(e.path().filename().string().find("spill") == std::string::npos);
}

TEST_CASE("generate --format ogb: OGB's files partition as the same graph written as .npy, byte for byte",
          "[ogb][ooc][generate]") {
  test::TempDir tmp;
  const std::vector<std::string> shape = {"--nodes", "3000", "--edges", "40000", "--feat-dim", "8", "--classes", "4",
                                          "--seed", "3"};
  auto gen = [&](const std::vector<std::string>& extra, const std::string& out) {
    std::vector<std::string> args = {"generate"};
    args.insert(args.end(), shape.begin(), shape.end());
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--out", out});
    auto r = test::RunDistgnn(args);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
  };
  gen({}, tmp / "npy");
  gen({"--format", "ogb"}, tmp / "ogb");
  for (const char* f : {"raw/edge.csv.gz", "raw/node-feat.csv.gz", "raw/node-label.csv.gz", "raw/num-node-list.csv.gz",
                        "raw/num-edge-list.csv.gz", "split/random/train.csv.gz", "split/random/valid.csv.gz",
                        "split/random/test.csv.gz"})
    CHECK(fs::exists(tmp / ("ogb/" + std::string(f))));
  CHECK(!fs::exists(tmp / "ogb/npy"));
  for (const std::string method : {"stream", "metis"}) {
    INFO(method);
    auto part = [&](const std::string& dataset, std::vector<std::string> extra, const std::string& out) {
      std::vector<std::string> args = {"partition", "--dataset", tmp / dataset, "--num-parts", "3", "--method", method,
                                       "--undirected", "--name", "g", "--out", tmp / out, "--memory-budget", "64M"};
      args.insert(args.end(), extra.begin(), extra.end());
      auto r = test::RunDistgnn(args);
      INFO(r.output);
      REQUIRE(r.exit_code == 0);
    };
    part("npy", {}, "npy-" + method);
    part("ogb", {"--format", "ogb"}, "ogb-" + method);
    test::RequireSameTree(tmp / ("npy-" + method), tmp / ("ogb-" + method), 9);
  }
}
