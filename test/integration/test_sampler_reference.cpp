// Real samplers on 2 and 3 partitions against the whole graph in memory.
//
// Bundled Cora is partitioned with METIS; one real `distgnn --role server` per
// partition and 2 real `distgnn --role sampler` processes per machine stream
// mini-batches to the trainer side of the protocol (RemoteBatchProvider, in this
// process). Every batch of two epochs (3 layers sampled, then full neighborhoods)
// must equal, bit for bit, the batch SampleMiniBatch builds from the whole
// dataset held in memory (renumbered by the partition's orig_nids; WholeGraph
// below): seeds, blocks, input nodes, feature rows (halo and remote rows
// included) and labels.
#include <catch2/catch.hpp>

#include <cstring>

#include "common/storage/dataset.h"
#include "common/storage/neighbor_sampling.h"
#include "common/sampling/minibatch.h"
#include "common/io/npy.h"
#include "common/storage/partition.h"
#include "roles/trainer/source/remote_batch_provider.h"
#include "test/integration/test_launch_support.h"

using namespace dg;
using namespace dg::test;

namespace {

// The whole dataset in memory, as `partition --undirected` reads it, in the
// partition's node ids: an in-edge CSR whose rows keep the (normalized) input
// edge order, as the partition format stores them (a stable sort by
// destination), sampled with the shared row kernel and row seed
// MixSeed(request_seed, gid) of common/storage/neighbor_sampling.h.
class WholeGraph : public NeighborSource {
 public:
  explicit WholeGraph(const PartitionConfig& cfg) {
    EdgeListOptions eo;
    eo.undirected = true;
    auto ds = LoadDataset(CoraDir(), eo);
    INFO(ds.status().ToString());
    REQUIRE(ds.ok());
    auto orig = NpyRead(cfg.base_dir + "/" + cfg.orig_nids);  // new id -> dataset id
    REQUIRE(orig.ok());
    n_ = ds->num_nodes;
    REQUIRE(orig->numel() == n_);
    std::vector<int64_t> to_new(n_, -1);
    for (int64_t v = 0; v < n_; ++v) to_new[orig->as<int64_t>()[v]] = v;
    const auto& src = ds->edges.src;
    const auto& dst = ds->edges.dst;
    indptr_.assign(n_ + 1, 0);
    for (int64_t d : dst) ++indptr_[to_new[d] + 1];
    for (int64_t v = 0; v < n_; ++v) indptr_[v + 1] += indptr_[v];
    indices_.resize(src.size());
    std::vector<int64_t> cursor(indptr_.begin(), indptr_.end() - 1);
    for (size_t e = 0; e < src.size(); ++e) indices_[cursor[to_new[dst[e]]]++] = to_new[src[e]];
    for (const char* name : {"features", "labels"}) {
      const Array& a = ds->node_data.at(name);
      Array out = Array::Zeros(a.dtype, a.shape);
      for (int64_t v = 0; v < n_; ++v)
        std::memcpy(static_cast<char*>(out.data) + v * out.row_bytes(),
                    static_cast<const char*>(a.data) + orig->as<int64_t>()[v] * a.row_bytes(), a.row_bytes());
      data_.emplace(name, out);
    }
  }
  int64_t num_nodes() const override { return n_; }
  Status SampleNeighbors(const std::vector<int64_t>& seeds, const SampleSpec& spec, SampledNeighbors* out) override {
    out->indptr = {0};
    out->sources.clear();
    std::vector<int64_t> pos;
    for (int64_t v : seeds) {
      const int64_t begin = indptr_[v];
      pos.clear();
      SampleRowUniform(indptr_[v + 1] - begin, spec.fanout, spec.replace, MixSeed(spec.seed, static_cast<uint64_t>(v)),
                       &pos);
      for (int64_t p : pos) out->sources.push_back(indices_[begin + p]);
      out->indptr.push_back(static_cast<int64_t>(out->sources.size()));
    }
    return Status::OK();
  }
  Result<Array> Gather(const std::string& name, const std::vector<int64_t>& ids) override {
    const Array& a = data_.at(name);
    std::vector<int64_t> shape = a.shape;
    shape[0] = static_cast<int64_t>(ids.size());
    Array out = Array::Zeros(a.dtype, shape);
    for (size_t i = 0; i < ids.size(); ++i)
      std::memcpy(static_cast<char*>(out.data) + i * a.row_bytes(),
                  static_cast<const char*>(a.data) + ids[i] * a.row_bytes(), a.row_bytes());
    return out;
  }

