#include "roles/generate/synthetic_hetero.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <vector>

#include "common/base/array.h"
#include "common/io/npy.h"
#include "common/storage/neighbor_sampling.h"
#include "common/storage/typed_dataset.h"
#include "roles/partition/permutation.h"
#include "roles/partition/staged_dir.h"
#include "roles/generate/synthetic_edges.h"

namespace dg {

namespace fs = std::filesystem;

namespace {

constexpr int64_t kEdgeBlock = 1 << 18;
constexpr int64_t kNodeBlock = 1 << 14;
constexpr double kPowerLaw = 2.5;

enum Type { kPaper = 0, kAuthor = 1, kInstitution = 2, kField = 3 };

// Rank of a power-law endpoint in [0, n).
int64_t PowerLawRank(Rng* rng, int64_t n) {
  const int64_t r = static_cast<int64_t>(static_cast<double>(n) * std::pow(rng->UniformDouble(), kPowerLaw));
  return std::min(r, n - 1);
}

// The rank nearest r (r itself or below) with class c (rank % C == c); r if none.
int64_t SnapToClass(int64_t r, int64_t c, int64_t C, int64_t n) {
  int64_t s = r - (r % C) + c;
  if (s >= n) s -= C;
  return s >= 0 ? s : r;
}

struct Relation {
  const char* src;
  const char* rel;
  const char* dst;
  Type src_type, dst_type;
  double per_paper;
};

const Relation kRelations[] = {
    {"author", "writes", "paper", kAuthor, kPaper, 7145660.0 / 736389},
    {"paper", "cites", "paper", kPaper, kPaper, 5416271.0 / 736389},
    {"author", "affiliated_with", "institution", kAuthor, kInstitution, 1043998.0 / 736389},
    {"paper", "has_topic", "field_of_study", kPaper, kField, 7505078.0 / 736389},
};

// One standard normal per call (Box-Muller).
float Normal(Rng* rng) {
  const double u1 = (static_cast<double>(rng->Next() >> 11) + 1.0) * (1.0 / 9007199254740992.0);
  const double u2 = rng->UniformDouble();
  return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * M_PI * u2));
}

// The check of --hetero mag's settings, before anything is written.
Status CheckMagOptions(const SyntheticOptions& o) {
  const int64_t P = o.num_nodes, C = o.num_classes;
  if (P < 100) return Status::InvalidArgument("--hetero mag: --nodes (papers) must be >= 100");
  if (C < 1 || C > P / 100) return Status::InvalidArgument("--classes must be in [1, papers / 100]");
  if (o.feat_dim < 1) return Status::InvalidArgument("--feat-dim must be >= 1");
  if (o.homophily < 0 || o.homophily > 1) return Status::InvalidArgument("--homophily must be in [0, 1]");
  if (o.train_frac < 0 || o.val_frac < 0 || o.train_frac + o.val_frac + std::max(0.0, o.test_frac) > 1)
    return Status::InvalidArgument("split fractions must be >= 0 and sum to <= 1");
  return Status::OK();
}

// edges/SRC__REL__DST.npy of every relation: blocks of kEdgeBlock, each from
// its own stream, written in block order; `perm` maps a type's rank to its id.
Status WriteMagEdges(const SyntheticOptions& o, const fs::path& tmp, const int64_t count[4],
                     const std::vector<std::vector<int64_t>>& perm) {
  const int64_t P = o.num_nodes, C = o.num_classes;
  const int threads = std::max(1, o.threads);
  for (size_t ri = 0; ri < std::size(kRelations); ++ri) {
    const Relation& rel = kRelations[ri];
    const int64_t E = std::llround(rel.per_paper * P);
    const int64_t ns = count[rel.src_type], nd = count[rel.dst_type];
    NpyWriter w;
    DG_RETURN_IF_ERROR(w.Open((tmp / "edges" / (std::string(rel.src) + "__" + rel.rel + "__" + rel.dst + ".npy")).string(),
                              DType::kInt64, {E, 2}));
    std::vector<std::vector<int64_t>> bufs(threads);
    const int64_t blocks = (E + kEdgeBlock - 1) / kEdgeBlock;
    for (int64_t b0 = 0; b0 < blocks; b0 += threads) {
      const int64_t nb = std::min<int64_t>(threads, blocks - b0);
      ParallelBlocks(nb, threads, [&](int64_t i) {
        const int64_t b = b0 + i;
        const int64_t n = std::min(E, (b + 1) * kEdgeBlock) - b * kEdgeBlock;
        Rng rng(MixSeed(o.seed, 1000 * (ri + 1) + b));
        std::vector<int64_t>& buf = bufs[i];
        buf.resize(2 * n);
        for (int64_t k = 0; k < n; ++k) {
          const int64_t s = PowerLawRank(&rng, ns);
          int64_t d = PowerLawRank(&rng, nd);
          // Class-preserving ends: the destination takes the source's class w.p. homophily
          // (institutions have no class: affiliations stay power law).
          if (rel.dst_type != kInstitution && rng.UniformDouble() < o.homophily) d = SnapToClass(d, s % C, C, nd);
          if (rel.src_type == rel.dst_type && d == s) d = d + C < nd ? d + C : (d >= C ? d - C : d);
          buf[2 * k] = perm[rel.src_type][s];
          buf[2 * k + 1] = perm[rel.dst_type][d];
        }
      });
      for (int64_t i = 0; i < nb; ++i) DG_RETURN_IF_ERROR(w.Append(bufs[i].data(), bufs[i].size() * sizeof(int64_t)));
    }
    DG_RETURN_IF_ERROR(w.Finish());
  }

  return Status::OK();
}

