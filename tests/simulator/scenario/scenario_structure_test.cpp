// Structural rules of scenario files: one document, nested keys only, no empty causes, and --set
// hints that name the key the user meant.
#include "simulator/scenario/scenario_loader.hpp"

#include <gtest/gtest.h>

namespace fleetsim::scenario {
namespace {

LoadResult load(std::string_view yaml, const std::vector<std::string>& overrides = {})
{
  return load_scenario_text(yaml, "s.yaml", overrides);
}

std::string errors(const LoadResult& r) { return r.diagnostics.to_string(); }

TEST(ScenarioStructure, RejectsDottedKeysAndSaysHowToNestThem)
{
  const LoadResult r = load("cluster.gpus: 8\n");
  ASSERT_EQ(r.diagnostics.items().size(), 1u) << errors(r);
  EXPECT_EQ(r.diagnostics.items()[0].to_string(),
            "s.yaml:1:1: error: key 'cluster.gpus' contains '.': nest it instead (cluster: {gpus: ...})");
}

TEST(ScenarioStructure, RejectsAnEmptyFailureCause)
{
  const LoadResult r = load("failures:\n  causes:\n    x: {}\n    y:\n");
  ASSERT_EQ(r.diagnostics.items().size(), 2u) << errors(r);
  EXPECT_EQ(r.diagnostics.items()[0].where.line, 3);
  EXPECT_NE(errors(r).find("'failures.causes.x' is empty"), std::string::npos) << errors(r);
  EXPECT_NE(errors(r).find("'failures.causes.y' is empty"), std::string::npos) << errors(r);
}

TEST(ScenarioStructure, RejectsASecondYamlDocument)
{
  const LoadResult r = load("name: a\n---\nname: b\n");
  ASSERT_EQ(r.diagnostics.items().size(), 1u) << errors(r);
  EXPECT_NE(errors(r).find("one YAML document, found 2"), std::string::npos) << errors(r);
}

TEST(ScenarioStructure, SetHintNamesTheConcreteCauseKey)
{
  const LoadResult r = load("failures:\n  causes:\n    nic: {count: 7}\n", {"failures.causes.nic.cuont=3"});
  ASSERT_EQ(r.diagnostics.items().size(), 1u) << errors(r);
  EXPECT_NE(errors(r).find("did you mean 'failures.causes.nic.count'?"), std::string::npos) << errors(r);
}

TEST(ScenarioStructure, LayoutErrorPointsAtTheLayoutTheUserWrote)
{
  const LoadResult r = load("cluster:\n  gpus: 64\nparallelism:\n  tp: 8\n  pp: 2\n  dp: 2\n");
  ASSERT_FALSE(r.scenario.has_value());
  ASSERT_FALSE(r.diagnostics.items().empty());
  EXPECT_EQ(r.diagnostics.items()[0].where.line, 6) << errors(r);  // parallelism.dp
}

}  // namespace
}  // namespace fleetsim::scenario
