// libFuzzer target: the .npy reader (NpyRead: header parse, gzip, data) and
// NpyMap, on a scratch file rewritten for every input.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "common/io/npy.h"
#include "test/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = dg::fuzz::ScratchRoot() + "/distgnn-fuzz-npy-" + std::to_string(getpid()) + ".npy";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  if (size) std::fwrite(data, 1, size, f);
  std::fclose(f);
  auto a = dg::NpyRead(path);
  if (a.ok()) (void)a->nbytes();
  auto m = dg::NpyMap(path);
  if (m.ok()) (void)m->nbytes();
  return 0;
}
