// Minimal helpers for writing JSON by hand (partition configs, metrics lines).
//
// JsonQuote returns a double-quoted JSON string literal with the required
// escapes; JsonNumber prints a double that JSON accepts (NaN/Inf become null).
#pragma once

#include <string>

namespace dg {

std::string JsonQuote(const std::string& s);
std::string JsonNumber(double v);

}  // namespace dg
