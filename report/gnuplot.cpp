#include "report/gnuplot.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "common/base/subprocess.h"

namespace dg {
namespace fs = std::filesystem;
namespace {

// Runs argv in dir with stdout/stderr to err_path; returns the exit status.
int RunIn(const std::vector<std::string>& argv, const std::string& dir, const std::string& err_path) {
  SpawnOptions o;
  o.workdir = dir;
  o.out_path = o.err_path = err_path;
  return RunProcess(argv, o);
}

std::string ReadText(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

std::string FindGnuplot() {
  const char* env = std::getenv("DISTGNN_GNUPLOT");
  std::string bin = env && *env ? env : "gnuplot";
  char tmpl[] = "/tmp/distgnn-gp-XXXXXX";
  if (!mkdtemp(tmpl)) return "";
  int rc = RunIn({bin, "-e", "exit"}, tmpl, std::string(tmpl) + "/err");
  fs::remove_all(tmpl);
  return rc == 0 ? bin : "";
}

Result<std::string> RenderSvg(const std::string& gnuplot, const std::string& script,
                              const std::map<std::string, std::string>& data, int width, int height) {
  char tmpl[] = "/tmp/distgnn-plot-XXXXXX";
  if (!mkdtemp(tmpl)) return Status::IOError("mkdtemp failed");
  const std::string dir = tmpl;
  for (const auto& [name, content] : data) {
    std::ofstream f(dir + "/" + name);
    f << content;
  }
  {
    std::ofstream f(dir + "/plot.gp");
    f << "set terminal svg size " << width << "," << height
      << " fixed enhanced font 'DejaVu Sans,11' background rgb 'white'\n"
      << "set output 'plot.svg'\nset grid lc rgb '#dddddd'\nset key outside right top\n"
      << "set border lc rgb '#555555'\n"
      << script << "\nunset output\n";
  }
  int rc = RunIn({gnuplot, "plot.gp"}, dir, dir + "/gnuplot.err");
  std::string svg = ReadText(dir + "/plot.svg");
  std::string err = ReadText(dir + "/gnuplot.err");
  fs::remove_all(dir);
  if (rc != 0 || svg.empty()) return Status::Internal("gnuplot failed (exit " + std::to_string(rc) + "): " + err);
  auto start = svg.find("<svg");
  if (start == std::string::npos) return Status::Internal("gnuplot wrote no <svg> element");
  return svg.substr(start);
}

}  // namespace dg
