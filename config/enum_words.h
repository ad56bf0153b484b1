// Enum <-> word tables of config/: a spec lists its enum's words once, as
// {value, word} pairs, and names and parses its values through them.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

namespace dg {

// The word of v ("?" for a value the table lacks).
template <class E, size_t N>
const char* NameIn(const std::pair<E, const char*> (&table)[N], E v) {
  for (const auto& [value, word] : table)
    if (value == v) return word;
  return "?";
}

// The value whose word is `word` into *out; false when no word matches.
template <class E, size_t N>
bool ParseIn(const std::pair<E, const char*> (&table)[N], const std::string& word, E* out) {
  for (const auto& [value, name] : table)
    if (word == name) {
      *out = value;
      return true;
    }
  return false;
}

}  // namespace dg
