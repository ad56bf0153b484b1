// Link prediction on one edge type of a typed partition (bundled IMDB,
// movie -> director, `partition --edge-split --link-etype`, 2 parts), served
// by real servers on 127.0.0.1 and read through DistNeighborSource, against
// train-local's split of the same dataset (HoldOutTypedEdges, ids mapped
// between the numberings): the same pairs held out and the same training
// pairs; no held-out edge nor its rev_ copy in any part's CSR nor in
// full-neighbour blocks around the held-out endpoints; trainer shares that
// cover the training edges once; link batches whose positives (and rev_
// copies) never reach their blocks while they do without exclusion, and
// whose negatives are all directors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "common/client/dist_neighbor_source.h"
#include "common/io/npy.h"
#include "common/sampling/edge_batch.h"
#include "common/sampling/link_partition.h"
#include "common/sampling/typed_graph.h"
#include "common/sampling/typed_link.h"
#include "common/storage/link_split.h"
#include "common/storage/partition.h"
#include "common/storage/typed_dataset.h"
#include "test/server/server_fixture.h"

using namespace dg;
using namespace dg::test;

namespace {

using Triple = std::tuple<int64_t, int64_t, int64_t>;  // (src, dst, edge type), partition ids

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

TEST_CASE("typed partition split on one edge type: train-local's split and nothing held out in reach of sampling",
          "[server][typed][link]") {
  const std::string imdb = test::SourceDir() + "/data/imdb-hetero";
  TempDir tmp;
  const std::string out = tmp.path() + "/p";
  auto r = RunDistgnn({"partition", "--dataset", imdb, "--undirected", "--num-parts", "2", "--method", "random",
                       "--name", "imdb", "--out", out, "--edge-split", "0.8,0.1,0.1", "--link-etype",
                       "directed_by", "--seed", "3"});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("movie:directed_by:director:") != std::string::npos);
  auto cfg = LoadAnyPartitionConfig(out + "/imdb.json");
  REQUIRE(cfg.ok());
  auto info = ReadLinkSplitInfo(out);
  REQUIRE(info.ok());
  REQUIRE(info->present);
  CHECK(info->etype == "movie:directed_by:director");
  CHECK(info->reverse_etype == "director:rev_directed_by:movie");
  const int etype = 0, rev = cfg->edge_types[3].relation == "rev_directed_by" ? 3 : -1;
  REQUIRE(rev == 3);

  // Train-local's split of the same dataset, fractions and seed.
  auto ds = LoadTypedDataset(imdb, true);
  REQUIRE(ds.ok());
  const std::vector<int64_t> ref_offsets = ds->TypeOffsets();
  auto input = TypedGraphInputOf(std::move(*ds), imdb);
  REQUIRE(input.ok());
  auto ref_split = HoldOutTypedEdges(&*input, etype, {0.8, 0.1, 0.1}, 3);
  REQUIRE(ref_split.ok());
  auto orig = NpyLoad(out + "/orig_nids.npy");
  REQUIRE(orig.ok());
  std::vector<int64_t> to_ref(static_cast<size_t>(cfg->num_nodes));
  for (int64_t g = 0; g < cfg->num_nodes; ++g)  // type-major ids: type offset + the type-local original id
    to_ref[g] = ref_offsets[cfg->NodeTypeOf(g)] + orig->as<int64_t>()[g];
  auto pairs_ref = [&](const EdgeList& l) {
    std::multiset<std::pair<int64_t, int64_t>> s;
    for (size_t i = 0; i < l.src.size(); ++i) s.emplace(l.src[i], l.dst[i]);
    return s;
  };
  auto pairs_mapped = [&](const EdgeList& l) {
    std::multiset<std::pair<int64_t, int64_t>> s;
    for (size_t i = 0; i < l.src.size(); ++i) s.emplace(to_ref[l.src[i]], to_ref[l.dst[i]]);
    return s;
  };
  EdgeList val, test;
  for (int p = 0; p < 2; ++p) {
    REQUIRE(ReadHeldOutEdges(cfg->PartDir(p), "val", &val).ok());
    REQUIRE(ReadHeldOutEdges(cfg->PartDir(p), "test", &test).ok());
  }
  CHECK(val.src.size() > 300);
  CHECK(test.src.size() > 300);
  CHECK(info->num_val == static_cast<int64_t>(val.src.size()));
  CHECK(pairs_mapped(val) == pairs_ref(ref_split->val));
  CHECK(pairs_mapped(test) == pairs_ref(ref_split->test));
  for (size_t i = 0; i < val.src.size(); ++i) {  // movie -> director, owned by the destination's part
    CHECK(cfg->NodeTypeOf(val.src[i]) == cfg->NodeTypeId("movie"));
    CHECK(cfg->NodeTypeOf(val.dst[i]) == cfg->NodeTypeId("director"));
  }

  std::set<Triple> held;  // both copies of every held-out edge
  std::vector<int64_t> endpoints;
  for (const EdgeList* l : {&val, &test})
    for (size_t i = 0; i < l->src.size(); ++i) {
      held.emplace(l->src[i], l->dst[i], etype);
      held.emplace(l->dst[i], l->src[i], rev);
      endpoints.push_back(l->src[i]);
      endpoints.push_back(l->dst[i]);
    }
  // The parts' CSR: no held-out edge, and every other edge of the dataset.
  int64_t csr_hits = 0, csr_edges = 0;
  for (int p = 0; p < 2; ++p) {
    auto lp = OpenLocalPartition(*cfg, p);
    REQUIRE(lp.ok());
    const int64_t* ip = lp->indptr.as<int64_t>();
    const int64_t* ix = lp->indices.as<int64_t>();
    for (int64_t v = 0; v < lp->num_owned(); ++v)
      for (int64_t e = ip[v]; e < ip[v + 1]; ++e)
        csr_hits += held.count(Triple(ix[e], lp->node_begin + v, lp->edge_types.as<uint8_t>()[e]));
    csr_edges += lp->num_edges();
  }
  CHECK(csr_hits == 0);
  int64_t ref_edges = 0;
  for (const auto& e : input->edge_types) ref_edges += static_cast<int64_t>(e.src.size());
  CHECK(csr_edges == ref_edges);  // train-local's graph after its hold-out, edge count for edge count

