// Writes the seed corpora of the fuzz targets (valid inputs made with the real
// encoders) into DIR/<target>/. Run by hand when a format changes:
//   build-fuzz/test/fuzz/make_seeds test/fuzz/corpus
#include <cstdio>
#include <filesystem>
#include <string>

#include "common/net/handshake.h"
#include "common/net/messages.h"
#include "common/net/pull_aggregate.h"
#include "common/net/pull_block.h"
#include "common/sampling/minibatch_codec.h"
#include "common/io/npy.h"

using namespace dg;

namespace {
std::string g_root;

void Put(const std::string& target, const std::string& name, const std::string& bytes) {
  std::filesystem::create_directories(g_root + "/" + target);
  std::FILE* f = std::fopen((g_root + "/" + target + "/" + name).c_str(), "wb");
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
}
std::string Sel(uint8_t which, BufferList b) { return std::string(1, char(which)) + b.Flatten(); }
std::string FrameBytes(MsgType t, const std::string& payload) {
  FrameHeader h;
  h.type = uint16_t(t);
  h.request_id = 7;
  h.payload_length = payload.size();
  uint8_t buf[kFrameHeaderSize];
  EncodeFrameHeader(h, buf);
  return std::string(reinterpret_cast<char*>(buf), kFrameHeaderSize) + payload;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_seeds DIR\n");
    return 2;
  }
  g_root = argv[1];
  Array ids = IdsArray({1, 2, 3, 2});
  Array rows = Array::Zeros(DType::kFloat32, {4, 3});
  // frame
  {
    Encoder e;
    e.U8(uint8_t(Status::Code::kInvalidArgument));
    e.String("PULL: unknown tensor 'x'");
    Put("frame", "error", FrameBytes(MsgType::kError, e.Finish().Flatten()));
    Put("frame", "heartbeat", FrameBytes(MsgType::kHeartbeat, ""));
  }
  // messages
  {
    Encoder e;
    EncodePull(&e, TensorKind::kNode, "features", ids);
    Put("messages", "pull", Sel(0, e.Finish()));
    EncodePush(&e, "emb", PushMode::kAdd, ids, rows);
    Put("messages", "push", Sel(1, e.Finish()));
    InitTensorSpec s;
    s.name = "emb";
    s.shape = {10, 4};
    s.init = Initializer::kUniform;
    s.a = -1;
    s.b = 1;
    EncodeInitTensor(&e, s);
    Put("messages", "init", Sel(2, e.Finish()));
    SparseUpdateRequest r;
    r.name = "emb";
    r.optimizer.lr = 0.1;
    r.optimizer.eps = 1e-10;
    r.optimizer.weight_decay = 1e-4;
    r.contributors = 2;
    r.rank = 1;
    r.ids = ids;
    r.grads = rows;
    EncodeSparseUpdate(&e, r);
    Put("messages", "sparse", Sel(3, e.Finish()));
    SampleSpec spec;
    spec.fanout = 10;
    spec.replace = true;
    spec.seed = 5;
    spec.edge_ids = true;
    EncodeSample(&e, ids, spec);
    Put("messages", "sample", Sel(4, e.Finish()));
    SampleSpec typed;  // fanouts per edge type
    typed.seed = 5;
    typed.etype_fanouts = {2, -1, 0};
    EncodeSample(&e, ids, typed);
    Put("messages", "sample_typed", Sel(4, e.Finish()));
    // IMDB --undirected: 3 relations and their rev_ ones, 10 each, with replacement and edge ids
    SampleSpec imdb;
    imdb.fanout = 0;
    imdb.replace = true;
    imdb.seed = 9;
    imdb.edge_ids = true;
    imdb.etype_fanouts = {10, 10, 10, 10, 10, 10};
    EncodeSample(&e, ids, imdb);
    Put("messages", "sample_typed_imdb", Sel(4, e.Finish()));
    MetadataReply m;
    m.graph_name = "g";
    m.num_nodes = 10;
    m.node_map = {0, 5, 10};
    m.edge_map = {0, 10, 20};
    m.tensors.push_back(TensorMeta{"features", TensorKind::kNode, DType::kFloat32, {10, 4}});
    EncodeMetadataReply(&e, m);
    Put("messages", "metadata", Sel(5, e.Finish()));
    // A typed partition (docs/protocol.md): node tensors named <type>/<name>, the
    // uint8 edge tensor edge_types.
    MetadataReply tm;
    tm.graph_name = "imdb";
    tm.part_id = 1;
    tm.num_nodes = 14189;
    tm.num_edges = 64644;
    tm.node_map = {0, 7000, 14189};
    tm.edge_map = {0, 32000, 64644};
    tm.tensors.push_back(TensorMeta{"movie/features", TensorKind::kNode, DType::kFloat32, {4181, 2669}});
    tm.tensors.push_back(TensorMeta{"movie/labels", TensorKind::kNode, DType::kInt64, {4181}});
    tm.tensors.push_back(TensorMeta{"movie/split", TensorKind::kNode, DType::kInt8, {4181}});
    tm.tensors.push_back(TensorMeta{"edge_types", TensorKind::kEdge, DType::kUInt8, {64644}});
    EncodeMetadataReply(&e, tm);
    Put("messages", "metadata_typed", Sel(5, e.Finish()));
    EncodeBarrier(&e, BarrierRequest{"start", 2});
    Put("messages", "barrier", Sel(6, e.Finish()));
    StatsReply st;
    st.types.push_back(TypeStats{"PULL", 3, 1, 100, 200, 0.1, 0.5});
    EncodeStatsReply(&e, st);
    Put("messages", "stats", Sel(7, e.Finish()));
    EncodeInDegrees(&e, ids);
    Put("messages", "degrees", Sel(8, e.Finish()));
    EncodeSaveTensor(&e, "emb");
    Put("messages", "save_tensor", Sel(14, e.Finish()));
    CheckpointRequest cp;
    cp.action = CheckpointAction::kSave;
    cp.step = 100;
    cp.keep = 2;
    EncodeCheckpoint(&e, cp);
    Put("messages", "checkpoint", Sel(15, e.Finish()));
    Put("messages", "empty", Sel(16, e.Finish()));
    Hello h;
    h.role = "sampler";
    h.rank = 3;
    h.graph_name = "g";
    h.token = "token";
    HandshakeDialer d(h);
    std::string hello = d.EncodeHello()->Flatten();
    Put("messages", "hello_acceptor", std::string(1, char(9)) + hello);
    Put("messages", "hello", std::string(1, char(11)) + hello);
    HandshakeAcceptor a("g", "token");
    BufferList challenge;
    (void)a.OnFrame(uint16_t(MsgType::kHello), reinterpret_cast<const uint8_t*>(hello.data()), hello.size(), &challenge);
    Put("messages", "challenge", Sel(10, std::move(challenge)));
    Welcome w{"server", 1, 0, "g"};
    Put("messages", "welcome", Sel(12, a.EncodeWelcome(w)));
    e.ArrayRef(rows);
    Put("messages", "array", Sel(13, e.Finish()));
  }
  // pull_block: a request (even selector) and float16 reply rows (selector 3)
  {
    auto ids = std::make_shared<PullBlockIds>();
    ids->rows = {0, 7};
    ids->counts = {2, 0, 1};
    ids->src = {3, 3, 5};
    Encoder e;
    EncodePullBlock(&e, "features", WireDType::kFloat16, ids);
    Put("pull_block", "request", Sel(0, e.Finish()));
    std::vector<float> rows(12, 0.5f);
    EncodeWireRows(&e, WireDType::kFloat16, rows.data(), 2, 4);
    EncodeWireRows(&e, WireDType::kFloat16, rows.data(), 1, 4);
    Put("pull_block", "reply_f16", Sel(3, e.Finish()));
    auto sample = std::make_shared<PullBlockIds>();  // SAMPLE_BLOCK with stored rows (selector 2)
    sample->rows = {1, 4, 6};
    sample->cand = {0, 2};
    SampleSpec spec;
    spec.fanout = 3;
    spec.seed = 9;
    EncodeSampleBlock(&e, "features", WireDType::kFloat32, spec, sample, SampleBlockHistory{"hist", 7, 2});
    Put("pull_block", "sample_history", Sel(2, e.Finish()));
  }
  // in_degrees, save_tensor, checkpoint, pull_aggregate: the payload alone (no
  // selector byte); the partition of fuzz_store.h owns nodes [0, 8) of 12
  {
    Encoder e;
    EncodeInDegrees(&e, IdsArray({1, 3, 0, 7, 3}));
    Put("in_degrees", "owned", e.Finish().Flatten());
    EncodeInDegrees(&e, IdsArray({2, 9}));
    Put("in_degrees", "not_owned", e.Finish().Flatten());
    EncodeInDegrees(&e, IdsArray({}));
    Put("in_degrees", "none", e.Finish().Flatten());
    EncodeSaveTensor(&e, "emb");
    Put("save_tensor", "persistent", e.Finish().Flatten());
    EncodeSaveTensor(&e, "features");
    Put("save_tensor", "partition_data", e.Finish().Flatten());
    CheckpointRequest cp;
    cp.action = CheckpointAction::kSave;
    cp.step = 100;
    cp.keep = 2;
    EncodeCheckpoint(&e, cp);
    Put("checkpoint", "save", e.Finish().Flatten());
    cp.action = CheckpointAction::kLoad;
    cp.step = 40;
    cp.keep = 0;
    EncodeCheckpoint(&e, cp);
    Put("checkpoint", "load", e.Finish().Flatten());
    cp.action = CheckpointAction::kRestoreBest;
    EncodeCheckpoint(&e, cp);
    Put("checkpoint", "restore_best", e.Finish().Flatten());
    EncodePullAggregate(&e, "features", IdsArray({0, 3, 9, 11, 3, 5}));
    Put("pull_aggregate", "features", e.Finish().Flatten());
    EncodePullAggregate(&e, "emb", IdsArray({11, 9, 0}));
    Put("pull_aggregate", "mutable", e.Finish().Flatten());
  }
  // minibatch
  {
    MiniBatch mb;
    mb.seeds = {4, 5};
    Block b;
    b.num_dst = 2;
    b.num_src = 3;
    b.indptr = {0, 1, 3};
    b.indices = {2, 0, 1};
    mb.blocks.push_back(b);
    mb.input_nodes = {4, 5, 9};
    mb.features = Array::Zeros(DType::kFloat32, {3, 2});
    mb.labels = Array::Zeros(DType::kInt64, {2});
    Put("minibatch", "minibatch", Sel(0, EncodeMiniBatch(mb)));
    MiniBatch typed = mb;  // a typed graph's batch: edge and node types
    typed.blocks[0].etypes = {1, 0, 2};
    typed.input_ntypes = {0, 0, 1};
    Put("minibatch", "minibatch_typed", Sel(0, EncodeMiniBatch(typed)));
    EpochRequest r;
    r.seeds = {1, 2, 3};
    r.fanouts = {5, 10};
    Put("minibatch", "epoch", Sel(1, EncodeEpoch(r, 4)));
    r.link = true;
    Put("minibatch", "epoch_link", Sel(1, EncodeEpoch(r, 4)));
    mb.labels = Array::Zeros(DType::kInt64, {2, 3});  // link pairs: (source row, destination row, target)
    Put("minibatch", "minibatch_link", Sel(0, EncodeMiniBatch(mb)));
    Put("minibatch", "credit", Sel(2, EncodeCredit(3)));
    // Block 0 aggregated where the features live, rows in float16: block 0 as
    // sampled degrees, features and neighbour means of its 2 destinations.
    MiniBatch agg;
    agg.seeds = {4};
    Block d;
    d.num_dst = d.num_src = 2;
    d.indptr = {0, 2, 3};
    d.indices = {0, 0, 1};
    Block top;
    top.num_dst = 1;
    top.num_src = 2;
    top.indptr = {0, 1};
    top.indices = {1};
    agg.blocks = {d, top};
    agg.input_nodes = {4, 9};
    agg.features = Array::Zeros(DType::kFloat32, {2, 3});
    agg.input_neigh_mean = Array::Zeros(DType::kFloat32, {2, 3});
    agg.labels = Array::Zeros(DType::kInt64, {1});
    Put("minibatch", "minibatch_agg_f16", Sel(0, EncodeMiniBatch(agg, WireDType::kFloat16)));
    r.link = false;
    Put("minibatch", "epoch_agg_bf16", Sel(1, EncodeEpoch(r, 4, BatchInput{true, WireDType::kBFloat16})));
  }
  // npy
  {
    std::string tmp = g_root + "/.tmp.npy";
    for (auto [name, a] : {std::pair<const char*, Array>{"f32_2d", Array::Zeros(DType::kFloat32, {3, 2})},
                           {"i64_1d", Array::Zeros(DType::kInt64, {5})},
                           {"bool_scalar", Array::Zeros(DType::kBool, {})}}) {
      if (!NpyWrite(tmp, a).ok()) return 1;
      std::FILE* f = std::fopen(tmp.c_str(), "rb");
      std::string bytes;
      char buf[4096];
      size_t k;
      while ((k = std::fread(buf, 1, sizeof(buf), f)) > 0) bytes.append(buf, k);
      std::fclose(f);
      Put("npy", name, bytes);
    }
    std::filesystem::remove(tmp);
  }
  // job_yaml (names the scratch p.json and m.pt of fuzz_job_yaml.cpp)
  Put("job_yaml", "minimal",
      "job: j\npartition: p.json\nmachines:\n  - host: 127.0.0.1\n  - host: 127.0.0.1\ntrain:\n  model: m.pt\n");
  Put("job_yaml", "full",
      "job: j\npartition: p.json\ntoken: \"\"\nmachines:\n  - {host: 10.0.0.1, ssh: u@a, ssh_port: 22}\n"
      "  - {host: 10.0.0.2, ssh: b, workspace: /w, ssh_options: [StrictHostKeyChecking=no]}\n"
      "ports: {server: 30050, trainer: 30200, rendezvous: 29500}\n"
      "processes: {servers: 2, trainers: 1, samplers_per_trainer: 2}\n"
      "train:\n  model: m.pt\n  fanouts: [10, 25]\n  batch_size: 64\n  epochs: 3\n  lr: 0.01\n"
      "  embedding: {dim: 16, optimizer: sparse_adagrad, lr: 0.5, features: false}\n"
      "  task: link\n  negative: {k: 5, distribution: degree}\n  eval_negatives: 50\n"
      "network: {max_frame_bytes: 1048576, heartbeat_seconds: 1, peer_timeout_seconds: 10}\n"
      "limits: {mutable_tensor_bytes: 1000000, max_fanout: 1000, max_pending: 10}\n");
  std::printf("seeds written to %s\n", argv[1]);
  return 0;
}
