// `distgnn propagate` on 3 partitions of Cora equals Â^k X computed densely in
// this process from the original dataset (mapped through orig_nids), to 1e-5.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include "common/storage/dataset.h"
#include "common/io/npy.h"
#include "common/storage/partition.h"
#include "test/integration/test_launch_support.h"

using namespace dg;
using namespace dg::test;

namespace {

// One hop over the original graph: y_i = sum_{j -> i} w_ij x_j.
std::vector<double> Hop(const EdgeList& g, int64_t n, int64_t f, const std::vector<double>& x,
                        const std::string& norm) {
  std::vector<double> deg(n, 0), y(n * f, 0);
  for (int64_t d : g.dst) deg[d] += 1;
  for (size_t e = 0; e < g.src.size(); ++e) {
    const int64_t s = g.src[e], d = g.dst[e];
    double w = norm == "sum" ? 1 : norm == "mean" ? 1 / deg[d] : 1 / std::sqrt(deg[d] * deg[s]);
    for (int64_t k = 0; k < f; ++k) y[d * f + k] += w * x[s * f + k];
  }
  return y;
}

}  // namespace

TEST_CASE("propagate on 3 partitions equals dense A^k X (mean, sym)", "[propagate][cora]") {
  TempDir dir;
  auto r = RunDistgnn({"partition", "--dataset", CoraDir(), "--undirected", "--num-parts", "3", "--method", "metis",
                       "--name", "cora", "--out", dir / "parts"});
  REQUIRE(r.exit_code == 0);
  const int base = FreePortRange(8);
  {
    std::ofstream y(dir / "job.yaml");
    y << "job: prop\npartition: parts/cora.json\nmachines:\n"
      << "  - host: 127.0.0.1\n  - host: 127.0.0.1\n  - host: 127.0.0.1\n"
      << "ports: {server: " << base << ", trainer: " << base + 3 << ", rendezvous: " << base + 6 << "}\n"
      << "processes: {servers: 1, trainers: 1, samplers_per_trainer: 1}\n"
      << "train: {model: parts/cora.json}\n"  // propagate runs no model; the key must name a file
      << "output_dir: runs\n";
  }
  EdgeListOptions eo;
  eo.undirected = true;
  auto ds = LoadDataset(CoraDir(), eo);
  REQUIRE(ds.ok());
  const int64_t n = ds->num_nodes;
  const Array& feat = ds->node_data.at("features");
  const int64_t f = feat.shape[1];
  std::vector<double> x0(feat.as<float>(), feat.as<float>() + n * f);

  for (std::string norm : {"mean", "sym"}) {
    INFO("norm " << norm);
    const std::string out = "p" + norm;
    r = RunDistgnn({"propagate", "--config", dir / "job.yaml", "--input", "features", "--hops", "2", "--norm", norm,
                    "--output", out, "--quiet"},
                   180);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    auto pc = LoadPartitionConfig(dir / "parts/cora.json");
    REQUIRE(pc.ok());
    auto orig = NpyLoad(dir / "parts/orig_nids.npy");
    REQUIRE(orig.ok());
    std::vector<double> x = x0;
    for (int k = 1; k <= 2; ++k) {
      const std::string name = out + "_" + std::to_string(k);
      REQUIRE(pc->node_data.count(name) == 1);
      x = Hop(ds->edges, n, f, x, norm);
      double worst = 0;
      for (int p = 0; p < 3; ++p) {
        auto got = NpyLoad(pc->PartDir(p) + "/node_data/" + name + ".npy");
        REQUIRE(got.ok());
        REQUIRE(got->rows() == pc->node_map[p + 1] - pc->node_map[p]);
        for (int64_t i = 0; i < got->rows(); ++i) {
          const int64_t o = orig->as<int64_t>()[pc->node_map[p] + i];
          for (int64_t c = 0; c < f; ++c)
            worst = std::max(worst, std::abs(got->as<float>()[i * f + c] - x[o * f + c]));
        }
      }
      CHECK(worst < 1e-5);
    }
  }
  // Asking for an existing output is refused before anything starts.
  r = RunDistgnn({"propagate", "--config", dir / "job.yaml", "--input", "features", "--hops", "1", "--output",
                  "pmean", "--quiet"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("already has node array 'pmean_1'") != std::string::npos);
}
