// `distgnn model export`: writes a ready GNN (sage | gcn | gat) as a TorchScript
// file compiled from TorchScript source in C++ (roles/trainer/model/model_export.h).
#include <algorithm>
#include <cstdio>
#include <string>

#include "cmd/cli.h"
#include "config/train_spec.h"
#include "roles/trainer/model/model_export.h"
#include "roles/trainer/model/typed_model_spec.h"

namespace dg {

namespace {

// ", starting uniform in +-S and learning at R[, decaying by W]": the learnt
// rows' defaults the model records.
std::string RowStart(const ModelSpec& spec) {
  char buf[160];
  std::snprintf(buf, sizeof(buf), ", starting %s%g and learning at %g",
                spec.embedding_init_scale > 0 ? "uniform in +-" : "at ", spec.embedding_init_scale, spec.embedding_lr);
  std::string out = buf;
  if (spec.embedding_weight_decay > 0) {
    std::snprintf(buf, sizeof(buf), " with a decoupled weight decay of %g", spec.embedding_weight_decay);
    out += buf;
  }
  return out;
}

}  // namespace

int RunModel(int argc, char** argv) {
  ModelSpec spec;
  std::string arch_word, out, task, featureless_input;
  TypedModelSource typed;
  int64_t out_dim = 0;
  cli::po::options_description desc("distgnn model export");
  desc.add_options()("help,h", "show this help")
      ("arch", cli::po::value(&arch_word)->required(), "sage | gcn | gat | mlp | rgcn | hetero-sage")
      ("in-dim", cli::po::value(&spec.in_dim), "input feature width (not for rgcn / hetero-sage)")
      ("dataset", cli::po::value(&typed.dataset), "rgcn | hetero-sage: the typed dataset directory to read the types from")
      ("partition-config", cli::po::value(&typed.partition_config),
       "rgcn | hetero-sage: or the typed partition's NAME.json to read them from")
      ("undirected", cli::po::bool_switch(&typed.undirected),
       "rgcn | hetero-sage: the graph is trained with --undirected (a rev_ relation per edge type)")
      ("embedding-dim", cli::po::value(&spec.embedding_dim),
       "rgcn | hetero-sage: width of the learnt row per node that featureless node types read (default: --hidden "
       "when a node type has no features; 0: one learnt vector shared by each featureless type's nodes). The model "
       "records it: train-local and launch take it without a flag")
      ("featureless-input", cli::po::value(&featureless_input),
       "rgcn | hetero-sage: type-rows (a learnt row per node through its type's input weight) | relation-rows "
       "(R-GCN's one-hot input: a learnt block per node for each relation weight of layer 0 and its self weight; "
       "graphs without any features). Default: relation-rows on a graph without features whose rows fit 1 GiB, "
       "else type-rows")
      ("bases", cli::po::value(&spec.bases)->default_value(0), "rgcn: number of bases (0 = one per relation)")
      ("hidden", cli::po::value(&spec.hidden)->default_value(256),
       "hidden width (gat: all heads together; rgcn, hetero-sage: 64 unless given)")
      ("classes", cli::po::value(&spec.classes), "number of classes (output width; --task node)")
      ("task", cli::po::value(&task)->default_value("node"),
       "node: the last layer gives class logits | link: the last layer gives an embedding (no class layer)")
      ("out-dim", cli::po::value(&out_dim)->default_value(0), "--task link: embedding width (default: --hidden)")
      ("layers", cli::po::value(&spec.layers)->default_value(2), "number of layers (= number of fanouts)")
      ("dropout", cli::po::value(&spec.dropout)->default_value(0.5), "dropout on the input of hidden layers")
      ("input-dropout", cli::po::value(&spec.input_dropout)->default_value(0.0),
       "dropout on the input features (layer 0); off by default, as in DGL's examples")
      ("attn-dropout", cli::po::value(&spec.attn_dropout)->default_value(0.5), "gat: attention dropout")
      ("heads", cli::po::value(&spec.heads)->default_value(8), "gat: attention heads of hidden layers")
      ("seed", cli::po::value(&spec.seed)->default_value(0), "parameter initialisation seed")
      ("out,o", cli::po::value(&out)->required(), "output TorchScript file");
  cli::po::variables_map vm;
  Status st = cli::Parse(desc, argc, argv, &vm);
  if (st.ok() && !Parse(arch_word, &spec.arch))
    st = Status::InvalidArgument("--arch: unknown architecture '" + arch_word + "' (expected " + ModelArchChoices() +
                                 ")");
  TrainTask kind = TrainTask::kNode;
  if (st.ok() && !Parse(task, &kind))
    st = Status::InvalidArgument("--task: expected " + Choices<TrainTask>() + ", got '" + task + "'");
  if (st.ok() && kind == TrainTask::kNode && !vm.count("classes") && !IsTypedArch(spec.arch))
    st = Status::InvalidArgument("--classes is required (the output width) unless --task link");
  // 64 as in DGL's RGCN examples and the IMDB figures of docs/models.md.
  if (IsTypedArch(spec.arch) && vm["hidden"].defaulted()) spec.hidden = 64;
  if (IsTypedArch(spec.arch) && !vm.count("embedding-dim")) spec.embedding_dim = kEmbeddingDimAuto;
  if (st.ok() && kind == TrainTask::kLink) {
    if (vm.count("classes"))
      st = Status::InvalidArgument("--classes goes with --task node; a link model outputs an embedding (--out-dim)");
    else if (out_dim < 0)
      st = Status::InvalidArgument("--out-dim must be > 0");
    else
      spec.classes = out_dim > 0 ? out_dim : spec.hidden;  // the last layer's width: the embedding
  }
  if (st.ok() && IsTypedArch(spec.arch)) {
    if (vm.count("in-dim"))
      st = Status::InvalidArgument("--in-dim goes with homogeneous models; --arch " + arch_word +
                                   " reads the feature widths from --dataset or --partition-config");
    if (st.ok() && vm.count("featureless-input")) {
      FeaturelessInput input = FeaturelessInput::kTypeRows;
      if (!Parse(featureless_input, &input))
        st = Status::InvalidArgument("--featureless-input: expected type-rows or relation-rows, got '" +
                                     featureless_input + "'");
      typed.featureless_input = input;
    }
    if (st.ok()) st = FillTypedModelSpec(typed, &spec);
  } else if (st.ok() && vm.count("featureless-input")) {
    st = Status::InvalidArgument("--featureless-input goes with --arch rgcn or hetero-sage");
  } else if (st.ok() && !vm.count("in-dim")) {
    st = Status::InvalidArgument("--in-dim is required (the input feature width)");
  }
  if (st.ok()) st = ExportModel(spec, out);
  if (st.ok()) {
    const auto& dims = spec.type_feature_dims;
    const bool featureless = std::find(dims.begin(), dims.end(), 0) != dims.end();
    const std::string embedding =
        !featureless              ? ""
        : spec.featureless_input == FeaturelessInput::kRelationRows
            ? "; featureless types: relation rows, " + std::to_string(spec.embedding_dim) + " learnt columns per node (" +
                  std::to_string(RelationRowBlocks(spec) + 1) + " blocks)" + RowStart(spec)
        : spec.embedding_dim > 0 ? "; featureless types: " + std::to_string(spec.embedding_dim) +
                                       " learnt columns per node" + RowStart(spec)
                                 : "; featureless types: one learnt vector per type";
    std::printf("wrote %s model (%d layers, %lld -> %lld -> %lld%s) to %s\n", Name(spec.arch), spec.layers,
                static_cast<long long>(spec.in_dim), static_cast<long long>(spec.hidden),
                static_cast<long long>(spec.classes), embedding.c_str(), out.c_str());
  }
  return cli::ExitCode(argv[0], st);
}

}  // namespace dg
