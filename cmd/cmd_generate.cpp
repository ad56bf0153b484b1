// distgnn generate: a synthetic dataset directory for scale work (src.npy,
// dst.npy, features.npy, labels.npy, split.npy), streamed to disk: R-MAT
// (power law, learnable labels) or uniform G(n, m) (as dgl.rand_graph); see
// roles/generate/synthetic_graph.h for the models. `--hetero mag` writes a
// typed dataset shaped like ogbn-mag instead (roles/generate/synthetic_hetero.h);
// `--format ogb` the homogeneous one in OGB's raw/ + split/ CSV layout
// (roles/generate/synthetic_ogb.h).
#include <chrono>
#include <cstdio>

#include "cmd/cli.h"
#include "roles/generate/synthetic_graph.h"
#include "roles/generate/synthetic_hetero.h"
#include "roles/generate/synthetic_ogb.h"

namespace dg {

namespace {

Status Run(int argc, char** argv) {
  namespace po = cli::po;
  SyntheticOptions o;
  std::string out;
  std::string split = "0.6,0.2";
  std::string hetero, model, format;
  po::options_description desc("distgnn generate");
  desc.add_options()
      ("help,h", "show this help")
      ("nodes", po::value(&o.num_nodes)->required(), "number of nodes N (--hetero mag: number of papers)")
      ("hetero", po::value(&hetero), "mag: a typed dataset shaped like ogbn-mag (paper, author, institution, field_of_study; "
       "writes, cites, affiliated_with, has_topic; power-law degrees; paper labels and features)")
      ("format", po::value(&format)->default_value("npy"), "npy (src.npy, dst.npy, features.npy, ...) | ogb (OGB's "
       "raw/*.csv.gz + split/random/, as partition --format ogb reads; not with --hetero)")
      ("model", po::value(&model)->default_value("rmat"), "rmat (power law, no self loops) | uniform (E distinct uniform pairs, as dgl.rand_graph)")
      ("edges", po::value(&o.num_edges)->default_value(-1), "number of directed edges E (required without --hetero)")
      ("feat-dim", po::value(&o.feat_dim)->required(), "feature dimension F (float32)")
      ("classes", po::value(&o.num_classes)->required(), "number of classes C")
      ("seed", po::value(&o.seed)->default_value(0), "random seed (output is deterministic by seed)")
      ("homophily", po::value(&o.homophily)->default_value(0.8), "probability an edge joins same-class nodes (beyond chance)")
      ("separation", po::value(&o.separation)->default_value(2.0), "class centroid distance in noise std units")
      ("train-frac", po::value(&o.train_frac)->default_value(0.6), "fraction of nodes in train (split 0)")
      ("val-frac", po::value(&o.val_frac)->default_value(0.2), "fraction in val (split 1); the rest is test (2)")
      ("test-frac", po::value(&o.test_frac)->default_value(-1), "fraction in test (split 2); the rest in no split (-1). Default: all the rest")
      ("all-train", po::bool_switch(&o.all_train), "every node is a training seed (split 0), as DGL's benchmark")
      ("threads", po::value(&o.threads)->default_value(2), "worker threads (output does not depend on it)")
      ("out", po::value(&out)->required(), "output dataset directory")
      ("force", po::bool_switch(), "replace an existing output directory");
  po::variables_map vm;
  DG_RETURN_IF_ERROR(cli::Parse(desc, argc, argv, &vm));
  GenerateFormat layout = GenerateFormat::kNpy;
  GenerateShape shape = GenerateShape::kHomogeneous;
  if (!Parse(model, &o.model)) return Status::InvalidArgument("--model '" + model + "': expected rmat or uniform");
  if (!Parse(format, &layout)) return Status::InvalidArgument("--format '" + format + "': expected npy or ogb");
  if (vm.count("hetero") && !Parse(hetero, &shape))
    return Status::InvalidArgument("--hetero '" + hetero + "': expected mag");
  if (shape == GenerateShape::kMag && layout == GenerateFormat::kOgb)
    return Status::InvalidArgument("--format ogb writes the homogeneous layout; --hetero mag writes a typed .npy dataset");
  if (shape == GenerateShape::kMag) {
    if (o.num_edges >= 0) return Status::InvalidArgument("--edges does not go with --hetero mag (edge counts follow the papers)");
    const auto t0 = std::chrono::steady_clock::now();
    DG_RETURN_IF_ERROR(WriteSyntheticMag(o, out, vm["force"].as<bool>()));
    std::printf("generated %s (hetero mag): %lld papers, %d features, %d classes in %.2f s\n", out.c_str(),
                (long long)o.num_nodes, o.feat_dim, o.num_classes,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return Status::OK();
  }
  if (o.num_edges < 0) return Status::InvalidArgument("--edges is required (the number of directed edges)");
  if (layout == GenerateFormat::kNpy) return GenerateDataset(o, out, vm["force"].as<bool>());
  const auto t0 = std::chrono::steady_clock::now();
  DG_RETURN_IF_ERROR(WriteSyntheticOgb(o, out, vm["force"].as<bool>()));
  std::printf("generated %s (%s, OGB layout): %lld nodes, %lld edges, %d features, %d classes in %.2f s\n", out.c_str(),
              Name(o.model), (long long)o.num_nodes, (long long)o.num_edges, o.feat_dim, o.num_classes,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return Status::OK();
}

}  // namespace

int RunGenerate(int argc, char** argv) { return cli::ExitCode(argv[0], Run(argc, argv)); }

}  // namespace dg
