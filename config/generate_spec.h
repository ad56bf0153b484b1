// The enum settings of `distgnn generate` (roles/generate/): the edge model,
// the output layout and the typed shape. The flag parser (cmd/cmd_generate.cpp)
// turns the words into these once; past it no code compares their strings.
#pragma once

#include <string>

namespace dg {

// --model: the edge generator.
enum class GraphModel {
  kRmat,     // power-law degrees, no self loops
  kUniform,  // E distinct uniform pairs, as dgl.rand_graph
};
// --format: .npy columns (src.npy, dst.npy, features.npy, ...) or OGB's raw/*.csv.gz + split/ layout.
enum class GenerateFormat { kNpy, kOgb };
// --hetero: none (one node and one edge type) or a typed dataset shaped like ogbn-mag.
enum class GenerateShape { kHomogeneous, kMag };

// "rmat", "uniform"; "npy", "ogb"; "mag" (kHomogeneous, no --hetero, has no word: "?").
const char* Name(GraphModel v);
const char* Name(GenerateFormat v);
const char* Name(GenerateShape v);
// The word -> the value; false (out untouched) for an unknown word.
bool Parse(const std::string& word, GraphModel* out);
bool Parse(const std::string& word, GenerateFormat* out);
bool Parse(const std::string& word, GenerateShape* out);

}  // namespace dg
