// A synthetic dataset for scale work (what `distgnn generate` writes), streamed
// to disk: memory is O(N) (16 B per node: the relabeling and the labels) plus a
// few blocks per thread, whatever the number of edges.
//
// model "uniform" (as dgl.rand_graph, DGL's distributed benchmark graph): E
// distinct (src, dst) pairs uniform over all N x N pairs, sorted by (dst, src)
// (synthetic_edges.h); labels uniform in [0, C); features N(0, 1) (no
// centroids); split as below. homophily/separation do not apply.
//
// model "rmat" -- Edges: R-MAT (a=0.57, b=0.19, c=0.19, d=0.05) over 2^ceil(log2 N) ids, ids >= N
// rejected, no self loops (duplicates are possible, as in R-MAT). Labels: node
// r of the R-MAT id space has class r % C; with probability `homophily` an edge's
// destination is moved to the nearest id of its source's class, so neighbors
// tend to share labels. A seeded random permutation then relabels the nodes so
// ids reveal neither class nor degree. Features: class centroid + unit Gaussian
// noise, centroids scaled so two classes' centroids are `separation` noise
// standard deviations apart: features alone classify poorly, features averaged
// over a neighborhood classify well. Split: each node independently train/val/
// test with the given fractions (0/1/2), or all train (all_train).
//
// Deterministic by seed, independent of the number of threads: every block of
// edges and every node draws from its own MixSeed(seed, ...) stream.
#pragma once

#include <cstdint>
#include <string>

#include "common/base/status.h"
#include "roles/generate/synthetic_options.h"

namespace dg {

// Writes src.npy, dst.npy, features.npy, labels.npy, split.npy into out_dir
// (created; must not exist unless force). Atomic: a temporary sibling directory
// renamed into place.
Status WriteSyntheticDataset(const SyntheticOptions& opts, const std::string& out_dir, bool force);
// `distgnn generate`: WriteSyntheticDataset, then one line on stdout with what
// was written and how long it took.
Status GenerateDataset(const SyntheticOptions& opts, const std::string& out_dir, bool force);

}  // namespace dg
