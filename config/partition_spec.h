// PartitionSpec: every setting of `distgnn partition` (with and without --mpi),
// as one typed value.
//
// cmd/partition_flags.cpp holds the one flag table: it stores plain values
// (paths, counts, switches) straight into a PartitionSpec and the words that
// become enums or sizes into PartitionWords; ParsePartitionSpec then turns the
// words into values and checks every rule, once, here. Its errors name the
// flag the user wrote, one message per mistake. Past config/ nothing compares
// a method's, a format's or a balance measure's string.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "common/storage/link_split.h"

namespace dg {

// --method. Without --mpi: METIS, random, or the streaming partitioner
// (Fennel, restreamed). With --mpi: auto (the default: METIS on the whole
// graph on rank 0 when it fits there, else clusters), clusters partitioned by
// METIS on rank 0, the streaming partitioner (restreamed LDG on every rank),
// PT-Scotch, or random.
enum class PartitionMethod { kMetis, kRandom, kStream, kAuto, kCluster, kScotch };
// --format: a plain dataset directory (or --edges), or OGB's raw/ + split/ layout.
enum class InputFormat { kPlain, kOgb };

// --balance: the measures METIS (or, with --mpi, the graph methods) keeps
// even across parts besides the node count.
struct BalanceMeasures {
  bool train = false;  // train nodes (split == 0 or train_mask)
  bool edges = false;  // in-edges
  bool any() const { return train || edges; }
};

struct PartitionSpec {
  bool mpi = false;  // --mpi: under mpirun, one rank per machine

  // Input.
  std::string dataset;     // --dataset DIR (plain, typed or OGB), or
  std::string edges_file;  // --edges FILE (without --mpi), with node_files
  InputFormat format = InputFormat::kPlain;
  int64_t num_nodes = -1;  // --num-nodes; -1 = from the node arrays, else max id + 1
  std::map<std::string, std::string> node_files, edge_files;  // --node-data / --edge-data: name -> file
  bool undirected = false, drop_self_loops = false, drop_duplicates = false, normalize_features = false;
  bool merge_types = false;  // a typed dataset as one node and one edge type

  // Method.
  int num_parts = 0;
  PartitionMethod method = PartitionMethod::kMetis;  // without --mpi kMetis, with it kAuto unless given
  BalanceMeasures balance;
  uint64_t seed = 0;
  int stream_passes = 3;  // --method stream (without --mpi)
  int metis_niter = 0;    // 0 = METIS's default (10)

  // Out of core (without --mpi): memory_budget > 0 selects it.
  uint64_t memory_budget = 0;
  uint64_t run_bytes = 0;  // one sorted run; 0 = what the budget leaves
  std::string tmp_dir;     // spilled runs (with --mpi: gunzipped node arrays)

  // Output.
  std::string name, out;
  bool force = false;

  // Link prediction.
  std::optional<EdgeSplitFractions> edge_split;
  std::string link_etype;  // typed dataset: the edge type --edge-split splits

  // With --mpi.
  int64_t batch_edges = 1 << 20;  // edges a rank sends per all-to-all round
  double imbalance = 0.03;        // PT-Scotch's load imbalance ratio
  int64_t cluster_max_arcs = 0;   // 0 = a rank's share of the graph's arcs, at least 16M
  double progress_timeout = 900;  // seconds without progress before a rank aborts; 0 = never
};

// The flags' words, as written, and which flags the user wrote at all (names
// without "--"): the rules that depend on a flag's presence read `given`.
struct PartitionWords {
  std::string method, format = "plain", balance, memory_budget, run_size, edge_split;
  std::vector<std::string> node_data, edge_data;  // NAME=FILE.npy items
  std::set<std::string> given;
};

// Fills the enum, size and list fields of *spec from the words and checks
// every rule of the flags against one another (nothing is read from disk).
Status ParsePartitionSpec(const PartitionWords& words, PartitionSpec* spec);

// "metis", "random", "stream", "auto", "cluster", "scotch"; "plain", "ogb":
// the words the flags take, the log lines and NAME.json's part_method print.
const char* Name(PartitionMethod v);
const char* Name(InputFormat v);
// The word -> the value; false (out untouched) for an unknown word.
bool Parse(const std::string& word, PartitionMethod* out);
bool Parse(const std::string& word, InputFormat* out);
// Whether `method` is one --method takes with (mpi) or without --mpi.
bool MethodRunsWith(PartitionMethod method, bool mpi);

// "4G", "512M", "64K", "1.5G", "1000000" -> bytes (powers of 1024). Errors name the flag.
Result<uint64_t> ParseByteSize(const std::string& flag, const std::string& text);

// NAME=FILE.npy items into name -> file; a malformed item, a name given twice
// or a NAME that is no file name (letters, digits, '_', '-', '.') is one error naming `flag`.
Result<std::map<std::string, std::string>> ParseNamedFiles(const std::string& flag,
                                                           const std::vector<std::string>& items);

}  // namespace dg
