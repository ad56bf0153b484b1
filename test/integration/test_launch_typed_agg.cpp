// Block 0 aggregated by the servers on a typed partition, end to end: bundled
// IMDB (--undirected), 2 partitions on 2 machines of 127.0.0.1, RGCN with
// learnt rows for the featureless types (a DistEmbedding, whose relations stay
// per source row). With train.input_aggregation on, made by trainer threads or
// by a sampler process, every epoch's training loss is within 1% of the job's
// with it off and test accuracy within a point (the same edges; only the
// order of float additions differs), the trainer says it aggregates, and
// fewer feature bytes come back.
#include <catch2/catch.hpp>

#include <cmath>

#include "test/integration/typed_imdb_job.h"

using namespace dg::test;

namespace {

constexpr int kEpochs = 4;

}  // namespace

TEST_CASE("typed IMDB with block 0 aggregated by the servers trains as with every row pulled",
          "[launch][typed][aggregate]") {
  TempDir dir;
  PrepareTypedImdb(dir, {});
  WriteTypedImdbJob(dir, "off", 0, kEpochs, ", input_aggregation: off");
  WriteTypedImdbJob(dir, "on", 0, kEpochs, ", input_aggregation: on");
  WriteTypedImdbJob(dir, "on_sampler", 1, kEpochs, ", input_aggregation: on");
  const TypedRun off = LaunchTypedImdb(dir, "off");
  const TypedRun on = LaunchTypedImdb(dir, "on");
  const TypedRun on_sampler = LaunchTypedImdb(dir, "on_sampler");
  WARN("IMDB RGCN test accuracy: aggregation off " << off.test_acc << ", on " << on.test_acc
                                                  << ", on by a sampler process " << on_sampler.test_acc);
  REQUIRE(off.loss.size() == static_cast<size_t>(kEpochs));
  for (const TypedRun* run : {&on, &on_sampler}) {
    REQUIRE(run->loss.size() == off.loss.size());
    for (size_t e = 0; e < off.loss.size(); ++e) {
      WARN("epoch " << e << " loss: off " << off.loss[e] << ", on " << run->loss[e]);
      INFO("epoch " << e << ": loss off " << off.loss[e] << ", on " << run->loss[e]);
      CHECK(std::fabs(run->loss[e] - off.loss[e]) <= 0.01 * off.loss[e]);
    }
    CHECK(std::fabs(run->test_acc - off.test_acc) <= 0.01);
  }
  CHECK(off.test_acc > 0.5);
  INFO(on.log);
  CHECK(on.log.find("input rows: aggregated") != std::string::npos);
  CHECK(off.log.find("input rows: pulled") != std::string::npos);
  // Trainer threads: the movie rows behind the rev_ relations come as one
  // mean per destination (PULL_BLOCK) instead of row by row (PULL).
  const uint64_t off_rows = ReceivedBytes(off.log, "PULL") + ReceivedBytes(off.log, "PULL_BLOCK");
  const uint64_t on_rows = ReceivedBytes(on.log, "PULL") + ReceivedBytes(on.log, "PULL_BLOCK");
  WARN("trainer 0's PULL + PULL_BLOCK bytes: aggregation off " << off_rows << ", on " << on_rows);
  CHECK(on_rows < off_rows);
}
