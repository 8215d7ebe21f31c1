// Synchronous steps on SimGrid wait for their slowest worker, as models/step/stragglers predicts.
#include "run_in_child.hpp"

#include "models/step/stragglers.hpp"
#include "simulator/run/bsp_simulation.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace fleetsim::testing {
namespace {

sim::BspResult bsp(const models::StragglerSpec& spec, int workers, long steps, std::uint64_t seed = 1)
{
  const std::string out = in_child([&] {
    const sim::BspResult r = sim::run_bsp(spec, workers, steps, 1.0, seed);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.17g %.17g", r.mean_step_s, r.slowed_fraction);
    return std::string(buf);
  });
  sim::BspResult r;
  r.steps = steps;
  if (std::sscanf(out.c_str(), "%lf %lf", &r.mean_step_s, &r.slowed_fraction) != 2)
    r.mean_step_s = -1;
  return r;
}

TEST(BspStragglers, OneWorkerAt80PercentSpeedLowersThroughputBy20Percent)
{
  // 100 nodes, one of them a host at 0.8 of nominal: every 1 s step takes 1.25 s.
  models::StragglerSpec spec;
  spec.persistent_fraction = 0.01;
  spec.persistent_speed = 0.8;
  const auto r = bsp(spec, 100, 50);
  ASSERT_GT(r.mean_step_s, 0);
  const double throughput_loss = 1 - 1.0 / r.mean_step_s;
  EXPECT_NEAR(throughput_loss, 0.20, 0.005);
  EXPECT_NEAR(r.mean_step_s, models::expected_step_factor(spec, 100, 1.0), 1e-9);
  const auto uniform = bsp(models::StragglerSpec{}, 100, 50);
  EXPECT_NEAR(uniform.mean_step_s, 1.0, 1e-9);
}

TEST(BspStragglers, HundredWorkersSlowedAtOnePercentSlowSixtyThreePercentOfSteps)
{
  // Each of 100 nodes runs a step at half speed with probability 1 %, independently: a step is
  // slowed when any node is, 1 - 0.99^100 = 63.4 % of them, and lasts 2 s instead of 1 s.
  // 4,000 steps: the standard error of the slowed fraction is 0.76 %.
  models::StragglerSpec spec;
  spec.transient_probability = 0.01;
  spec.transient_speed = 0.5;
  const auto r = bsp(spec, 100, 4000);
  ASSERT_GT(r.mean_step_s, 0);
  EXPECT_NEAR(r.slowed_fraction, models::probability_step_slowed(0.01, 100), 4 * 0.0076);
  EXPECT_NEAR(r.mean_step_s, 1 + r.slowed_fraction, 1e-9);  // 1 s, plus 1 s in every slowed step
  EXPECT_NEAR(r.mean_step_s, models::expected_step_factor(spec, 100, 1.0), 0.02);
  // A different seed draws different stragglers but the same law.
  const auto other = bsp(spec, 100, 4000, 7);
  EXPECT_NE(other.slowed_fraction, r.slowed_fraction);
  EXPECT_NEAR(other.slowed_fraction, 0.634, 4 * 0.0076);
}

TEST(BspStragglers, TheReplayTrainsAtTheStragglersPace)
{
  // scenarios/no_failures.yaml: 128 nodes; one of them at 0.8 speed stretches the compute share of
  // every step by 1.25, and the week trains that many fewer tokens (up to checkpoint rounding).
  auto runs = run_children({{scenario_path("scenarios/no_failures.yaml"), {}, 1},
                            {scenario_path("scenarios/no_failures.yaml"),
                             {"stragglers.persistent_fraction=0.0078125", "stragglers.persistent_speed=0.8"},
                             1}});
  ASSERT_TRUE(runs[0].ok && runs[1].ok) << runs[0].error << runs[1].error;
  EXPECT_FALSE(runs[0].summary.contains("stragglers"));
  const auto& st = runs[1].summary["stragglers"];
  EXPECT_EQ(st["persistent_nodes"].get<long>(), 1);
  const double compute_fraction = runs[1].summary["step"]["compute_fraction"].get<double>();
  const double factor = 1 + compute_fraction * 0.25;
  EXPECT_NEAR(st["step_factor"].get<double>(), factor, 1e-12);
  const double tokens = runs[0].summary["tokens_trained"].get<double>();
  const double slowed = runs[1].summary["tokens_trained"].get<double>();
  EXPECT_NEAR(slowed / tokens, 1 / factor, 0.01);
}

}  // namespace
}  // namespace fleetsim::testing
