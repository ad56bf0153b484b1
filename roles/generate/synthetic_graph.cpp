#include "roles/generate/synthetic_graph.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "common/base/array.h"
#include "common/io/npy.h"
#include "common/storage/neighbor_sampling.h"
#include "roles/partition/permutation.h"
#include "roles/partition/staged_dir.h"
#include "roles/generate/synthetic_edges.h"

namespace dg {

namespace fs = std::filesystem;

namespace {

constexpr int64_t kNodeBlock = 1 << 14;  // feature rows per block

// One standard normal per call (Box-Muller, caching the second value).
class Gaussian {
 public:
  explicit Gaussian(uint64_t seed) : rng_(seed) {}
  float Next() {
    if (have_) {
      have_ = false;
      return spare_;
    }
    double u1 = (static_cast<double>(rng_.Next() >> 11) + 1.0) * (1.0 / 9007199254740992.0);
    double u2 = rng_.UniformDouble();
    double r = std::sqrt(-2.0 * std::log(u1));
    spare_ = static_cast<float>(r * std::sin(2 * M_PI * u2));
    have_ = true;
    return static_cast<float>(r * std::cos(2 * M_PI * u2));
  }

 private:
  Rng rng_;
  bool have_ = false;
  float spare_ = 0;
};

Array Vec(std::vector<int64_t>& v) {
  Array a;
  a.dtype = DType::kInt64;
  a.shape = {static_cast<int64_t>(v.size())};
  a.data = v.data();
  return a;
}

}  // namespace

Status WriteSyntheticDataset(const SyntheticOptions& o, const std::string& out_dir, bool force) {
  const int64_t N = o.num_nodes, E = o.num_edges;
  const int C = o.num_classes, F = o.feat_dim;
  const bool uniform = o.model == GraphModel::kUniform;
  if (N < 2) return Status::InvalidArgument("--nodes must be >= 2");
  if (uniform && N > (int64_t{1} << 31))
    return Status::InvalidArgument("--model uniform: --nodes must be <= 2^31");
  if (uniform && static_cast<long double>(E) > static_cast<long double>(N) * N)
    return Status::InvalidArgument("--model uniform: --edges " + std::to_string(E) + " exceeds the " +
                                   std::to_string(N) + " x " + std::to_string(N) + " distinct pairs");
  if (E < 0) return Status::InvalidArgument("--edges must be >= 0");
  if (C < 1 || C > N) return Status::InvalidArgument("--classes must be in [1, nodes]");
  if (F < 1) return Status::InvalidArgument("--feat-dim must be >= 1");
  if (o.homophily < 0 || o.homophily > 1) return Status::InvalidArgument("--homophily must be in [0, 1]");
  if (o.train_frac < 0 || o.val_frac < 0 || o.train_frac + o.val_frac + std::max(0.0, o.test_frac) > 1)
    return Status::InvalidArgument("split fractions must be >= 0 and sum to <= 1");
  std::error_code ec;
  if (fs::exists(out_dir, ec) && !force)
    return Status::AlreadyExists("output " + out_dir + " exists (use --force to replace it)");

  StagedDir staged(out_dir);
  DG_RETURN_IF_ERROR(staged.Create());
  const fs::path& tmp = staged.path();

  int scale = 1;
  while ((int64_t{1} << scale) < N) ++scale;
  // Relabeling permutation (R-MAT): R-MAT id r becomes node perm[r].
  std::vector<int64_t> perm = uniform ? std::vector<int64_t>() : Permutation(N, MixSeed(o.seed, 1));

  // Edges, streamed block by block.
  if (uniform) {
    DG_RETURN_IF_ERROR(WriteUniformEdges(o, tmp.string()));
  } else {
    DG_RETURN_IF_ERROR(WriteRmatEdges(o, perm, tmp.string()));
  }

  // Labels and split (per node, in final id order).
  // R-MAT: class of the R-MAT id; uniform: a random class per node.
  std::vector<int64_t> labels(static_cast<size_t>(N));
  if (uniform) {
    for (int64_t v = 0; v < N; ++v) labels[v] = static_cast<int64_t>(Rng(MixSeed(o.seed ^ 0x1ABE1ull, v)).Uniform(C));
  } else {
    for (int64_t r = 0; r < N; ++r) labels[perm[r]] = r % C;
  }
  std::vector<int64_t>().swap(perm);
  {
    Array split = Array::Zeros(DType::kInt8, {N});
    for (int64_t v = 0; v < N && !o.all_train; ++v) {
      double u = Rng(MixSeed(o.seed ^ 0x5117ull, v)).UniformDouble();
      const double tv = o.train_frac + o.val_frac;
      split.as<int8_t>()[v] = u < o.train_frac ? 0 : u < tv ? 1 : (o.test_frac < 0 || u < tv + o.test_frac) ? 2 : -1;
    }
    DG_RETURN_IF_ERROR(NpyWrite((tmp / "split.npy").string(), split));
  }
  DG_RETURN_IF_ERROR(NpyWrite((tmp / "labels.npy").string(), Vec(labels)));

  // Features: centroid[label] + N(0, 1), streamed block by block.
  {
    std::vector<float> centroids(static_cast<size_t>(C) * F);
    Gaussian g(MixSeed(o.seed, 2));
    // Two random centroids are ~ sqrt(2F) * scale apart; make that `separation`.
    // Uniform: no centroids, features are N(0, 1).
    const double scale_c = uniform ? 0.0 : o.separation / std::sqrt(2.0 * F);
    for (float& c : centroids) c = static_cast<float>(g.Next() * scale_c);
    NpyWriter w;
    DG_RETURN_IF_ERROR(w.Open((tmp / "features.npy").string(), DType::kFloat32, {N, F}));
    const int threads = std::max(1, o.threads);
    std::vector<std::vector<float>> bufs(threads, std::vector<float>(static_cast<size_t>(kNodeBlock) * F));
    int64_t blocks = (N + kNodeBlock - 1) / kNodeBlock;
    for (int64_t b0 = 0; b0 < blocks; b0 += threads) {
      int64_t nb = std::min<int64_t>(threads, blocks - b0);
      ParallelBlocks(nb, threads, [&](int64_t i) {
        int64_t b = b0 + i;
        float* buf = bufs[i].data();
        for (int64_t v = b * kNodeBlock; v < std::min(N, (b + 1) * kNodeBlock); ++v) {
          Gaussian gv(MixSeed(o.seed ^ 0xFEA7, v));
          const float* c = &centroids[labels[v] * F];
          float* row = buf + (v - b * kNodeBlock) * F;
          for (int f = 0; f < F; ++f) row[f] = c[f] + gv.Next();
        }
      });
      for (int64_t i = 0; i < nb; ++i) {
        int64_t b = b0 + i;
        int64_t rows = std::min(N, (b + 1) * kNodeBlock) - b * kNodeBlock;
        DG_RETURN_IF_ERROR(w.Append(bufs[i].data(), static_cast<size_t>(rows) * F * sizeof(float)));
      }
    }
    DG_RETURN_IF_ERROR(w.Finish());
  }

  return staged.Commit();
}

Status GenerateDataset(const SyntheticOptions& o, const std::string& out, bool force) {
  const auto t0 = std::chrono::steady_clock::now();
  DG_RETURN_IF_ERROR(WriteSyntheticDataset(o, out, force));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("generated %s (%s): %lld nodes, %lld edges, %d features, %d classes in %.2f s\n", out.c_str(),
              Name(o.model), (long long)o.num_nodes, (long long)o.num_edges, o.feat_dim, o.num_classes, s);
  return Status::OK();
}

}  // namespace dg
