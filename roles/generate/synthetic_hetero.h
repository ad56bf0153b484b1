// `distgnn generate --hetero mag`: a synthetic graph shaped like ogbn-mag,
// written as a typed dataset directory (docs/formats.md) and streamed to disk
// (memory: 8 B per node for the relabelings + 8 B per paper for the labels +
// a few blocks of edges per thread, whatever the number of edges).
//
// Node types paper (N = --nodes), author, institution, field_of_study in
// ogbn-mag's proportions to papers (1.541, 0.0119, 0.0814); edge types
// [author, writes, paper], [paper, cites, paper], [author, affiliated_with,
// institution], [paper, has_topic, field_of_study] with ogbn-mag's counts per
// paper (9.70, 7.36, 1.42, 10.19). Target paper; the other types have no arrays.
//
// Degrees follow a power law: an endpoint of rank r in [0, n) is drawn as
// floor(n * u^2.5) (u uniform), so low ranks are hubs (the top 1 % of ranks
// take ~16 % of the endpoints); a seeded permutation per type then relabels
// ranks so ids reveal neither degree nor class. Labels are learnable: the
// paper of rank r has class r % C, every author / field_of_study of rank r a
// "home" class r % C; with probability `homophily` an edge's paper end (or
// its field_of_study end for has_topic, its second paper for cites) is moved
// to the nearest rank of the other end's class, so a paper's neighbourhood
// tells its class. Paper features: class centroid + unit Gaussian noise, the
// centroids `separation` noise std apart (features alone classify poorly).
// Split: each paper train/val/test with the given fractions.
//
// Deterministic by seed, independent of the number of threads.
#pragma once

#include <string>

#include "common/base/status.h"
#include "roles/generate/synthetic_graph.h"

namespace dg {

// opts.num_nodes = papers; num_edges is ignored (the counts follow the papers).
Status WriteSyntheticMag(const SyntheticOptions& opts, const std::string& out_dir, bool force);

}  // namespace dg
