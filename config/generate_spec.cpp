#include "config/generate_spec.h"

#include <cstddef>
#include <utility>

namespace dg {
namespace {

constexpr std::pair<GraphModel, const char*> kModels[] = {{GraphModel::kRmat, "rmat"}, {GraphModel::kUniform, "uniform"}};
constexpr std::pair<GenerateFormat, const char*> kFormats[] = {{GenerateFormat::kNpy, "npy"}, {GenerateFormat::kOgb, "ogb"}};
constexpr std::pair<GenerateShape, const char*> kShapes[] = {{GenerateShape::kMag, "mag"}};

template <class E, size_t N>
const char* NameIn(const std::pair<E, const char*> (&table)[N], E v) {
  for (const auto& [value, word] : table)
    if (value == v) return word;
  return "";
}

template <class E, size_t N>
bool ParseIn(const std::pair<E, const char*> (&table)[N], const std::string& word, E* out) {
  for (const auto& [value, name] : table)
    if (word == name) {
      *out = value;
      return true;
    }
  return false;
}

}  // namespace

const char* Name(GraphModel v) { return NameIn(kModels, v); }
const char* Name(GenerateFormat v) { return NameIn(kFormats, v); }
const char* Name(GenerateShape v) { return NameIn(kShapes, v); }
bool Parse(const std::string& word, GraphModel* out) { return ParseIn(kModels, word, out); }
bool Parse(const std::string& word, GenerateFormat* out) { return ParseIn(kFormats, word, out); }
bool Parse(const std::string& word, GenerateShape* out) { return ParseIn(kShapes, word, out); }

}  // namespace dg
