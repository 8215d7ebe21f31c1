// The derived figures of a run's summary (models/accounting/run_summary.hpp).
#include "models/accounting/run_summary.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace fleetsim::models {
namespace {

FailureCause cause(std::string name, double count)
{
  FailureCause c;
  c.name = std::move(name);
  c.count = count;
  c.reference_window = units::Seconds(54 * 86400.0);
  c.reference_gpus = 16384;
  return c;
}

Interruption failure(double t, std::string c)
{
  Interruption in;
  in.t = t;
  in.cause = std::move(c);
  return in;
}

TEST(RunSummary, InterruptionsByCauseAgainstWhatTheModelExpects)
{
  const std::vector<FailureCause> causes = {cause("gpu", 148), cause("host", 12)};
  FleetShape fleet;
  fleet.gpus = 8192;  // half the reference fleet
  TraceLog log;
  log.emplace_back(failure(10, "gpu"));
  log.emplace_back(failure(20, "gpu"));
  Interruption planned = failure(30, "planned");
  planned.planned = true;
  log.emplace_back(planned);
  const InterruptionSummary s = summarize_interruptions(log, causes, fleet, units::Seconds(27 * 86400.0));
  ASSERT_EQ(s.by_cause.size(), 2u);
  EXPECT_EQ(s.by_cause[0], (std::pair<std::string, long>{"gpu", 2}));
  EXPECT_EQ(s.by_cause[1], (std::pair<std::string, long>{"host", 0})) << "every cause, even one that never struck";
  EXPECT_NEAR(s.expected_by_cause[0].second, 148.0 / 4, 1e-9) << "half the GPUs for half the window";
  EXPECT_NEAR(s.expected_total, 160.0 / 4, 1e-9);
}

TEST(RunSummary, CheckpointFiguresYoungDalyAndDrains)
{
  const std::vector<FailureCause> causes = {cause("gpu", 148)};
  FleetShape fleet;
  fleet.gpus = 16384;
  TraceLog log;
  CheckpointCommitted sync;
  log.emplace_back(sync);
  for (double d : {4.0, 8.0}) {
    CheckpointCommitted async;
    async.drain_s = d;
    log.emplace_back(async);
  }
  const CheckpointFigures f = summarize_checkpoints(log, causes, fleet, 30);
  ASSERT_TRUE(f.job_mtbf_s);
  EXPECT_NEAR(*f.job_mtbf_s, 54 * 86400.0 / 148, 1e-6);
  // Young: sqrt(2 x 30 s x 31,524.3 s) = 1,375.30 s. Daly's higher-order estimate (2006), x = 30 / (2 x 31,524.3):
  // 1,375.30 x (1 + sqrt(x) / 3 + x / 9) - 30 = 1,355.38 s.
  EXPECT_NEAR(*f.young_s, 1375.3034, 1e-3);
  EXPECT_NEAR(*f.daly_s, 1355.3761, 1e-3);
  EXPECT_EQ(f.drains, 2);
  EXPECT_DOUBLE_EQ(f.mean_drain_s, 6);
  EXPECT_DOUBLE_EQ(f.max_drain_s, 8);
  const CheckpointFigures none = summarize_checkpoints({}, {}, fleet, 30);
  EXPECT_FALSE(none.job_mtbf_s) << "no cause: the job never fails, no optimum interval";
  EXPECT_FALSE(none.young_s);
}

TEST(RunSummary, TheMeanStepIsWeightedByTrainingTime)
{
  TraceLog log;
  PhaseSegment a;
  a.t_end = 100;
  a.step_time = 2;
  PhaseSegment stop;
  stop.t_begin = 100;
  stop.t_end = 500;
  stop.phase = Phase::Restart;
  stop.step_time = 99;  // not training: ignored
  PhaseSegment b;
  b.t_begin = 500;
  b.t_end = 800;
  b.step_time = 4;
  log.emplace_back(a);
  log.emplace_back(stop);
  log.emplace_back(b);
  EXPECT_DOUBLE_EQ(mean_training_step_time(log, 1), (100 * 2 + 300 * 4) / 400.0);
  EXPECT_DOUBLE_EQ(mean_training_step_time({}, 1.5), 1.5);
}

}  // namespace
}  // namespace fleetsim::models
