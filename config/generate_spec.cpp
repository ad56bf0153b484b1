#include "config/generate_spec.h"

#include <cstddef>
#include <utility>

#include "config/enum_words.h"

namespace dg {
namespace {

constexpr std::pair<GraphModel, const char*> kModels[] = {{GraphModel::kRmat, "rmat"}, {GraphModel::kUniform, "uniform"}};
constexpr std::pair<GenerateFormat, const char*> kFormats[] = {{GenerateFormat::kNpy, "npy"}, {GenerateFormat::kOgb, "ogb"}};
constexpr std::pair<GenerateShape, const char*> kShapes[] = {{GenerateShape::kMag, "mag"}};


}  // namespace

const char* Name(GraphModel v) { return NameIn(kModels, v); }
const char* Name(GenerateFormat v) { return NameIn(kFormats, v); }
const char* Name(GenerateShape v) { return NameIn(kShapes, v); }
bool Parse(const std::string& word, GraphModel* out) { return ParseIn(kModels, word, out); }
bool Parse(const std::string& word, GenerateFormat* out) { return ParseIn(kFormats, word, out); }
bool Parse(const std::string& word, GenerateShape* out) { return ParseIn(kShapes, word, out); }

}  // namespace dg
