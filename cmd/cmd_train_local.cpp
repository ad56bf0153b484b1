// `distgnn train-local`: flags of the one-process trainer (roles/trainer/train_local.h).
#include "cmd/cli.h"
#include "roles/launcher/launch_plan.h"
#include "roles/trainer/train_local.h"

namespace dg {
namespace {

Status Run(int argc, char** argv) {
  std::string fanouts_text, eval_fanouts_text;
  TrainLocalOptions o;
  TrainerOptions& t = o.trainer;
  cli::po::options_description desc("distgnn train-local");
  desc.add_options()("help,h", "show this help")
      ("dataset", cli::po::value(&o.dataset_dir)->required(), "dataset directory")
      ("undirected", cli::po::bool_switch(&o.undirected), "add the reverse of every edge")
      ("normalize-features", cli::po::bool_switch(&o.normalize_features),
       "divide each feature row by its sum (as partition --normalize-features)")
      ("model", cli::po::value(&t.model_path)->required(), "TorchScript model file")
      ("fanouts", cli::po::value(&fanouts_text)->default_value("10,25"), "per-layer fanouts, input layer first")
      ("batch-size", cli::po::value(&t.batch_size)->default_value(1000), "seeds per mini-batch")
      ("epochs", cli::po::value(&t.epochs)->default_value(10), "epochs")
      ("lr", cli::po::value(&t.lr)->default_value(0.003), "learning rate")
      ("optimizer", cli::po::value(&t.optimizer)->default_value("adam"), "adam | sgd")
      ("weight-decay", cli::po::value(&t.weight_decay)->default_value(0.0), "L2 weight decay")
      ("momentum", cli::po::value(&t.momentum)->default_value(0.0), "sgd momentum")
      ("seed", cli::po::value(&t.seed)->default_value(0), "seed (shuffling, sampling, dropout)")
      ("eval-every", cli::po::value(&t.eval_every)->default_value(1), "evaluate every k epochs")
      ("eval-fanouts", cli::po::value(&eval_fanouts_text)->default_value("full"), "full | per-layer fanouts")
      ("classes", cli::po::value(&t.num_classes)->default_value(0), "number of classes (default: max label + 1)")
      ("threads", cli::po::value(&t.threads)->default_value(0), "torch intra-op threads (0 = cores - sampler threads, at least 1)")
      ("sampler-threads", cli::po::value(&o.sampler_threads)->default_value(1), "sampling worker threads")
      ("resume", cli::po::bool_switch(&t.resume),
       "continue from the newest complete RUN_DIR/checkpoints/step-N, else RUN_DIR/checkpoint.pt")
      ("checkpoint-every-steps", cli::po::value(&t.checkpoint_every_steps)->default_value(0),
       "a step checkpoint every N training steps (0 = only checkpoint.pt after each epoch)")
      ("checkpoint-keep", cli::po::value(&t.checkpoint_keep)->default_value(2), "step checkpoints kept")
      ("save-predictions", cli::po::bool_switch(&t.save_predictions), "write predictions.npy (all nodes)")
      ("save-embeddings", cli::po::bool_switch(&t.save_embeddings), "write embeddings.npy (all nodes)")
      ("embedding-dim", cli::po::value(&o.embedding_dim)->default_value(0),
       "learnable per-node input rows of this width (0 = none), trained with a sparse optimizer")
      ("embedding-optimizer", cli::po::value(&o.embedding_optimizer)->default_value("sparse_adam"),
       "sparse_adam | sparse_adagrad")
      ("embedding-lr", cli::po::value(&o.embedding_lr)->default_value(0.01), "embedding learning rate")
      ("no-features", cli::po::bool_switch(&o.no_features), "ignore features.npy: the embedding is the whole input")
      ("merge-types", cli::po::bool_switch(&o.merge_types),
       "typed dataset: merge all node and edge types into one (for a homogeneous model)")
      ("log-every", cli::po::value(&t.log_every)->default_value(20), "steps between progress lines")
      ("out", cli::po::value(&t.out_dir)->required(), "run directory")
      ("task", cli::po::value(&o.task)->default_value("node"), "node (classification) | link (prediction)")
      ("edge-split", cli::po::value(&o.link.edge_split)->default_value("0.85,0.05,0.10"), "link: train,val,test edge fractions")
      ("split-seed", cli::po::value(&o.link.split_seed)->default_value(0), "link: seed of the edge split (as partition --seed)")
      ("negatives", cli::po::value(&o.link.negatives)->default_value(5), "link: negative destinations per training edge")
      ("negative-distribution", cli::po::value(&o.link.negative_distribution)->default_value("uniform"),
       "link: uniform | degree (degree^0.75)")
      ("eval-negatives", cli::po::value(&o.link.eval_negatives)->default_value(100),
       "link: negatives per val/test edge (uniform, fixed seed)")
      ("link-etype", cli::po::value(&o.link.link_etype)->default_value(""),
       "link on a typed dataset: the edge type to predict, src:relation:dst (or a relation naming one edge type)")
      ("algorithm", cli::po::value(&o.algorithm)->default_value("sample"),
       "sample (neighbour sampling) | control_variate (VR-GCN: --fanouts has layers-1 entries)")
      ("cv-input", cli::po::value(&o.cv_input)->default_value(""),
       "control_variate: dataset array with the propagated input (default: mean of features over in-neighbours, computed here)");
  cli::po::variables_map vm;
  DG_RETURN_IF_ERROR(cli::Parse(desc, argc, argv, &vm));
  DG_ASSIGN_OR_RETURN(t.fanouts, cli::ParseIntList("--fanouts", fanouts_text));
  if (eval_fanouts_text != "full") {
    DG_ASSIGN_OR_RETURN(t.eval_fanouts, cli::ParseIntList("--eval-fanouts", eval_fanouts_text));
  }
  o.link.edge_split_given = !vm["edge-split"].defaulted();
  o.command = "distgnn train-local";
  for (int i = 1; i < argc; ++i) o.command += " " + ShellQuote(argv[i]);
  return TrainLocal(std::move(o));
}

}  // namespace

int RunTrainLocal(int argc, char** argv) { return cli::ExitCode(argv[0], Run(argc, argv)); }

}  // namespace dg
