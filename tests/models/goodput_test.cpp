#include "models/accounting/goodput.hpp"
#include "trace_builders.hpp"

#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

namespace fleetsim::models {
namespace {

// 2 s per step, 1000 tokens per step: 100 s of training is 50 steps and 50,000 tokens.
using testing::kEps;
using testing::kStep;
using testing::kTokensPerStep;
using testing::seg;

Interruption failure(double t, Phase during = Phase::Training)
{
  return Interruption{t, false, "faulty_gpu", "gpu:12", during};
}

Interruption planned(double t) { return Interruption{t, true, "planned", "job", Phase::Training}; }

CheckpointCommitted commit(double t, long step) { return CheckpointCommitted{t, step, 1e12}; }

// Invariants that hold for every log: the breakdown tiles the run, one timeline row per segment
// (same bounds, same phase), and each row's goodput is its net productive time over its end.
void expect_consistent(const TraceLog& log, const GoodputReport& r)
{
  EXPECT_NEAR(r.breakdown.total(), r.elapsed, kEps);
  std::vector<PhaseSegment> segments;
  for (const TraceRecord& rec : log)
    if (const auto* s = std::get_if<PhaseSegment>(&rec))
      segments.push_back(*s);
  ASSERT_EQ(r.timeline.size(), segments.size());
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const TimelineRow& row = r.timeline[i];
    EXPECT_EQ(row.t_begin, segments[i].t_begin) << "row " << i;
    EXPECT_EQ(row.t_end, segments[i].t_end) << "row " << i;
    EXPECT_EQ(row.phase, segments[i].phase) << "row " << i;
    EXPECT_EQ(row.interrupted, segments[i].interrupted) << "row " << i;
    EXPECT_NEAR(row.goodput, row.productive_s / row.t_end, kEps) << "row " << i;
    EXPECT_NEAR(row.tokens, row.productive_s / kStep * kTokensPerStep, kEps) << "row " << i;
  }
  if (!segments.empty()) {
    EXPECT_EQ(r.elapsed, segments.back().t_end);
    // The goodput trace ends where the summary does, even when the log ends on an interruption.
    EXPECT_NEAR(r.timeline.back().productive_s, r.breakdown.productive, kEps);
  }
}

TEST(Account, CountsCommittedTrainingAsProductiveWhenEveryCheckpointCommits)
{
  const TraceLog log{seg(0, 100, Phase::Training),   seg(100, 110, Phase::Checkpoint), commit(110, 50),
                     seg(110, 210, Phase::Training), seg(210, 220, Phase::Checkpoint), commit(220, 100)};
  const GoodputReport r = account(log, kStep, kTokensPerStep);
  expect_consistent(log, r);
  EXPECT_NEAR(r.breakdown.productive, 200, kEps);
  EXPECT_NEAR(r.breakdown.checkpoint, 20, kEps);
  EXPECT_NEAR(r.breakdown.lost_work, 0, kEps);
  EXPECT_NEAR(r.elapsed, 220, kEps);
  EXPECT_NEAR(r.ettr, 200.0 / 220.0, kEps);
  EXPECT_EQ(r.steps, 100);
  EXPECT_NEAR(r.tokens, 200.0 / kStep * kTokensPerStep, kEps);
  EXPECT_NEAR(r.tokens, 100000, kEps);
  EXPECT_EQ(r.checkpoints, 2);
  EXPECT_EQ(r.unexpected, 0);
  EXPECT_EQ(r.planned, 0);
  EXPECT_TRUE(r.lost_per_interruption.empty());
  // Net progress grows monotonically: 100, 100, 200, 200.
  EXPECT_NEAR(r.timeline[1].productive_s, 100, kEps);
  EXPECT_NEAR(r.timeline[3].productive_s, 200, kEps);
  EXPECT_NEAR(r.timeline[3].goodput, 200.0 / 220.0, kEps);
  EXPECT_EQ(r.timeline[3].steps, 100);
}

TEST(Account, MovesUncommittedTrainingToLostWorkWhenFailureInterruptsTraining)
{
  const TraceLog log{seg(0, 100, Phase::Training),
                     seg(100, 110, Phase::Checkpoint),
                     commit(110, 50),
                     seg(110, 160, Phase::Training, true),  // 50 s uncommitted
                     failure(160),
                     seg(160, 170, Phase::Detection),
                     seg(170, 200, Phase::Restart),
                     seg(200, 220, Phase::Reload),
                     seg(220, 230, Phase::Warmup),
                     seg(230, 330, Phase::Training)};
  const GoodputReport r = account(log, kStep, kTokensPerStep);
  expect_consistent(log, r);
  EXPECT_NEAR(r.breakdown.lost_work, 50, kEps);
  ASSERT_EQ(r.lost_per_interruption.size(), 1u);
  EXPECT_NEAR(r.lost_per_interruption[0], 50, kEps);
  // 100 committed + 100 trained after the restart (in memory when the window closes).
  EXPECT_NEAR(r.breakdown.productive, 200, kEps);
  EXPECT_NEAR(r.breakdown.checkpoint, 10, kEps);
  EXPECT_NEAR(r.breakdown.detection, 10, kEps);
  EXPECT_NEAR(r.breakdown.restart, 30, kEps);
  EXPECT_NEAR(r.breakdown.reload, 20, kEps);
  EXPECT_NEAR(r.breakdown.warmup, 10, kEps);
  EXPECT_NEAR(r.breakdown.planned, 0, kEps);
  EXPECT_NEAR(r.elapsed, 330, kEps);
  EXPECT_NEAR(r.ettr, 200.0 / 330.0, kEps);
  EXPECT_EQ(r.steps, 100);
  EXPECT_NEAR(r.tokens, 100000, kEps);
  EXPECT_EQ(r.unexpected, 1);
  EXPECT_EQ(r.planned, 0);
  EXPECT_EQ(r.checkpoints, 1);
  // The interrupted segment's row ends at the failure, so it shows the rolled-back progress:
  // 150 s were in the model a moment before, 100 s remain.
  EXPECT_NEAR(r.timeline[2].productive_s, 100, kEps);
  EXPECT_EQ(r.timeline[2].steps, 50);
  EXPECT_NEAR(r.timeline[2].goodput, 100.0 / 160.0, kEps);
  EXPECT_NEAR(r.timeline[3].productive_s, 100, kEps);
  EXPECT_EQ(r.timeline[3].steps, 50);
  EXPECT_NEAR(r.timeline[3].goodput, 100.0 / 170.0, kEps);
  EXPECT_NEAR(r.timeline.back().productive_s, 200, kEps);
  EXPECT_NEAR(r.timeline.back().goodput, 200.0 / 330.0, kEps);
}

TEST(Account, LosesTrainingBeforeCheckpointWhenFailureInterruptsTheWrite)
{
  const TraceLog log{seg(0, 100, Phase::Training),    seg(100, 105, Phase::Checkpoint, true),  // no commit
                     failure(105, Phase::Checkpoint), seg(105, 115, Phase::Detection),
                     seg(115, 135, Phase::Restart),   seg(135, 145, Phase::Reload),
                     seg(145, 245, Phase::Training)};
  const GoodputReport r = account(log, kStep, kTokensPerStep);
  expect_consistent(log, r);
  EXPECT_NEAR(r.breakdown.lost_work, 100, kEps);
  ASSERT_EQ(r.lost_per_interruption.size(), 1u);
  EXPECT_NEAR(r.lost_per_interruption[0], 100, kEps);
  EXPECT_NEAR(r.breakdown.checkpoint, 5, kEps);  // the partial write still counts as checkpoint
  EXPECT_NEAR(r.breakdown.productive, 100, kEps);
  EXPECT_NEAR(r.ettr, 100.0 / 245.0, kEps);
  EXPECT_EQ(r.steps, 50);
  EXPECT_EQ(r.checkpoints, 0);
  EXPECT_EQ(r.unexpected, 1);
  EXPECT_NEAR(r.timeline[0].productive_s, 100, kEps);  // before the write began
  EXPECT_NEAR(r.timeline[1].productive_s, 0, kEps);    // the failed write ends with the rollback
  EXPECT_NEAR(r.timeline[2].productive_s, 0, kEps);
  EXPECT_NEAR(r.timeline[2].goodput, 0, kEps);
}

TEST(Account, LosesNothingWhenPlannedInterruptionFollowsCommit)
{
  const TraceLog log{seg(0, 100, Phase::Training),
                     seg(100, 110, Phase::Checkpoint),
                     commit(110, 50),
                     planned(110),
                     seg(110, 140, Phase::Planned),
                     seg(140, 150, Phase::Restart),
                     seg(150, 160, Phase::Reload),
                     seg(160, 260, Phase::Training)};
  const GoodputReport r = account(log, kStep, kTokensPerStep);
  expect_consistent(log, r);
  ASSERT_EQ(r.lost_per_interruption.size(), 1u);
  EXPECT_NEAR(r.lost_per_interruption[0], 0, kEps);
  EXPECT_NEAR(r.breakdown.lost_work, 0, kEps);
  EXPECT_NEAR(r.breakdown.planned, 30, kEps);
  EXPECT_NEAR(r.breakdown.restart, 10, kEps);
  EXPECT_NEAR(r.breakdown.reload, 10, kEps);
  EXPECT_NEAR(r.breakdown.productive, 200, kEps);
  EXPECT_NEAR(r.ettr, 200.0 / 260.0, kEps);
  EXPECT_EQ(r.planned, 1);
  EXPECT_EQ(r.unexpected, 0);
  EXPECT_EQ(r.checkpoints, 1);
  EXPECT_EQ(r.steps, 100);
}

TEST(Account, LosesPendingTrainingWhenPlannedInterruptionHasNoCommitBefore)
{
  const TraceLog log{seg(0, 100, Phase::Training, true), planned(100), seg(100, 130, Phase::Planned),
                     seg(130, 230, Phase::Training)};
  const GoodputReport r = account(log, kStep, kTokensPerStep);
  expect_consistent(log, r);
  ASSERT_EQ(r.lost_per_interruption.size(), 1u);
  EXPECT_NEAR(r.lost_per_interruption[0], 100, kEps);
  EXPECT_NEAR(r.breakdown.lost_work, 100, kEps);
  EXPECT_NEAR(r.breakdown.planned, 30, kEps);
  EXPECT_NEAR(r.breakdown.productive, 100, kEps);
  EXPECT_NEAR(r.ettr, 100.0 / 230.0, kEps);
  EXPECT_EQ(r.planned, 1);
  EXPECT_EQ(r.unexpected, 0);
  EXPECT_EQ(r.steps, 50);
}

TEST(Account, CountsUncommittedTrainingAsProductiveWhenWindowCloses)
{
  const TraceLog log{seg(0, 100, Phase::Training), seg(100, 110, Phase::Checkpoint), commit(110, 50),
                     seg(110, 170, Phase::Training)};
  const GoodputReport r = account(log, kStep, kTokensPerStep);
  expect_consistent(log, r);
  EXPECT_NEAR(r.breakdown.productive, 160, kEps);
  EXPECT_NEAR(r.breakdown.lost_work, 0, kEps);
  EXPECT_NEAR(r.ettr, 160.0 / 170.0, kEps);
  EXPECT_EQ(r.steps, 80);
  EXPECT_NEAR(r.tokens, 80000, kEps);
  EXPECT_EQ(r.checkpoints, 1);
}

TEST(Account, GivesEttrOneWhenTheWholeWindowIsTraining)
{
  const TraceLog log{seg(0, 50, Phase::Training)};
  const GoodputReport r = account(log, kStep, kTokensPerStep);
  expect_consistent(log, r);
  EXPECT_NEAR(r.breakdown.productive, 50, kEps);
  EXPECT_NEAR(r.ettr, 1.0, kEps);
  EXPECT_EQ(r.steps, 25);
}

TEST(Account, ReportsZeroWhenLogIsEmpty)
{
  const GoodputReport r = account({}, kStep, kTokensPerStep);
  EXPECT_EQ(r.elapsed, 0);
  EXPECT_EQ(r.ettr, 0);
  EXPECT_EQ(r.breakdown.total(), 0);
  EXPECT_TRUE(r.timeline.empty());
}

TEST(Account, LosesNothingMoreWhenSecondFailureHitsDuringRecovery)
{
  const TraceLog log{seg(0, 40, Phase::Training, true), failure(40),
                     seg(40, 50, Phase::Detection),     seg(50, 60, Phase::Restart, true),
                     failure(60, Phase::Restart),       seg(60, 70, Phase::Detection),
                     seg(70, 90, Phase::Restart),       seg(90, 190, Phase::Training)};
  const GoodputReport r = account(log, kStep, kTokensPerStep);
  expect_consistent(log, r);
  ASSERT_EQ(r.lost_per_interruption.size(), 2u);
  EXPECT_NEAR(r.lost_per_interruption[0], 40, kEps);
  EXPECT_NEAR(r.lost_per_interruption[1], 0, kEps);
  EXPECT_NEAR(r.breakdown.lost_work, 40, kEps);
  EXPECT_NEAR(r.breakdown.detection, 20, kEps);
  EXPECT_NEAR(r.breakdown.restart, 30, kEps);
  EXPECT_NEAR(r.breakdown.productive, 100, kEps);
  EXPECT_EQ(r.unexpected, 2);
}

TEST(Account, CountsInterruptionsAndCheckpointsByKindWhenLogMixesThem)
{
  const TraceLog log{seg(0, 100, Phase::Training),
                     seg(100, 110, Phase::Checkpoint),
                     commit(110, 50),
                     seg(110, 130, Phase::Training, true),
                     failure(130),
                     seg(130, 140, Phase::Detection),
                     seg(140, 150, Phase::Restart),
                     seg(150, 160, Phase::Reload),
                     seg(160, 200, Phase::Training),
                     seg(200, 210, Phase::Checkpoint),
                     commit(210, 70),
                     planned(210),
                     seg(210, 240, Phase::Planned),
                     seg(240, 250, Phase::Reload),
                     seg(250, 270, Phase::Training, true),
                     failure(270),
                     seg(270, 280, Phase::Detection),
                     seg(280, 290, Phase::Reload),
                     seg(290, 390, Phase::Training),
                     seg(390, 400, Phase::Checkpoint),
                     commit(400, 120)};
  const GoodputReport r = account(log, kStep, kTokensPerStep);
  expect_consistent(log, r);
  EXPECT_EQ(r.unexpected, 2);
  EXPECT_EQ(r.planned, 1);
  EXPECT_EQ(r.checkpoints, 3);
  ASSERT_EQ(r.lost_per_interruption.size(), 3u);
  EXPECT_NEAR(r.lost_per_interruption[0], 20, kEps);
  EXPECT_NEAR(r.lost_per_interruption[1], 0, kEps);
  EXPECT_NEAR(r.lost_per_interruption[2], 20, kEps);
  EXPECT_NEAR(r.breakdown.lost_work, 40, kEps);
  EXPECT_NEAR(r.breakdown.productive, 240, kEps);  // 100 + 40 + 100
  EXPECT_NEAR(r.breakdown.checkpoint, 30, kEps);
  EXPECT_NEAR(r.breakdown.detection, 20, kEps);
  EXPECT_NEAR(r.breakdown.restart, 10, kEps);
  EXPECT_NEAR(r.breakdown.reload, 30, kEps);
  EXPECT_NEAR(r.breakdown.planned, 30, kEps);
  EXPECT_NEAR(r.elapsed, 400, kEps);
  EXPECT_NEAR(r.ettr, 240.0 / 400.0, kEps);
  EXPECT_EQ(r.steps, 120);
}

TEST(PhaseName, NamesEveryPhaseInLowerCase)
{
  EXPECT_EQ(phase_name(Phase::Training), "training");
  EXPECT_EQ(phase_name(Phase::Checkpoint), "checkpoint");
  EXPECT_EQ(phase_name(Phase::Detection), "detection");
  EXPECT_EQ(phase_name(Phase::Restart), "restart");
  EXPECT_EQ(phase_name(Phase::Reload), "reload");
  EXPECT_EQ(phase_name(Phase::Warmup), "warmup");
  EXPECT_EQ(phase_name(Phase::Planned), "planned");
}

}  // namespace
}  // namespace fleetsim::models

