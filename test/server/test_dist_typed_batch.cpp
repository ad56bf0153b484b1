// Typed mini-batches through DistNeighborSource (real servers of a 2-partition
// IMDB on 127.0.0.1) against the same batches from TypedInMemoryGraph over the
// dataset (train-local's source), ids mapped between the two numberings
// (partition: partition-major then type-major; in memory: type-major).
// Full-neighbour batches must be the same graph edge for edge, node types,
// feature rows bit for bit, labels and split; sampled batches must draw each
// edge type's fanout from real in-edges of that type; the mmap shortcut must
// give the batch the sockets give, id for id.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "common/client/dist_neighbor_source.h"
#include "common/io/npy.h"
#include "common/sampling/typed_graph.h"
#include "common/storage/partition.h"
#include "common/storage/typed_dataset.h"
#include "test/server/server_fixture.h"

using namespace dg;
using namespace dg::test;

namespace {

using Edge = std::tuple<int64_t, int64_t, int64_t>;  // (dst, src, etype), reference ids

// Every edge of every block, ids through `map` (identity for the reference).
std::vector<std::multiset<Edge>> BlockEdges(const MiniBatch& mb, const std::vector<int64_t>& map) {
  std::vector<std::multiset<Edge>> out;
  for (const Block& b : mb.blocks) {
    std::multiset<Edge> edges;
    REQUIRE(b.etypes.size() == b.indices.size());
    for (int64_t d = 0; d < b.num_dst; ++d)
      for (int64_t k = b.indptr[d]; k < b.indptr[d + 1]; ++k) {
        const int64_t dst = mb.input_nodes[d], src = mb.input_nodes[b.indices[k]];
        edges.insert({map.empty() ? dst : map[dst], map.empty() ? src : map[src], b.etypes[k]});
      }
    out.push_back(std::move(edges));
  }
  return out;
}

}  // namespace

