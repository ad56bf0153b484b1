// Link prediction on one edge type of the bundled typed IMDB graph
// (movie -> director): the edge type named three ways and refused with the
// list of edge types; the held-out edges and their rev_ copies absent from the
// graph and from full-neighbour blocks around their endpoints; each link
// batch's positives (and rev_ copies) absent from its blocks while they are
// there without exclusion; negatives of the destination type only; and
// train-local with an RGCN beating the same run with an untrained model, the
// merged graph with a homogeneous model, and one clear error per bad flag.
#include "test/support/torch_catch.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <regex>
#include <set>
#include <tuple>

#include "common/sampling/edge_batch.h"
#include "common/sampling/minibatch.h"
#include "common/sampling/negative_sampler.h"
#include "common/sampling/typed_graph.h"
#include "common/sampling/typed_link.h"
#include "roles/trainer/model/typed_graph_input.h"
#include "test/support/test_support.h"

using namespace dg;

namespace {

std::string Imdb() { return test::SourceDir() + "/data/imdb-hetero"; }

double FinalField(const std::string& run_dir, const std::string& key) {
  std::ifstream in(run_dir + "/metrics.jsonl");
  std::string line, last;
  while (std::getline(in, line))
    if (line.find("\"final\"") != std::string::npos) last = line;
  std::smatch m;
  if (!std::regex_search(last, m, std::regex("\"" + key + "\": ([-0-9.e]+)"))) return std::nan("");
  return std::stod(m[1]);
}

using Triple = std::tuple<int64_t, int64_t, int64_t>;  // (src, dst, edge type), global ids

// Every edge of every block of `mb` as (src, dst, edge type) in global ids:
// block l's sources are a prefix of input_nodes, its destinations a prefix of those.
std::vector<Triple> BlockEdges(const MiniBatch& mb) {
  std::vector<Triple> out;
  for (const Block& b : mb.blocks) {
    REQUIRE(static_cast<int64_t>(b.etypes.size()) == b.num_edges());
    for (int64_t d = 0; d < b.num_dst; ++d)
      for (int64_t e = b.indptr[d]; e < b.indptr[d + 1]; ++e)
        out.emplace_back(mb.input_nodes[b.indices[e]], mb.input_nodes[d], b.etypes[e]);
  }
  return out;
}

}  // namespace

TEST_CASE("typed link: the edge type by name, its reverse, and a clear error listing the edge types",
          "[typed][link]") {
  int64_t classes = 0;
  auto in = LoadTypedGraphInput(Imdb(), /*undirected=*/true, &classes);
  REQUIRE(in.ok());
  auto a = FindEdgeType(*in, "movie:directed_by:director", "--link-etype");
  auto b = FindEdgeType(*in, "movie__directed_by__director", "--link-etype");
  auto c = FindEdgeType(*in, "directed_by", "--link-etype");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  REQUIRE(c.ok());
  CHECK(*a == 0);  // first in meta.json's edge_types
  CHECK(*b == 0);
  CHECK(*c == 0);
  const int rev = ReverseEdgeType(*in, 0);
  REQUIRE(rev >= 0);
  CHECK(in->edge_types[rev].relation == "rev_directed_by");
  CHECK(ReverseEdgeType(*in, rev) == 0);
  auto bad = FindEdgeType(*in, "movie:directed_by:actor", "--link-etype");
  REQUIRE(!bad.ok());
  CHECK(bad.status().message().find("--link-etype 'movie:directed_by:actor': no such edge type") != std::string::npos);
  CHECK(bad.status().message().find("movie:starring:actor") != std::string::npos);
  // A relation shared by two edge types must be named in full.
  TypedGraphInput two = *in;
  two.edge_types[1].relation = "directed_by";
  auto amb = FindEdgeType(two, "directed_by", "--link-etype");
  REQUIRE(!amb.ok());
  CHECK(amb.status().message().find("belongs to 2 edge types") != std::string::npos);
  auto directed = LoadTypedGraphInput(Imdb(), /*undirected=*/false, &classes);
  REQUIRE(directed.ok());
  CHECK(ReverseEdgeType(*directed, 0) == -1);
}

