// The partitioner's enum settings: --method and --format of `distgnn
// partition`, --method of distgnn-mpi-partition. The flag parsers turn the
// words into these once; past them no code compares a method's or a format's
// string. Name() is the word itself, as the flags take it and as the log lines
// and NAME.json's part_method print it.
#pragma once

#include <string>

namespace dg {

// `distgnn partition --method`: METIS, random, or streaming (Fennel).
enum class PartitionMethod { kMetis, kRandom, kStream };
// `distgnn partition --format`: a plain dataset directory (or --edges), or OGB's raw/ + split/ layout.
enum class InputFormat { kPlain, kOgb };
// distgnn-mpi-partition --method: PT-Scotch, clusters partitioned by METIS (mpi_cluster.h), restreamed
// LDG on every rank (mpi_stream.h), random, or auto (the default: METIS on the whole graph on rank 0 when
// it fits there, mpi_whole_graph.h, else the cluster method).
enum class MpiPartitionMethod { kScotch, kCluster, kStream, kRandom, kAuto };

// "metis", "random", "stream"; "plain", "ogb"; "scotch", "cluster", "stream", "random", "auto".
const char* Name(PartitionMethod v);
const char* Name(InputFormat v);
const char* Name(MpiPartitionMethod v);
// The word -> the value; false (out untouched) for an unknown word.
bool Parse(const std::string& word, PartitionMethod* out);
bool Parse(const std::string& word, InputFormat* out);
bool Parse(const std::string& word, MpiPartitionMethod* out);

}  // namespace dg