  // The trainers' shares: the training edges train-local trains on, each at
  // most once (NodeSplit even: floor(n / 2) each, as DGL's force_even).
  EdgeList all_train;
  std::set<int64_t> taken;
  PartitionTypedLink typed;
  for (int rank = 0; rank < 2; ++rank) {
    EdgeTable table;
    std::vector<int64_t> ids;
    auto t = TypedTrainEdgeShare(*cfg, *info, 2, rank, &table, &ids);
    REQUIRE(t.ok());
    typed = *t;
    CHECK(static_cast<int64_t>(ids.size()) == table.num_edges() / 2);
    for (int64_t id : ids) CHECK(taken.insert(id).second);
    if (rank == 0)
      for (int64_t id : table.EdgeIds()) {
        int64_t s = 0, d = 0;
        REQUIRE(table.Pair(id, &s, &d).ok());
        all_train.src.push_back(s);
        all_train.dst.push_back(d);
      }
  }
  CHECK(pairs_mapped(all_train) == pairs_ref(ref_split->train));
  CHECK(typed.etype == etype);
  CHECK(typed.reverse_etype == rev);
  CHECK(typed.dst_count == 2082);
  REQUIRE(typed.dst_ranges.size() == 2);
  int64_t degree_sum = 0;
  for (int64_t d : typed.dst_degrees) degree_sum += d;
  CHECK(degree_sum == static_cast<int64_t>(ref_split->train.src.size()));

  // Real servers: full-neighbour blocks around every held-out endpoint hold none of them.
  ServerCluster cluster;
  cluster.Start(out + "/imdb.json", 2, 1);
  auto client = DistGraphClient::Connect(*cfg, cluster.endpoints(), "", "client", 0, FastClientOptions());
  REQUIRE(client.ok());
  DistNeighborSource dist(client->get());
  std::sort(endpoints.begin(), endpoints.end());
  endpoints.erase(std::unique(endpoints.begin(), endpoints.end()), endpoints.end());
  MiniBatchOptions mo;
  mo.fanouts = {-1, -1};
  mo.label_name = "";
  mo.owner_offsets = dist.owner_offsets();
  auto mb = SampleMiniBatch(&dist, endpoints, mo, 1, 1, 0);
  REQUIRE(mb.ok());
  int64_t block_hits = 0, block_edges_of_type = 0;
  for (const Triple& t : BlockEdges(*mb)) {
    block_hits += held.count(t);
    block_edges_of_type += std::get<2>(t) == etype;
  }
  CHECK(block_hits == 0);
  CHECK(block_edges_of_type > 1000);  // the endpoints' training directed_by edges are there

  // Link batches over the servers, as the trainer makes them.
  EdgeTable table;
  std::vector<int64_t> ids;
  REQUIRE(TypedTrainEdgeShare(*cfg, *info, 1, 0, &table, &ids).ok());
  const int director = cfg->NodeTypeId("director");
  for (bool exclude : {true, false}) {
    LinkBatchOptions lo;
    lo.negatives = 3;
    lo.feature_name = "";
    REQUIRE(SetTypedLinkBatchOptions(typed, NegativeDistribution::kDegree, &lo).ok());
    lo.exclude = exclude;
    LinkBatchProvider provider(&dist, &table, lo, 2, 2);
    EpochRequest req;
    req.epoch = 1;
    req.seeds = ids;
    req.batch_size = 512;
    req.fanouts = {-1, -1};
    req.labels = false;
    req.link = true;
    req.job_seed = 5;
    REQUIRE(provider.BeginEpoch(req).ok());
    MiniBatch b;
    int64_t positives = 0, positive_hits = 0, negatives = 0, negatives_in_type = 0, held_hits = 0;
    std::set<int64_t> negative_parts;
    while (true) {
      auto more = provider.Next(&b);
      REQUIRE(more.ok());
      if (!*more) break;
      std::set<Triple> pos;
      const int64_t* l = b.labels.as<int64_t>();
      for (int64_t row = 0; row < b.labels.rows(); ++row) {
        const int64_t s = b.seeds[l[3 * row]], d = b.seeds[l[3 * row + 1]];
        if (l[3 * row + 2] == 1) {
          ++positives;
          pos.emplace(s, d, etype);
          pos.emplace(d, s, rev);
        } else {
          ++negatives;
          negatives_in_type += cfg->NodeTypeOf(d) == director;
          negative_parts.insert(d >= cfg->node_map[1]);
        }
      }
      for (const Triple& t : BlockEdges(b)) {
        positive_hits += pos.count(t);
        held_hits += held.count(t);
      }
    }
    CHECK(positives == static_cast<int64_t>(ref_split->train.src.size()));
    CHECK(negatives == 3 * positives);
    CHECK(negatives_in_type == negatives);
    CHECK(negative_parts.size() == 2);  // directors of both parts
    CHECK(held_hits == 0);
    if (exclude) CHECK(positive_hits == 0);
    else CHECK(positive_hits >= 2 * positives);
  }
}