TEST_CASE("typed link: held-out edges and each batch's positives never reach the blocks", "[typed][link]") {
  int64_t classes = 0;
  auto loaded = LoadTypedGraphInput(Imdb(), /*undirected=*/true, &classes);
  REQUIRE(loaded.ok());
  TypedGraphInput in = std::move(*loaded);
  const int etype = 0;  // movie -> director
  const int rev = ReverseEdgeType(in, etype);
  const size_t total = in.edge_types[etype].src.size();
  size_t all_edges = 0;
  for (const auto& e : in.edge_types) all_edges += e.src.size();
  auto split = HoldOutTypedEdges(&in, etype, {0.8, 0.1, 0.1}, 7);
  REQUIRE(split.ok());
  TypedLinkEdges& edges = *split;
  const size_t held = edges.val.src.size() + edges.test.src.size();
  CHECK(edges.train.src.size() + held == total);
  CHECK(edges.val.src.size() > 300);   // about 10% of 4181 pairs
  CHECK(edges.test.src.size() > 300);
  CHECK(edges.reverse_etype == rev);
  auto g = TypedInMemoryGraph::Create(in, /*merged=*/false);
  REQUIRE(g.ok());
  TypedInMemoryGraph& graph = **g;
  CHECK(graph.num_edges() == static_cast<int64_t>(all_edges - 2 * held));  // each held-out edge and its rev_ copy
  const int64_t director0 = graph.type_offsets()[1];
  CHECK(edges.dst_first == director0);
  CHECK(edges.dst_count == 2082);

  std::set<Triple> held_out;  // forward and reverse copies
  std::vector<int64_t> endpoints;
  for (const EdgeList* l : {&edges.val, &edges.test})
    for (size_t i = 0; i < l->src.size(); ++i) {
      held_out.emplace(l->src[i], l->dst[i], etype);
      held_out.emplace(l->dst[i], l->src[i], rev);
      endpoints.push_back(l->src[i]);
      endpoints.push_back(l->dst[i]);
    }
  // The graph itself: no in-edge of a held-out pair of that type (or its rev_ copy).
  int64_t graph_hits = 0;
  for (int64_t v = 0; v < graph.num_nodes(); ++v)
    for (int64_t e = graph.indptr()[v]; e < graph.indptr()[v + 1]; ++e)
      graph_hits += held_out.count(Triple(graph.indices()[e], v, graph.etypes()[e]));
  CHECK(graph_hits == 0);
  // Full-neighbour blocks (2 layers) around every held-out endpoint.
  std::sort(endpoints.begin(), endpoints.end());
  endpoints.erase(std::unique(endpoints.begin(), endpoints.end()), endpoints.end());
  MiniBatchOptions mo;
  mo.fanouts = {-1, -1};
  mo.label_name = "";
  auto mb = SampleMiniBatch(&graph, endpoints, mo, 1, 1, 0);
  REQUIRE(mb.ok());
  int64_t block_hits = 0, block_edges_of_type = 0;
  for (const Triple& t : BlockEdges(*mb)) {
    block_hits += held_out.count(t);
    block_edges_of_type += std::get<2>(t) == etype;
  }
  CHECK(block_hits == 0);
  CHECK(block_edges_of_type > 1000);  // the endpoints' other directed_by edges are there

  // Link batches over the train edges: positives (s, d, directed_by) and their
  // (d, s, rev_directed_by) copies are excluded from each batch's blocks; without
  // exclusion, full fanouts sample them.
  EdgeTable table;
  table.AddPairs(0, edges.train.src, edges.train.dst);
  auto sampler = NegativeSampler::Create(NegativeDistribution::kUniform, edges.dst_count, {});
  REQUIRE(sampler.ok());
  for (bool exclude : {true, false}) {
    LinkBatchOptions lo;
    lo.negatives = 3;
    lo.sampler = *sampler;
    lo.negative_offset = edges.dst_first;
    lo.exclude = exclude;
    lo.exclude_reverse = true;
    lo.positive_etype = etype;
    lo.reverse_etype = rev;
    LinkBatchProvider provider(&graph, &table, lo, 2, 2);
    EpochRequest req;
    req.epoch = 1;
    req.seeds = table.EdgeIds();
    req.batch_size = 256;
    req.fanouts = {-1, -1};
    req.labels = false;
    req.link = true;
    req.job_seed = 5;
    REQUIRE(provider.BeginEpoch(req).ok());
    MiniBatch b;
    int64_t batches = 0, positives = 0, positive_hits = 0, negatives = 0, negatives_in_type = 0;
    while (true) {
      auto more = provider.Next(&b);
      REQUIRE(more.ok());
      if (!*more) break;
      ++batches;
      REQUIRE(b.input_ntypes.size() == b.input_nodes.size());
      std::set<Triple> pos;
      const int64_t* l = b.labels.as<int64_t>();
      for (int64_t r = 0; r < b.labels.rows(); ++r) {
        const int64_t s = b.seeds[l[3 * r]], d = b.seeds[l[3 * r + 1]];
        if (l[3 * r + 2] == 1) {
          ++positives;
          pos.emplace(s, d, etype);
          pos.emplace(d, s, rev);
        } else {
          ++negatives;
          negatives_in_type += d >= edges.dst_first && d < edges.dst_first + edges.dst_count;
        }
      }
      for (const Triple& t : BlockEdges(b)) positive_hits += pos.count(t);
    }
    CHECK(batches == (static_cast<int64_t>(edges.train.src.size()) + 255) / 256);
    CHECK(positives == static_cast<int64_t>(edges.train.src.size()));
    CHECK(negatives == 3 * positives);
    CHECK(negatives_in_type == negatives);
    if (exclude) CHECK(positive_hits == 0);
    else CHECK(positive_hits >= 2 * positives);  // both copies of every positive, at least once
  }
}

