// 16-bit feature rows on a typed partition, end to end: bundled IMDB
// (--undirected), 2 partitions on 2 machines of 127.0.0.1, RGCN with a node
// embedding for the featureless types (as test_launch_typed.cpp). With
// train.feature_wire_dtype float16 or bfloat16 each type's remote feature rows
// come by PULL_BLOCK in that dtype, made by trainer threads (float16 here) or
// by a sampler process (bfloat16 here; it sends them on to its trainer in 16
// bits too: the same path takes either dtype); test accuracy
// stays within half a point of the float32 job's (IMDB's 0/1 features are
// exact in 16 bits), and the feature bytes trainer 0 receives are fewer.
#include <catch2/catch.hpp>

#include <cmath>

#include "test/integration/typed_imdb_job.h"

using namespace dg::test;

namespace {

constexpr int kEpochs = 5;

}  // namespace

TEST_CASE("typed IMDB with float16 and bfloat16 feature rows trains within half a point of float32",
          "[launch][typed][wire]") {
  TempDir dir;
  PrepareTypedImdb(dir, {"--embedding-dim", "64", "--bases", "2"});
  const std::string embedding = ", embedding: {dim: 64, lr: 0.01}";
  WriteTypedImdbJob(dir, "f32", 0, kEpochs, ", feature_wire_dtype: float32" + embedding);
  WriteTypedImdbJob(dir, "f16", 0, kEpochs, ", feature_wire_dtype: float16" + embedding);
  WriteTypedImdbJob(dir, "bf16_sampler", 1, kEpochs, ", feature_wire_dtype: bfloat16" + embedding);
  const TypedRun f32 = LaunchTypedImdb(dir, "f32");
  const TypedRun f16 = LaunchTypedImdb(dir, "f16");
  const TypedRun bf16_sampler = LaunchTypedImdb(dir, "bf16_sampler");
  WARN("IMDB RGCN test accuracy: float32 " << f32.test_acc << ", float16 " << f16.test_acc
                                          << ", bfloat16 by a sampler process " << bf16_sampler.test_acc);
  CHECK(f32.test_acc > 0.5);
  CHECK(std::fabs(f16.test_acc - f32.test_acc) <= 0.005);
  CHECK(std::fabs(bf16_sampler.test_acc - f32.test_acc) <= 0.005);
  INFO(f16.log);
  CHECK(f16.log.find("float16 on the wire") != std::string::npos);
  // Trainer threads: the remote feature rows come by PULL_BLOCK at 2 bytes a
  // value instead of by PULL at 4 (labels and embedding rows still by PULL).
  const uint64_t f32_rows = ReceivedBytes(f32.log, "PULL");
  const uint64_t f16_rows = ReceivedBytes(f16.log, "PULL") + ReceivedBytes(f16.log, "PULL_BLOCK");
  CHECK(ReceivedBytes(f32.log, "PULL_BLOCK") == 0);
  CHECK(ReceivedBytes(f16.log, "PULL_BLOCK") > 0);
  CHECK(f16_rows < f32_rows * 0.75);
  // Sampler processes: the MINIBATCH stream carries 16-bit rows.
  CHECK(ReceivedBytes(bf16_sampler.log, "MINIBATCH") > 0);
}
