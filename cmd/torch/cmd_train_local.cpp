// `distgnn train-local`: flags of the one-process trainer (roles/trainer/train_local/train_local.h).
#include "cmd/cli.h"
#include "roles/launcher/launch_plan.h"
#include "roles/trainer/train_local/train_local.h"

namespace dg {
namespace {

// An enum flag's word as its value, or "--flag: expected a or b, got 'x'".
template <class E>
Status ParseFlag(const std::string& flag, const std::string& word, E* out) {
  if (Parse(word, out)) return Status::OK();
  return Status::InvalidArgument(flag + ": expected " + Choices<E>() + ", got '" + word + "'");
}

// The words of the enum and list flags, parsed once every flag is read.
struct EnumFlags {
  std::string optimizer, embedding_optimizer, task, negative_distribution, algorithm, select_by, lr_schedule;
  std::string historical_layers;  // a list, parsed with the fanouts
};

void AddFlags(cli::po::options_description* desc, TrainSpec* s, EnumFlags* e, LocalRun* run, bool* no_features,
              std::string* fanouts, std::string* eval_fanouts) {
  namespace po = cli::po;
  desc->add_options()("help,h", "show this help")
      ("dataset", po::value(&s->dataset_dir)->required(), "dataset directory")
      ("undirected", po::bool_switch(&s->undirected), "add the reverse of every edge")
      ("normalize-features", po::bool_switch(&s->normalize_features),
       "divide each feature row by its sum (as partition --normalize-features)")
      ("model", po::value(&s->model)->required(), "TorchScript model file")
      ("fanouts", po::value(fanouts)->default_value("10,25"),
       "per-layer fanouts, input layer first; -1 = every neighbour (a large number is not: a hub has more)")
      ("batch-size", po::value(&s->batch_size)->default_value(1000), "seeds per mini-batch")
      ("epochs", po::value(&s->epochs)->default_value(10), "epochs")
      ("lr", po::value<double>()->notifier([s](double v) { s->lr = v; }),
       "learning rate (default: 0.01 for sage and rgcn node classification on feature rows of mean L1 size <= 64, "
       "else 0.003; docs/models.md)")
      ("optimizer", po::value(&e->optimizer)->default_value("adam"), "adam | sgd")
      ("weight-decay", po::value(&s->weight_decay)->default_value(0.0), "L2 weight decay")
      ("momentum", po::value(&s->momentum)->default_value(0.0), "sgd momentum")
      ("grad-clip", po::value(&s->grad_clip)->default_value(0.0),
       "largest global L2 norm of the gradients; larger ones are scaled down to it (0 = no clipping)")
      ("lr-schedule", po::value(&e->lr_schedule)->default_value("none"),
       "none | cosine (to --min-lr over the run) | step (times --lr-gamma every --lr-step-size steps)")
      ("warmup-steps", po::value<int64_t>()->notifier([s](int64_t v) { s->lr_schedule.warmup_steps = v; }),
       "cosine, step: the rate rises linearly to --lr over the first N optimizer steps (default 0)")
      ("min-lr", po::value<double>()->notifier([s](double v) { s->lr_schedule.min_lr = v; }),
       "cosine: the rate at the end of the run (default 0)")
      ("lr-step-size", po::value<int64_t>()->notifier([s](int64_t v) { s->lr_schedule.step_size = v; }),
       "step: optimizer steps between decays")
      ("lr-gamma", po::value<double>()->notifier([s](double v) { s->lr_schedule.gamma = v; }),
       "step: the factor of each decay (default 0.1)")
      ("seed", po::value(&s->seed)->default_value(0), "seed (shuffling, sampling, dropout)")
      ("eval-every", po::value(&s->eval_every)->default_value(1), "evaluate every k epochs")
      ("select-by", po::value(&e->select_by)->default_value("val_metric"),
       "the model kept: val_metric (highest validation accuracy, link: ROC-AUC; ties: lower validation loss) | "
       "val_loss (lowest validation loss)")
      ("eval-fanouts", po::value(eval_fanouts)->default_value("full"),
       "full | per-layer fanouts (-1 = every neighbour)")
      ("classes", po::value(&s->num_classes)->default_value(0), "number of classes (default: max label + 1)")
      ("threads", po::value(&s->intra_op_threads)->default_value(0),
       "torch intra-op threads (0 = cores - sampler threads, at least 1)")
      ("sampler-threads", po::value(&s->sampler_threads)->default_value(1), "sampling worker threads")
      ("resume", po::bool_switch(&s->resume),
       "continue from the newest complete RUN_DIR/checkpoints/step-N, else RUN_DIR/checkpoint.pt")
      ("checkpoint-every-steps", po::value(&s->checkpoint_every_steps)->default_value(0),
       "a step checkpoint every N training steps (0 = only checkpoint.pt after each epoch)")
      ("checkpoint-keep", po::value(&s->checkpoint_keep)->default_value(2), "step checkpoints kept")
      ("save-predictions", po::bool_switch(&s->save_predictions), "write predictions.npy (all nodes)")
      ("save-embeddings", po::bool_switch(&s->save_embeddings), "write embeddings.npy (all nodes)")
      ("embedding-dim", po::value(&s->embedding.dim)->default_value(0),
       "learnable per-node input rows of this width (0 = none), trained with a sparse optimizer; default: what "
       "the model records (a typed model's featureless types; a dataset without features: the model's input width)")
      ("embedding-optimizer", po::value(&e->embedding_optimizer)->default_value("sparse_adam"),
       "sparse_adam | sparse_adagrad")
      ("embedding-lr", po::value<double>()->notifier([s](double v) { s->embedding.lr = v; }),
       "embedding learning rate (default 0.01; 0.001 for the featureless types of a typed model)")
      ("embedding-init-scale", po::value<double>()->notifier([s](double v) { s->embedding.init_scale = v; }),
       "embedding rows start uniform in [-S, S) (train.embedding.init_scale; default 0.1; 0 for the featureless "
       "types of a typed model: each node starts as its type's learnt vector)")
      ("embedding-weight-decay", po::value<double>()->notifier([s](double v) { s->embedding.weight_decay = v; }),
       "decoupled weight decay of every embedding row each step (train.embedding.weight_decay; default 0, or what "
       "the model records for its relation rows)")
      ("embedding-l2", po::value<double>()->notifier([s](double v) { s->embedding.l2 = v; }),
       "L2 penalty on the embedding rows a step reads, added to their gradient as --weight-decay is to the dense "
       "weights (train.embedding.l2; default 0, or --weight-decay for a model's relation rows)")
      ("no-features", po::bool_switch(no_features), "ignore features.npy: the embedding is the whole input")
      ("merge-types", po::bool_switch(&s->merge_types),
       "typed dataset: merge all node and edge types into one (for a homogeneous model)")
      ("log-every", po::value(&s->log_every)->default_value(20), "steps between progress lines")
      ("out", po::value(&run->out_dir)->required(), "run directory")
      ("task", po::value(&e->task)->default_value("node"), "node (classification) | link (prediction)")
      ("edge-split", po::value(&s->link.edge_split)->default_value("0.85,0.05,0.10"),
       "link: train,val,test edge fractions")
      ("split-seed", po::value(&s->link.split_seed)->default_value(0), "link: seed of the edge split (as partition --seed)")
      ("negatives", po::value(&s->link.negative_k)->default_value(5), "link: negative destinations per training edge")
      ("negative-distribution", po::value(&e->negative_distribution)->default_value("uniform"),
       "link: uniform | degree (degree^0.75)")
      ("eval-negatives", po::value(&s->link.eval_negatives)->default_value(100),
       "link: negatives per val/test edge (uniform, fixed seed)")
      ("link-etype", po::value(&s->link.etype)->default_value(""),
       "link on a typed dataset: the edge type to predict, src:relation:dst (or a relation naming one edge type)")
      ("algorithm", po::value(&e->algorithm)->default_value("sample"),
       "sample (neighbour sampling) | control_variate (VR-GCN: --fanouts has layers-1 entries; layers with "
       "learnt rows, the first their hop)")
      ("cv-input", po::value(&s->cv_input)->default_value(""),
       "control_variate: dataset array with the propagated input (default: mean of features over in-neighbours, "
       "computed here)")
      ("historical-layers", po::value(&e->historical_layers)->default_value(""),
       "layers whose input rows of nodes outside the batch's seeds are read from a store when young enough "
       "(train.historical.layers, e.g. 1)")
      ("historical-max-age", po::value(&s->historical.max_age_steps)->default_value(0),
       "steps a stored row may be old to be read (train.historical.max_age_steps)");
}

// The flags as a TrainSpec, validated (config/train_spec.h names the flags in errors).
Status Run(int argc, char** argv) {
  TrainSpec spec;
  EnumFlags words;
  LocalRun run;
  bool no_features = false;
  std::string fanouts_text, eval_fanouts_text;
  cli::po::options_description desc("distgnn train-local");
  AddFlags(&desc, &spec, &words, &run, &no_features, &fanouts_text, &eval_fanouts_text);
  cli::po::variables_map vm;
  DG_RETURN_IF_ERROR(cli::Parse(desc, argc, argv, &vm));
  DG_ASSIGN_OR_RETURN(spec.fanouts, cli::ParseIntList("--fanouts", fanouts_text));
  spec.eval_full_neighbors = eval_fanouts_text == "full";
  if (!spec.eval_full_neighbors) {
    DG_ASSIGN_OR_RETURN(spec.eval_fanouts, cli::ParseIntList("--eval-fanouts", eval_fanouts_text));
  }
  DG_RETURN_IF_ERROR(ParseFlag("--optimizer", words.optimizer, &spec.optimizer));
  DG_RETURN_IF_ERROR(ParseFlag("--embedding-optimizer", words.embedding_optimizer, &spec.embedding.optimizer));
  DG_RETURN_IF_ERROR(ParseFlag("--task", words.task, &spec.task));
  DG_RETURN_IF_ERROR(ParseFlag("--negative-distribution", words.negative_distribution,
                               &spec.link.negative_distribution));
  DG_RETURN_IF_ERROR(ParseFlag("--algorithm", words.algorithm, &spec.algorithm));
  DG_RETURN_IF_ERROR(ParseFlag("--select-by", words.select_by, &spec.select_by));
  DG_RETURN_IF_ERROR(ParseFlag("--lr-schedule", words.lr_schedule, &spec.lr_schedule.kind));
  if (!words.historical_layers.empty()) {
    DG_ASSIGN_OR_RETURN(spec.historical.layers, cli::ParseIntList("--historical-layers", words.historical_layers));
  }
  spec.embedding.features = !no_features;
  spec.link.edge_split_given = !vm["edge-split"].defaulted();
  DG_RETURN_IF_ERROR(ValidateTrainSpec(spec, TrainSpecSource()));
  run.command = "distgnn train-local";
  for (int i = 1; i < argc; ++i) run.command += " " + ShellQuote(argv[i]);
  return TrainLocal(spec, run);
}

}  // namespace

int RunTrainLocal(int argc, char** argv) { return cli::ExitCode(argv[0], Run(argc, argv)); }

}  // namespace dg