TEST_CASE("typed batches through DistNeighborSource equal the in-memory ones with ids mapped", "[server][typed]") {
  const std::string imdb = test::SourceDir() + "/data/imdb-hetero";
  TempDir tmp;
  const std::string out = tmp.path() + "/p";
  auto r = RunDistgnn({"partition", "--dataset", imdb, "--undirected", "--num-parts", "2", "--method", "random",
                       "--name", "imdb", "--out", out});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto cfg = LoadAnyPartitionConfig(out + "/imdb.json");
  REQUIRE(cfg.ok());
  auto ds = LoadTypedDataset(imdb, true);
  REQUIRE(ds.ok());
  const std::vector<int64_t> ref_offsets = ds->TypeOffsets();
  auto input = TypedGraphInputOf(std::move(*ds), imdb);  // what train-local builds
  REQUIRE(input.ok());
  auto graph = TypedInMemoryGraph::Create(std::move(*input), /*merged=*/false);
  REQUIRE(graph.ok());
  TypedInMemoryGraph& ref = **graph;
  // Partition id -> reference id: type offset + type-local id (orig_nids).
  auto orig = NpyLoad(out + "/orig_nids.npy");
  REQUIRE(orig.ok());
  std::vector<int64_t> to_ref(static_cast<size_t>(cfg->num_nodes)), from_ref(static_cast<size_t>(cfg->num_nodes));
  for (int64_t g = 0; g < cfg->num_nodes; ++g) {
    to_ref[g] = ref_offsets[cfg->NodeTypeOf(g)] + orig->as<int64_t>()[g];
    from_ref[to_ref[g]] = g;
  }

  ServerCluster cluster;
  cluster.Start(out + "/imdb.json", 2, 1);
  ClientOptions remote_only = FastClientOptions();
  remote_only.max_ids_per_request = 300;  // several requests per partition
  ClientOptions with_local = FastClientOptions();
  with_local.local_partitions = {0};
  auto remote = DistGraphClient::Connect(*cfg, cluster.endpoints(), "", "client", 0, remote_only);
  auto local = DistGraphClient::Connect(*cfg, cluster.endpoints(), "", "client", 1, with_local);
  REQUIRE(remote.ok());
  REQUIRE(local.ok());
  DistNeighborSource dist(remote->get()), dist_local(local->get());
  CHECK(dist.num_edge_types() == 6);
  CHECK(dist.num_nodes() == ref.num_nodes());

  // Seeds: training movies of both partitions (partition ids) and the same nodes in reference ids.
  std::vector<int64_t> seeds, ref_seeds;
  for (int64_t g = 0; g < cfg->num_nodes && seeds.size() < 200; g += 7)
    if (cfg->NodeTypeOf(g) == cfg->NodeTypeId("movie")) {
      seeds.push_back(g);
      ref_seeds.push_back(to_ref[g]);
    }
  REQUIRE(seeds.size() == 200);

  MiniBatchOptions full;
  full.fanouts = {-1, -1};
  MiniBatchOptions dist_full = full;
  dist_full.owner_offsets = dist.owner_offsets();  // as the trainer's LocalBatchProvider sets them
  auto a = SampleMiniBatch(&dist, seeds, dist_full, 42, 0, 3);
  auto b = SampleMiniBatch(&ref, ref_seeds, full, 42, 0, 3);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  REQUIRE(a->blocks.size() == 2);
  SECTION("full neighbourhoods: the same graph, types, rows and labels") {
    CHECK(BlockEdges(*a, to_ref) == BlockEdges(*b, {}));
    for (size_t l = 0; l < 2; ++l) {
      CHECK(a->blocks[l].num_dst == b->blocks[l].num_dst);
      CHECK(a->blocks[l].num_src == b->blocks[l].num_src);
    }
    REQUIRE(a->input_nodes.size() == b->input_nodes.size());
    std::map<int64_t, size_t> ref_row;  // reference id -> row in b
    for (size_t i = 0; i < b->input_nodes.size(); ++i) ref_row[b->input_nodes[i]] = i;
    REQUIRE(a->features.shape == b->features.shape);
    REQUIRE(a->features.shape[1] == 2669);
    const size_t rb = a->features.row_bytes();
    int64_t mismatched_rows = 0, mismatched_types = 0, featureless = 0;
    for (size_t i = 0; i < a->input_nodes.size(); ++i) {
      auto it = ref_row.find(to_ref[a->input_nodes[i]]);
      REQUIRE(it != ref_row.end());
      mismatched_types += a->input_ntypes[i] != b->input_ntypes[it->second];
      mismatched_rows += std::memcmp(static_cast<const char*>(a->features.data) + i * rb,
                                     static_cast<const char*>(b->features.data) + it->second * rb, rb) != 0;
      featureless += a->input_ntypes[i] != 0;
    }
    CHECK(mismatched_types == 0);
    CHECK(mismatched_rows == 0);
    CHECK(featureless > 0);  // directors, actors, keywords: zero rows on both sides
    REQUIRE(a->labels.rows() == 200);
    CHECK(std::memcmp(a->labels.data, b->labels.data, 200 * sizeof(int64_t)) == 0);
    // Labels and split off the target type are -1, as in memory.
    std::vector<int64_t> mixed{seeds[0], cfg->node_type_offsets[1][1], cfg->node_type_offsets[0][3]};
    std::vector<int64_t> mixed_ref;
    for (int64_t g : mixed) mixed_ref.push_back(to_ref[g]);
    for (const char* name : {"labels", "split"}) {
      auto x = dist.Gather(name, mixed);
      auto y = ref.Gather(name, mixed_ref);
      REQUIRE(x.ok());
      REQUIRE(y.ok());
      CHECK(x->dtype == y->dtype);
      CHECK(std::memcmp(x->data, y->data, x->nbytes()) == 0);
    }
  }
  SECTION("the mmap shortcut gives the batch the sockets give, id for id") {
    auto c = SampleMiniBatch(&dist_local, seeds, dist_full, 42, 0, 3);
    REQUIRE(c.ok());
    CHECK(c->input_nodes == a->input_nodes);
    CHECK(c->input_ntypes == a->input_ntypes);
    for (size_t l = 0; l < 2; ++l) {
      CHECK(std::vector<int64_t>(c->blocks[l].indices.begin(), c->blocks[l].indices.end()) ==
            std::vector<int64_t>(a->blocks[l].indices.begin(), a->blocks[l].indices.end()));
      CHECK(c->blocks[l].etypes == a->blocks[l].etypes);
    }
    CHECK(std::memcmp(c->features.data, a->features.data, a->features.nbytes()) == 0);
  }
  SECTION("sampled: each edge type's fanout from its own in-edges, the same with the shortcut") {
    MiniBatchOptions sampled = dist_full;
    sampled.fanouts = {5, 5};
    sampled.etype_fanouts = {{2, 1, 3, 1, 4, 2}, {3, 2, 1, 2, 1, 3}};
    auto s = SampleMiniBatch(&dist, seeds, sampled, 7, 1, 0);
    auto t = SampleMiniBatch(&dist_local, seeds, sampled, 7, 1, 0);
    REQUIRE(s.ok());
    REQUIRE(t.ok());
    CHECK(s->input_nodes == t->input_nodes);
    CHECK(std::memcmp(s->features.data, t->features.data, s->features.nbytes()) == 0);
    // Per (destination, edge type): min(in-degree of that type, fanout) real edges.
    const auto& indptr = ref.indptr();
    const auto& indices = ref.indices();
    const auto& etypes = ref.etypes();
    const std::vector<std::multiset<Edge>> got = BlockEdges(*s, to_ref);
    for (size_t l = 0; l < 2; ++l) {
      std::map<std::pair<int64_t, int64_t>, int64_t> drawn;  // (dst, etype) -> edges drawn
      for (const Edge& e : got[l]) {
        const int64_t dst = std::get<0>(e), src = std::get<1>(e), et = std::get<2>(e);
        bool real = false;
        for (int64_t k = indptr[dst]; k < indptr[dst + 1]; ++k) real = real || (indices[k] == src && etypes[k] == et);
        CHECK(real);
        ++drawn[{dst, et}];
      }
      const Block& blk = s->blocks[l];
      for (int64_t d = 0; d < blk.num_dst; ++d) {
        const int64_t dst = to_ref[s->input_nodes[d]];
        for (int et = 0; et < 6; ++et) {
          int64_t degree = 0;
          for (int64_t k = indptr[dst]; k < indptr[dst + 1]; ++k) degree += etypes[k] == et;
          const auto it = drawn.find({dst, et});
          CHECK((it == drawn.end() ? 0 : it->second) ==
                std::min<int64_t>(degree, sampled.etype_fanouts[l][et]));
        }
      }
    }
  }
}
