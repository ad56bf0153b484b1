// Prometheus text exposition format (version 0.0.4): a writer that groups the
// samples of each metric family under one HELP/TYPE header, a parser for the
// same format (distgnn status reads the endpoints), and this process's own
// metrics (RSS, peak RSS, uptime).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace dg {

class PromText {
 public:
  // labels: {{"type", "PULL"}, ...}; names follow Prometheus rules (distgnn_*).
  using Labels = std::vector<std::pair<std::string, std::string>>;
  void Gauge(const std::string& name, const std::string& help, double value, const Labels& labels = {});
  void Counter(const std::string& name, const std::string& help, double value, const Labels& labels = {});
  // buckets: (upper bound in the metric's unit, cumulative count), ascending; +Inf is added.
  void Histogram(const std::string& name, const std::string& help, const Labels& labels,
                 const std::vector<std::pair<double, uint64_t>>& buckets, double sum, uint64_t count);
  std::string str() const;

 private:
  struct Family {
    std::string help, type, samples;
  };
  Family& Get(const std::string& name, const std::string& help, const std::string& type);
  std::vector<std::pair<std::string, Family>> families_;
};

// distgnn_process_resident_bytes, distgnn_process_peak_resident_bytes, distgnn_process_uptime_seconds.
void AddProcessMetrics(PromText* out, double uptime_seconds);

// One parsed sample: metric name, labels, value.
struct PromSample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};
std::vector<PromSample> ParsePromText(const std::string& text);

}  // namespace dg
