// What one hop of neighbour sampling asks for: the one set of sampling
// settings, built once by the batch maker (MiniBatchOptions is a
// LayeredSampleSpec) and passed whole through NeighborSource, the client
// (DistGraphClient::SampleNeighbors), the wire (SAMPLE_NEIGHBORS, whose
// request holds one) and the partition store down to the row kernel
// (common/storage/neighbor_sampling.h, SampleRow). Every layer spells these
// fields here and nowhere else, with one set of defaults. In common/base
// because both the storage and the wire speak it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dg {

struct SampleSpec {
  // In-edges per seed; < 0 takes every in-neighbour, 0 none.
  int64_t fanout = -1;
  // Typed graphs: in-edges of edge type t per seed (fanout is then unused);
  // empty = an untyped request.
  std::vector<int> etype_fanouts;
  bool replace = false;
  // The request seed; a row's seed is MixSeed(seed, gid), so a sample depends
  // only on (seed, gid, the row), never on who asks or in which order.
  uint64_t seed = 0;
  // "" = uniform; else a float32 edge tensor [E] or [E, 1] weighting each in-edge.
  std::string weight_name;
  // Whether the reply carries the sampled edges' ids (link prediction's edge
  // exclusion needs them; node classification does not).
  bool edge_ids = false;

  bool typed() const { return !etype_fanouts.empty(); }
};

// The settings of every layer of a mini-batch: layer l is sampled with
// At(l, seed_l). fanouts[l] is the fanout of block l (block 0 is the input
// layer, as DGL); etype_fanouts, when not empty, gives typed graphs a fanout
// per layer and edge type (empty = fanouts[l] for every edge type).
struct LayeredSampleSpec {
  std::vector<int> fanouts;
  std::vector<std::vector<int>> etype_fanouts;
  bool replace = false;
  std::string weight_name;
  bool edge_ids = false;

  int num_layers() const { return static_cast<int>(fanouts.size()); }
  SampleSpec At(int layer, uint64_t seed) const {
    SampleSpec s;
    s.fanout = fanouts[layer];
    if (!etype_fanouts.empty()) s.etype_fanouts = etype_fanouts[layer];
    s.replace = replace;
    s.seed = seed;
    s.weight_name = weight_name;
    s.edge_ids = edge_ids;
    return s;
  }
};

}  // namespace dg