namespace {

fleetsim::models::TimelineRow timeline_row(double t0, double t1, fleetsim::models::Phase phase, double tokens)
{
  fleetsim::models::TimelineRow r;
  r.t_begin = t0;
  r.t_end = t1;
  r.phase = phase;
  r.tokens = tokens;
  return r;
}

TEST(TimeToTokens, InterpolatesWithinTheTrainingRowThatCrossesTheTarget)
{
  using fleetsim::models::Phase;
  const std::vector<fleetsim::models::TimelineRow> rows = {timeline_row(0, 100, Phase::Training, 1000),
                                                           timeline_row(100, 110, Phase::Checkpoint, 1000),
                                                           timeline_row(110, 210, Phase::Training, 2000)};
  EXPECT_DOUBLE_EQ(*fleetsim::models::time_to_tokens(rows, 500), 50);
  EXPECT_DOUBLE_EQ(*fleetsim::models::time_to_tokens(rows, 1000), 100);  // reached at the end of the first row
  EXPECT_DOUBLE_EQ(*fleetsim::models::time_to_tokens(rows, 1500), 160);
  EXPECT_FALSE(fleetsim::models::time_to_tokens(rows, 2001).has_value());
}

TEST(TimeToTokens, ATargetTakenBackByAnInterruptionCountsOnlyWhenReachedAgain)
{
  using fleetsim::models::Phase;
  // 1,500 tokens trained by t = 150, but the failure at 200 takes the job back to 1,000.
  const std::vector<fleetsim::models::TimelineRow> rows = {
      timeline_row(0, 100, Phase::Training, 1000), timeline_row(100, 200, Phase::Training, 1000),
      timeline_row(200, 300, Phase::Restart, 1000), timeline_row(300, 400, Phase::Training, 2000)};
  EXPECT_DOUBLE_EQ(*fleetsim::models::time_to_tokens(rows, 1500), 350);
}

}  // namespace
