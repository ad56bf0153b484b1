#include "roles/partition/partition_method.h"

#include <cstddef>
#include <utility>

namespace dg {
namespace {

template <class E, size_t N>
const char* NameIn(const std::pair<E, const char*> (&table)[N], E v) {
  for (const auto& [value, word] : table)
    if (value == v) return word;
  return "?";
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

constexpr std::pair<PartitionMethod, const char*> kMethods[] = {
    {PartitionMethod::kMetis, "metis"}, {PartitionMethod::kRandom, "random"}, {PartitionMethod::kStream, "stream"}};
constexpr std::pair<InputFormat, const char*> kFormats[] = {{InputFormat::kPlain, "plain"}, {InputFormat::kOgb, "ogb"}};
constexpr std::pair<MpiPartitionMethod, const char*> kMpiMethods[] = {{MpiPartitionMethod::kScotch, "scotch"},
                                                                      {MpiPartitionMethod::kCluster, "cluster"},
                                                                      {MpiPartitionMethod::kStream, "stream"},
                                                                      {MpiPartitionMethod::kRandom, "random"},
                                                                      {MpiPartitionMethod::kAuto, "auto"}};

}  // namespace

const char* Name(PartitionMethod v) { return NameIn(kMethods, v); }
const char* Name(InputFormat v) { return NameIn(kFormats, v); }
const char* Name(MpiPartitionMethod v) { return NameIn(kMpiMethods, v); }
bool Parse(const std::string& word, PartitionMethod* out) { return ParseIn(kMethods, word, out); }
bool Parse(const std::string& word, InputFormat* out) { return ParseIn(kFormats, word, out); }
bool Parse(const std::string& word, MpiPartitionMethod* out) { return ParseIn(kMpiMethods, word, out); }

}  // namespace dg