TEST_CASE("train-local --task link on IMDB movie -> director: RGCN beats the untrained model",
          "[typed][link]") {
  test::TempDir dir;
  const std::string rgcn = dir.path() + "/rgcn.pt";
  auto r = test::RunDistgnn({"model", "export", "--arch", "rgcn", "--dataset", Imdb(), "--undirected", "--task",
                             "link", "--out-dim", "32", "--hidden", "32", "--embedding-dim", "16", "--bases", "2",
                             "--layers", "1", "-o", rgcn});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto train = [&](const std::string& out, const std::vector<std::string>& extra) {
    std::vector<std::string> args{"train-local", "--task", "link", "--dataset", Imdb(), "--undirected",
                                  "--link-etype", "movie:directed_by:director", "--model", rgcn,
                                  "--embedding-dim", "16", "--fanouts", "5", "--negatives", "2",
                                  "--eval-negatives", "20", "--threads", "2", "--out", dir.path() + "/" + out};
    args.insert(args.end(), extra.begin(), extra.end());
    return test::RunDistgnn(args, 300);
  };
  // Baseline in the same test: the same model, split and evaluation, untrained
  // (learning rates must be > 0, so both are negligible: Adam moves a weight by ~lr).
  r = train("untrained", {"--epochs", "1", "--batch-size", "2048", "--lr", "1e-9", "--embedding-lr", "1e-9"});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const double untrained = FinalField(dir.path() + "/untrained", "test_auc");
  r = train("trained", {"--epochs", "2", "--batch-size", "512", "--lr", "0.01"});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("link prediction on movie:directed_by:director") != std::string::npos);
  CHECK(r.output.find("from its 2082 destination nodes") != std::string::npos);
  const double trained = FinalField(dir.path() + "/trained", "test_auc");
  INFO("untrained test AUC " << untrained << ", trained " << trained);
  CHECK(untrained < 0.6);
  CHECK(trained > 0.62);
  CHECK(trained > untrained + 0.08);
}

