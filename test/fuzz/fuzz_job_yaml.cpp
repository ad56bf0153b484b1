// libFuzzer target: the job YAML loader. A scratch folder holds a partition
// json and a model file, so seeds that name them ("p.json", "m.pt") get past
// the file checks into the whole schema.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "config/job_config.h"
#include "test/fuzz/fuzz_input.h"

namespace {
std::string Dir() {
  static const std::string dir = [] {
    std::string d = dg::fuzz::ScratchRoot() + "/distgnn-fuzz-yaml-" + std::to_string(getpid());
    std::filesystem::create_directories(d);
    std::FILE* m = std::fopen((d + "/m.pt").c_str(), "w");
    if (m) std::fclose(m);
    std::FILE* p = std::fopen((d + "/p.json").c_str(), "w");
    if (p) {
      std::fputs("{\"graph_name\": \"g\", \"num_nodes\": 10, \"num_edges\": 20, \"num_parts\": 2, "
                 "\"node_map\": [0, 5, 10], \"edge_map\": [0, 10, 20], \"parts\": [\"part0\", \"part1\"], "
                 "\"node_data\": {}, \"edge_data\": {}}", p);
      std::fclose(p);
    }
    return d;
  }();
  return dir;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = Dir() + "/job.yaml";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  if (size) std::fwrite(data, 1, size, f);
  std::fclose(f);
  (void)dg::LoadJobConfig(path);
  return 0;
}