 private:
  int64_t n_ = 0;
  std::vector<int64_t> indptr_, indices_;
  std::map<std::string, Array> data_;
};

bool SameArray(const Array& a, const Array& b) {
  return a.dtype == b.dtype && a.shape == b.shape && std::memcmp(a.data, b.data, a.nbytes()) == 0;
}

void RunSamplersAgainstReference(int parts) {
  TempDir dir;
  auto r = RunDistgnn({"partition", "--dataset", CoraDir(), "--undirected", "--num-parts", std::to_string(parts),
                       "--method", "metis", "--name", "cora", "--out", dir / "parts"},
                      120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto cfg = LoadPartitionConfig(dir / "parts/cora.json");
  REQUIRE(cfg.ok());
  WholeGraph ref(*cfg);

  const int K = 2;  // samplers per trainer
  const int base = FreePortRange(2 * parts + 1);
  std::ofstream(dir / "model.pt") << "not read by samplers";
  {
    std::ofstream y(dir / "job.yaml");
    y << "job: ref\npartition: parts/cora.json\ntoken: tok\nmachines:\n";
    for (int m = 0; m < parts; ++m) y << "  - host: 127.0.0.1\n";
    y << "ports: {server: " << base << ", trainer: " << base + parts << ", rendezvous: " << base + 2 * parts
      << "}\nprocesses: {servers: 1, trainers: 1, samplers_per_trainer: " << K << "}\n"
      << "train: {model: model.pt}\nnetwork: {heartbeat_seconds: 0.5, peer_timeout_seconds: 10}\noutput_dir: runs\n";
  }
  std::vector<std::unique_ptr<Subprocess>> servers, samplers;
  std::vector<std::unique_ptr<RemoteBatchProvider>> trainers;
  for (int m = 0; m < parts; ++m) {
    RemoteProviderOptions o;
    o.host = "127.0.0.1";
    o.port = base + parts + m;
    o.trainer_rank = m;
    o.graph_name = "cora";
    o.token = "tok";
    o.first_sampler_rank = m * K;
    o.num_samplers = K;
    o.credits = 2;
    o.connection.heartbeat_seconds = 0.5;
    o.connect_wait_seconds = 120;
    o.batch_timeout_seconds = 120;
    auto t = RemoteBatchProvider::Listen(o);
    INFO(t.status().ToString());
    REQUIRE(t.ok());
    trainers.push_back(std::move(t).value());
  }
  auto start = [&](const std::string& role, int m, int i) {
    auto p = std::make_unique<Subprocess>();
    p->Start({DistgnnBin(), "--role", role, "--config", dir / "job.yaml", "--machine", std::to_string(m), "--index",
              std::to_string(i)},
             dir / (role + "-" + std::to_string(m) + "-" + std::to_string(i) + ".log"));
    return p;
  };
  for (int m = 0; m < parts; ++m) servers.push_back(start("server", m, 0));
  for (int m = 0; m < parts; ++m)
    for (int i = 0; i < K; ++i) samplers.push_back(start("sampler", m, i));
  auto logs = [&] {
    std::string out;
    for (auto* group : {&servers, &samplers})
      for (auto& p : *group) out += "=== " + p->log_path() + "\n" + p->Output();
    return out;
  };
  for (auto& t : trainers) {
    Status st = t->WaitForSamplers();
    if (!st.ok()) FAIL(st.ToString() << "\n" << logs());
  }

  // Seeds from every partition: every 13th node.
  std::vector<int64_t> seeds;
  for (int64_t v = 0; v < cfg->num_nodes; v += 13) seeds.push_back(v);
  struct EpochCase {
    int64_t epoch;
    std::vector<int> fanouts;
  };
  int64_t compared = 0;
  for (const EpochCase& ec : {EpochCase{1, {4, 3, 5}}, EpochCase{2, {-1, 6}}}) {
    EpochRequest req;
    req.epoch = ec.epoch;
    req.seeds = seeds;
    req.batch_size = 24;
    req.shuffle = true;
    req.fanouts = ec.fanouts;
    req.job_seed = 11;
    const std::vector<int64_t> order = EpochOrder(seeds, true, req.job_seed, req.epoch);
    const int64_t batches = NumBatches(static_cast<int64_t>(seeds.size()), req.batch_size);
    MiniBatchOptions opts;
    opts.fanouts = ec.fanouts;
    opts.owner_offsets = cfg->node_map;  // as the samplers' DistNeighborSource
    for (int m = 0; m < parts; ++m) {
      REQUIRE(trainers[m]->BeginEpoch(req).ok());
      for (int64_t b = 0;; ++b) {
        MiniBatch got;
        auto more = trainers[m]->Next(&got);
        INFO("machine " << m << " epoch " << ec.epoch << " batch " << b);
        if (!more.ok()) FAIL(more.status().ToString() << "\n" << logs());
        if (!*more) {
          CHECK(b == batches);
          break;
        }
        REQUIRE(b < batches);
        auto want = SampleMiniBatch(&ref, BatchSeeds(order, req.batch_size, b), opts, req.job_seed, req.epoch, b);
        REQUIRE(want.ok());
        CHECK(got.batch_index == b);
        CHECK(got.seeds == want->seeds);
        REQUIRE(got.blocks.size() == want->blocks.size());
        for (size_t l = 0; l < want->blocks.size(); ++l) {
          INFO("block " << l);
          CHECK(got.blocks[l].num_dst == want->blocks[l].num_dst);
          CHECK(got.blocks[l].num_src == want->blocks[l].num_src);
          CHECK(got.blocks[l].indptr == want->blocks[l].indptr);
          CHECK(got.blocks[l].indices == want->blocks[l].indices);
        }
        CHECK(got.input_nodes == want->input_nodes);
        CHECK(SameArray(got.features, want->features));
        CHECK(SameArray(got.labels, want->labels));
        ++compared;
      }
    }
  }
  CHECK(compared == parts * (NumBatches(int64_t(seeds.size()), 24) * 2));
  for (auto& t : trainers) t->Shutdown();
  for (auto& p : samplers) CHECK(p->Wait(30) == 0);
  for (auto& p : servers) p->Signal(SIGTERM);
  for (auto& p : servers) CHECK(p->Wait(30) == 0);
}

}  // namespace

TEST_CASE("real samplers on 2 partitions build exactly the in-memory reference's batches", "[sampler][reference]") {
  RunSamplersAgainstReference(2);
}

TEST_CASE("real samplers on 3 partitions build exactly the in-memory reference's batches", "[sampler][reference]") {
  RunSamplersAgainstReference(3);
}
