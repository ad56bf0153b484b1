// Plots by gnuplot (Debian gnuplot-nox): a script in, an SVG document out.
//
// The binary is $DISTGNN_GNUPLOT or `gnuplot` on PATH. RenderSvg writes the
// data files into a fresh temporary folder, prepends the SVG terminal settings
// (width x height, sans font, white background, no mouse JavaScript) and
// `set output`, runs gnuplot there, and returns the SVG element alone (no XML
// declaration or DOCTYPE) so it can be inlined into HTML. The script refers to
// its data files by their plain names.
#pragma once

#include <map>
#include <string>

#include "common/base/status.h"

namespace dg {

// The gnuplot command, or "" when it cannot be run (then say so and skip plots).
std::string FindGnuplot();

// data: file name -> content (whitespace-separated columns).
Result<std::string> RenderSvg(const std::string& gnuplot, const std::string& script,
                              const std::map<std::string, std::string>& data, int width = 640, int height = 320);

}  // namespace dg