// nodes/paper/split.npy and labels.npy (labels in final id order).
Status WriteMagSplitAndLabels(const SyntheticOptions& o, const fs::path& tmp, std::vector<int64_t>* labels_v) {
  const int64_t P = o.num_nodes;
  std::vector<int64_t>& labels = *labels_v;
  Array split = Array::Zeros(DType::kInt8, {P});
  for (int64_t v = 0; v < P; ++v) {
    const double u = Rng(MixSeed(o.seed ^ 0x5117ull, v)).UniformDouble();
    const double tv = o.train_frac + o.val_frac;
    split.as<int8_t>()[v] = o.all_train ? 0 : u < o.train_frac ? 0 : u < tv ? 1 : (o.test_frac < 0 || u < tv + o.test_frac) ? 2 : -1;
  }
  DG_RETURN_IF_ERROR(NpyWrite((tmp / "nodes/paper/split.npy").string(), split));
  Array l;
  l.dtype = DType::kInt64;
  l.shape = {P};
  l.data = labels.data();
  DG_RETURN_IF_ERROR(NpyWrite((tmp / "nodes/paper/labels.npy").string(), l));
  return Status::OK();
}

// nodes/paper/features.npy: a class centroid plus unit noise per paper.
Status WriteMagFeatures(const SyntheticOptions& o, const fs::path& tmp, const std::vector<int64_t>& labels) {
  const int64_t P = o.num_nodes, C = o.num_classes;
  const int F = o.feat_dim;
  const int threads = std::max(1, o.threads);
  std::vector<float> centroids(static_cast<size_t>(C) * F);
  Rng g(MixSeed(o.seed, 2));
  const double scale_c = o.separation / std::sqrt(2.0 * F);
  for (float& c : centroids) c = static_cast<float>(Normal(&g) * scale_c);
  NpyWriter w;
  DG_RETURN_IF_ERROR(w.Open((tmp / "nodes/paper/features.npy").string(), DType::kFloat32, {P, F}));
  std::vector<std::vector<float>> bufs(threads, std::vector<float>(static_cast<size_t>(kNodeBlock) * F));
  const int64_t blocks = (P + kNodeBlock - 1) / kNodeBlock;
  for (int64_t b0 = 0; b0 < blocks; b0 += threads) {
    const int64_t nb = std::min<int64_t>(threads, blocks - b0);
    ParallelBlocks(nb, threads, [&](int64_t i) {
      const int64_t b = b0 + i;
      for (int64_t v = b * kNodeBlock; v < std::min(P, (b + 1) * kNodeBlock); ++v) {
        Rng gv(MixSeed(o.seed ^ 0xFEA7, v));
        const float* c = &centroids[labels[v] * F];
        float* row = bufs[i].data() + (v - b * kNodeBlock) * F;
        for (int f = 0; f < F; ++f) row[f] = c[f] + Normal(&gv);
      }
    });
    for (int64_t i = 0; i < nb; ++i) {
      const int64_t b = b0 + i;
      const int64_t rows = std::min(P, (b + 1) * kNodeBlock) - b * kNodeBlock;
      DG_RETURN_IF_ERROR(w.Append(bufs[i].data(), static_cast<size_t>(rows) * F * sizeof(float)));
    }
  }
  DG_RETURN_IF_ERROR(w.Finish());
  return Status::OK();
}

}  // namespace

Status WriteSyntheticMag(const SyntheticOptions& o, const std::string& out_dir, bool force) {
  DG_RETURN_IF_ERROR(CheckMagOptions(o));
  const int64_t P = o.num_nodes, C = o.num_classes;
  std::error_code ec;
  if (fs::exists(out_dir, ec) && !force)
    return Status::AlreadyExists("output " + out_dir + " exists (use --force to replace it)");
  const int64_t count[4] = {P, std::max<int64_t>(C, std::llround(P * (1134649.0 / 736389))),
                            std::max<int64_t>(C, std::llround(P * (8740.0 / 736389))),
                            std::max<int64_t>(C, std::llround(P * (59965.0 / 736389)))};
  const char* names[4] = {"paper", "author", "institution", "field_of_study"};

  StagedDir staged(out_dir);
  DG_RETURN_IF_ERROR(staged.Create({"edges", "nodes/paper"}));
  const fs::path& tmp = staged.path();

  std::vector<std::vector<int64_t>> perm(4);  // rank -> id, per type
  for (int t = 0; t < 4; ++t) perm[t] = Permutation(count[t], MixSeed(o.seed, 100 + t));
  DG_RETURN_IF_ERROR(WriteMagEdges(o, tmp, count, perm));
  std::vector<int64_t> labels(static_cast<size_t>(P));
  for (int64_t r = 0; r < P; ++r) labels[perm[kPaper][r]] = r % C;
  for (auto& p : perm) std::vector<int64_t>().swap(p);
  DG_RETURN_IF_ERROR(WriteMagSplitAndLabels(o, tmp, &labels));
  DG_RETURN_IF_ERROR(WriteMagFeatures(o, tmp, labels));
  std::vector<std::pair<std::string, int64_t>> nt;
  for (int t = 0; t < 4; ++t) nt.emplace_back(names[t], count[t]);
  std::vector<std::vector<std::string>> et;
  for (const Relation& r : kRelations) et.push_back({r.src, r.rel, r.dst});
  std::ofstream f(tmp / "meta.json");
  f << TypedMetaJson(nt, et, "paper", static_cast<int>(C));
  if (!f) return Status::IOError("write " + (tmp / "meta.json").string());
  return staged.Commit();
}

}  // namespace dg