TEST_CASE("typed link flags: one clear error each", "[typed][link]") {
  test::TempDir dir;
  const std::string rgcn = dir.path() + "/rgcn.pt";
  auto r = test::RunDistgnn({"model", "export", "--arch", "rgcn", "--dataset", Imdb(), "--undirected", "--task",
                             "link", "--out-dim", "8", "--hidden", "8", "--layers", "1", "-o", rgcn});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);

  r = test::RunDistgnn({"train-local", "--task", "link", "--dataset", Imdb(), "--undirected", "--model", rgcn,
                        "--epochs", "1", "--out", dir.path() + "/e2"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("--task link needs --link-etype src:relation:dst") != std::string::npos);
  CHECK(r.output.find("actor:rev_starring:movie") != std::string::npos);
  r = test::RunDistgnn({"train-local", "--task", "link", "--dataset", Imdb(), "--undirected", "--link-etype",
                        "movie:acted_in:actor", "--model", rgcn, "--epochs", "1", "--out", dir.path() + "/e3"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("--link-etype 'movie:acted_in:actor': no such edge type") != std::string::npos);
  r = test::RunDistgnn({"train-local", "--task", "link", "--dataset", test::CoraDir(), "--link-etype", "cites",
                        "--model", rgcn, "--epochs", "1", "--out", dir.path() + "/e4"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("--link-etype: " + test::CoraDir() + " is not a typed dataset") != std::string::npos);
  r = test::RunDistgnn({"train-local", "--dataset", Imdb(), "--undirected", "--link-etype", "directed_by", "--model",
                        rgcn, "--epochs", "1", "--out", dir.path() + "/e6"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("--link-etype: goes with --task link") != std::string::npos);
  const std::string sage = dir.path() + "/sage.pt";
  r = test::RunDistgnn({"model", "export", "--arch", "sage", "--task", "link", "--in-dim", "2685", "--hidden", "8",
                        "--layers", "1", "-o", sage});
  REQUIRE(r.exit_code == 0);
  r = test::RunDistgnn({"train-local", "--task", "link", "--dataset", Imdb(), "--undirected", "--link-etype",
                        "directed_by", "--model", sage, "--epochs", "1", "--out", dir.path() + "/e5"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("export an rgcn or hetero-sage model with --task link, or pass --merge-types") !=
        std::string::npos);
}

TEST_CASE("train-local --task link --merge-types: a homogeneous model on the merged IMDB graph", "[typed][link]") {
  test::TempDir dir;
  const std::string sage = dir.path() + "/sage.pt";
  auto r = test::RunDistgnn({"model", "export", "--arch", "sage", "--task", "link", "--in-dim", "2685", "--hidden",
                             "32", "--out-dim", "32", "--layers", "1", "-o", sage});
  REQUIRE(r.exit_code == 0);
  r = test::RunDistgnn({"train-local", "--task", "link", "--dataset", Imdb(), "--undirected", "--merge-types",
                        "--link-etype", "directed_by", "--model", sage, "--embedding-dim", "16", "--fanouts", "5",
                        "--negatives", "2", "--eval-negatives", "20", "--batch-size", "1024", "--lr", "0.01",
                        "--threads", "2", "--epochs", "1", "--out", dir.path() + "/run"},
                       300);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("(types merged)") != std::string::npos);
  CHECK(r.output.find("layer-wise full-neighbor embeddings of all 14189 nodes") != std::string::npos);
  const double auc = FinalField(dir.path() + "/run", "test_auc");
  CHECK(auc > 0.4);  // one epoch: a finite AUC over destination-type negatives
  CHECK(auc <= 1.0);
}
