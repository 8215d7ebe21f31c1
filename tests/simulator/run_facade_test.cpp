// The run layer's facade (simulator/run/run.hpp): a scenario with a workload runs as a fleet and one
// without as the single-job replay, without the caller choosing; its outcome's sinks follow.

#include "run_in_child.hpp"

#include "simulator/run/run.hpp"
#include "simulator/scenario/scenario_loader.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace fleetsim {
namespace {

using testing::ChildRun;
using testing::scenario_path;

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

long rows(const std::string& csv)
{
  long n = 0;
  for (char c : csv)
    n += c == '\n';
  return n - 1;
}

TEST(RunFacade, AScenarioWithAWorkloadRunsAsAFleetAndOneWithoutAsTheReplay)
{
  const auto results = testing::run_children({{scenario_path("scenarios/fleet_checkpoint_storm.yaml"), {}, 3, true},
                                              {scenario_path("scenarios/young_daly_single_cause.yaml"), {}, 3, true}});
  const testing::ChildResult& fleet = results.at(0);
  const testing::ChildResult& job = results.at(1);
  ASSERT_TRUE(fleet.ok) << fleet.error;
  ASSERT_TRUE(job.ok) << job.error;

  EXPECT_EQ(fleet.summary.value("kind", ""), "fleet");
  EXPECT_EQ(first_line(fleet.events).rfind("job_id,", 0), 0U) << "a fleet's per-event file is jobs.csv";
  EXPECT_GT(rows(fleet.events), 1);
  EXPECT_NE(first_line(fleet.timeline).find("gpus_allocated"), std::string::npos) << first_line(fleet.timeline);

  EXPECT_FALSE(job.summary.contains("kind"));
  EXPECT_GT(job.summary.at("ettr").get<double>(), 0.5);
  EXPECT_NE(first_line(job.timeline).find(",state,"), std::string::npos) << first_line(job.timeline);
  EXPECT_GT(rows(job.events), 10);
}

TEST(RunFacade, AReplayRunWithoutItsPreparedStepIsAnInternalError)
{
  auto loaded = scenario::load_scenario_file(scenario_path("scenarios/young_daly_single_cause.yaml"), {});
  ASSERT_TRUE(loaded.scenario) << loaded.diagnostics.to_string();
  EXPECT_EXIT(static_cast<void>(sim::run(*loaded.scenario, 1, sim::Prepared{})), ::testing::ExitedWithCode(3),
              "a single job's run is prepared with its step");
}

TEST(RunFacade, PreparingAFleetResolvesNoStepAndAReplayItsStep)
{
  auto fleet = scenario::load_scenario_file(scenario_path("scenarios/fleet_checkpoint_storm.yaml"), {});
  auto job = scenario::load_scenario_file(scenario_path("scenarios/young_daly_single_cause.yaml"), {});
  ASSERT_TRUE(fleet.scenario && job.scenario);
  EXPECT_FALSE(sim::prepare(*fleet.scenario).step.has_value());
  const sim::Prepared prepared = sim::prepare(*job.scenario);
  ASSERT_TRUE(prepared.step.has_value());
  EXPECT_GT(prepared.step->breakdown.step_time.si(), 0);
}

}  // namespace
}  // namespace fleetsim
