// The trainer's input choice on a typed partition (roles/trainer/source/input_choice.h):
// block 0 is aggregated with a typed forward_agg, also beside a node embedding
// (it feeds the featureless types, whose relations keep their rows); auto keeps
// PULL on one host and aggregates across hosts; on without forward_agg is an
// error naming train.input_aggregation; the relations aggregated are the ones
// out of featured types, and a model that takes others is refused naming the key.
#include <catch2/catch.hpp>

#include "common/client/block_input.h"
#include "roles/trainer/source/input_choice.h"

namespace dg {
namespace {

// movie (features, 5 columns) and actor (none); movie->actor and actor->movie.
PartitionConfig TypedPartition() {
  PartitionConfig p;
  p.path = "parts/imdb.json";
  p.format_version = 2;
  p.num_parts = 2;
  p.num_nodes = 10;
  p.node_map = {0, 5, 10};
  p.node_types = {"movie", "actor"};
  p.node_type_offsets = {{0, 3, 5}, {5, 8, 10}};
  p.edge_types = {{"movie", "in", "actor", 0, 1}, {"actor", "rev_in", "movie", 1, 0}};
  p.node_data["movie/features"] = ArrayInfo{DType::kFloat32, {6, 5}};
  p.target = "movie";
  return p;
}

JobConfig TypedJob(const std::string& second_host, InputAggregation a) {
  JobConfig j;
  j.path = "job.yaml";
  j.machines.resize(2);
  j.machines[0].host = "10.0.0.1";
  j.machines[1].host = second_host;
  j.train.model = "rgcn.pt";
  j.train.input_aggregation = a;
  j.train.embedding.dim = 64;  // the model's learnt rows of actors
  return j;
}

}  // namespace

TEST_CASE("a typed partition aggregates block 0 per relation with a typed forward_agg", "[trainer][input_choice]") {
  const PartitionConfig p = TypedPartition();
  CHECK(TypedAggregatedRelations(p) == std::vector<int>{0});

  auto across = ChooseBlockInput(TypedJob("10.0.0.2", InputAggregation::kAuto), p, true);
  REQUIRE(across.ok());
  CHECK(across->options.aggregate);
  CHECK(across->use);
  auto one_host = ChooseBlockInput(TypedJob("10.0.0.1", InputAggregation::kAuto), p, true);
  REQUIRE(one_host.ok());
  CHECK(!one_host->options.aggregate);
  auto forced = ChooseBlockInput(TypedJob("10.0.0.1", InputAggregation::kOn), p, true);
  REQUIRE(forced.ok());
  CHECK(forced->options.aggregate);
  auto without = ChooseBlockInput(TypedJob("10.0.0.2", InputAggregation::kAuto), p, false);
  REQUIRE(without.ok());
  CHECK(!without->options.aggregate);
  auto refused = ChooseBlockInput(TypedJob("10.0.0.2", InputAggregation::kOn), p, false);
  REQUIRE(!refused.ok());
  CHECK_THAT(refused.status().message(), Catch::Contains("train.input_aggregation is on, but the model has no "
                                                         "forward_agg"));

  const JobConfig job = TypedJob("10.0.0.2", InputAggregation::kAuto);
  CHECK(CheckTypedAggRelations(job, p, {0}).ok());
  Status other = CheckTypedAggRelations(job, p, {0, 1});
  REQUIRE(!other.ok());
  CHECK_THAT(other.message(), Catch::Contains("train.input_aggregation"));
  CHECK_THAT(other.message(), Catch::Contains("[movie:in:actor, actor:rev_in:movie]"));
  CHECK_THAT(other.message(), Catch::Contains("are [movie:in:actor]"));
}

}  // namespace dg
