#include "common/net/prometheus.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "common/base/logging.h"

namespace dg {
namespace {

std::string Value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char b[64];
  std::snprintf(b, sizeof(b), "%.17g", v);
  return b;
}

std::string EscapeLabel(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '\\') o += "\\\\";
    else if (c == '"') o += "\\\"";
    else if (c == '\n') o += "\\n";
    else o += c;
  }
  return o;
}

std::string LabelText(const PromText::Labels& labels) {
  if (labels.empty()) return "";
  std::string o = "{";
  for (size_t i = 0; i < labels.size(); ++i)
    o += (i ? "," : "") + labels[i].first + "=\"" + EscapeLabel(labels[i].second) + "\"";
  return o + "}";
}

}  // namespace

PromText::Family& PromText::Get(const std::string& name, const std::string& help, const std::string& type) {
  for (auto& [n, f] : families_)
    if (n == name) return f;
  families_.push_back({name, Family{help, type, ""}});
  return families_.back().second;
}

void PromText::Gauge(const std::string& name, const std::string& help, double value, const Labels& labels) {
  Get(name, help, "gauge").samples += name + LabelText(labels) + " " + Value(value) + "\n";
}

void PromText::Counter(const std::string& name, const std::string& help, double value, const Labels& labels) {
  Get(name, help, "counter").samples += name + LabelText(labels) + " " + Value(value) + "\n";
}

void PromText::Histogram(const std::string& name, const std::string& help, const Labels& labels,
                         const std::vector<std::pair<double, uint64_t>>& buckets, double sum, uint64_t count) {
  Family& f = Get(name, help, "histogram");
  for (const auto& [le, c] : buckets) {
    Labels l = labels;
    l.emplace_back("le", Value(le));
    f.samples += name + "_bucket" + LabelText(l) + " " + std::to_string(c) + "\n";
  }
  Labels l = labels;
  l.emplace_back("le", "+Inf");
  f.samples += name + "_bucket" + LabelText(l) + " " + std::to_string(count) + "\n";
  f.samples += name + "_sum" + LabelText(labels) + " " + Value(sum) + "\n";
  f.samples += name + "_count" + LabelText(labels) + " " + std::to_string(count) + "\n";
}

std::string PromText::str() const {
  std::string o;
  for (const auto& [name, f] : families_)
    o += "# HELP " + name + " " + f.help + "\n# TYPE " + name + " " + f.type + "\n" + f.samples;
  return o;
}

void AddProcessMetrics(PromText* out, double uptime_seconds) {
  long pages = 0, resident = 0;
  std::ifstream statm("/proc/self/statm");
  statm >> pages >> resident;
  out->Gauge("distgnn_process_resident_bytes", "Resident set size of this process.",
             static_cast<double>(resident) * sysconf(_SC_PAGESIZE));
  out->Gauge("distgnn_process_peak_resident_bytes", "Peak resident set size of this process.",
             static_cast<double>(PeakRssBytes()));
  out->Gauge("distgnn_process_uptime_seconds", "Seconds since this process started serving metrics.",
             uptime_seconds);
}

std::vector<PromSample> ParsePromText(const std::string& text) {
  std::vector<PromSample> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    PromSample s;
    size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
    s.name = line.substr(0, i);
    if (i < line.size() && line[i] == '{') {
      ++i;
      while (i < line.size() && line[i] != '}') {
        size_t eq = line.find('=', i);
        if (eq == std::string::npos || eq + 1 >= line.size() || line[eq + 1] != '"') break;
        std::string key = line.substr(i, eq - i), val;
        size_t j = eq + 2;
        for (; j < line.size() && line[j] != '"'; ++j) {
          if (line[j] == '\\' && j + 1 < line.size()) {
            ++j;
            val += line[j] == 'n' ? '\n' : line[j];
          } else {
            val += line[j];
          }
        }
        s.labels[key] = val;
        i = j + 1;
        if (i < line.size() && line[i] == ',') ++i;
      }
      ++i;  // '}'
    }
    while (i < line.size() && line[i] == ' ') ++i;
    const std::string v = line.substr(i, line.find(' ', i) - i);
    s.value = v == "+Inf" ? INFINITY : v == "-Inf" ? -INFINITY : std::strtod(v.c_str(), nullptr);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace dg
