// The time accounting's invariants (models/accounting/goodput.hpp, check_time_accounting, and the segments'
// tiling checked as account() reads them): a report of every phase passes; each term broken in turn
// fails the invariant that watches it, and each case is checked to pass before it is broken.
#include "models/accounting/goodput.hpp"
#include "models/core/invariant.hpp"
#include "trace_builders.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <tuple>
#include <vector>

namespace fleetsim::models {
namespace {

using testing::kStep;
using testing::kTokensPerStep;
using testing::seg;

Interruption failure(double t, const char* cause)
{
  Interruption in;
  in.t = t;
  in.cause = cause;
  return in;
}

// Every phase, a failure with lost work, maintenance (without a checkpoint: it loses work too), a
// data stall, and a last stretch on stragglers (a 10% slower step: its lost rate goes to
// "stragglers", its productive time does not shrink).
TraceLog every_phase()
{
  CheckpointCommitted commit;
  commit.t = 110;
  commit.step = 50;
  Interruption maintenance;
  maintenance.t = 330;
  maintenance.planned = true;
  maintenance.cause = "planned";
  PhaseSegment slow = seg(420, 500, Phase::Training);
  slow.step_time = kStep * 1.1;
  slow.tokens_per_step = kTokensPerStep;
  slow.straggler_factor = 1.1;
  return {seg(0, 100, Phase::Training),
          seg(100, 110, Phase::Checkpoint),
          commit,
          seg(110, 160, Phase::Training, true),
          failure(160, "gpu"),
          seg(160, 170, Phase::Detection),
          seg(170, 200, Phase::Restart),
          seg(200, 220, Phase::Reload),
          seg(220, 230, Phase::Warmup),
          seg(230, 330, Phase::Training),
          maintenance,
          seg(330, 390, Phase::Planned),
          seg(390, 400, Phase::Waiting),
          seg(400, 420, Phase::DataStall),
          slow};
}

::testing::AssertionResult fires(const GoodputReport& r, const std::string& invariant, const std::string& what = "")
{
  try {
    check_time_accounting(r);
  } catch (const InvariantViolation& v) {
    if (v.invariant() != invariant)
      return ::testing::AssertionFailure() << "the wrong invariant: " << v.invariant() << ": " << v.what();
    if (std::string(v.what()).find(what) == std::string::npos)
      return ::testing::AssertionFailure() << "the message does not name '" << what << "': " << v.what();
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "the check did not fire";
}

TEST(TimeAccounting, AReportOfEveryPhaseHasEveryTermAndPasses)
{
  const GoodputReport r = account(every_phase(), kStep, kTokensPerStep);  // checked inside
  EXPECT_NO_THROW(check_time_accounting(r));
  for (const BreakdownTerm& term : kBreakdownTerms)
    EXPECT_GT(r.breakdown.*term.seconds, 0) << term.name;
  EXPECT_GT(r.lost_by_cause.at("stragglers"), 0);
  EXPECT_GT(r.lost_by_cause.at("gpu"), 0);
}

TEST(TimeAccounting, EachTermBrokenInTurnFailsTheInvariantThatWatchesIt)
{
  const GoodputReport base = account(every_phase(), kStep, kTokensPerStep);
  const double dt = 1e-6 * base.elapsed;  // a thousand times the tolerance
  const std::string fills = "the time breakdown fills the window";
  const std::string matches = "the time breakdown matches the timeline";
  const std::string attributed = "every lost second is attributed";
  const std::string productive = "productive time matches the tokens trained";
  std::vector<std::tuple<std::string, std::string, std::function<void(GoodputReport&)>>> broken;
  // Each term of the breakdown, and the clock.
  for (const BreakdownTerm& term : kBreakdownTerms)
    broken.emplace_back(fills, "", [&term, dt](GoodputReport& r) { r.breakdown.*term.seconds += dt; });
  broken.emplace_back(fills, "", [dt](GoodputReport& r) { r.elapsed += dt; });
  // Seconds moved between two phases: the total holds, the phases do not.
  broken.emplace_back(matches, "restart is", [dt](GoodputReport& r) {
    r.breakdown.restart += dt;
    r.breakdown.reload -= dt;
  });
  broken.emplace_back(matches, "checkpoint is", [dt](GoodputReport& r) {
    r.breakdown.checkpoint -= dt;
    r.breakdown.lost_work += dt;
  });
  // A row longer on the timeline than in the breakdown.
  broken.emplace_back(matches, "data_stall is", [dt](GoodputReport& r) { r.timeline[10].t_end += dt; });
  // Seconds charged to no cause, or twice.
  broken.emplace_back(attributed, "", [dt](GoodputReport& r) { r.lost_by_cause["gpu"] += dt; });
  broken.emplace_back(attributed, "", [dt](GoodputReport& r) { r.goodput_s -= dt; });
  // Productive seconds turned into lost ones: every total holds, the tokens do not.
  broken.emplace_back(productive, "", [dt](GoodputReport& r) {
    r.breakdown.productive -= dt;
    r.breakdown.lost_work += dt;
  });
  // Goodput charged to a loss, and a straggler's loss that is productive time.
  broken.emplace_back(productive, "", [dt](GoodputReport& r) {
    r.goodput_s -= dt;
    r.lost_by_cause["gpu"] += dt;
  });
  broken.emplace_back(productive, "", [dt](GoodputReport& r) {
    r.lost_by_cause["stragglers"] += dt;
    r.lost_by_cause["gpu"] -= dt;
  });
  for (const auto& [invariant, what, breaks] : broken) {
    GoodputReport r = base;
    ASSERT_NO_THROW(check_time_accounting(r)) << invariant;
    breaks(r);
    EXPECT_TRUE(fires(r, invariant, what)) << invariant << " " << what;
  }
}

TEST(TimeAccounting, ASegmentThatDoesNotStartWhereThePreviousEndedIsAViolation)
{
  TraceLog log = every_phase();
  EXPECT_NO_THROW((void)account(log, kStep, kTokensPerStep));
  std::get<PhaseSegment>(log[6]).t_begin += 1e-5;  // the restart starts after the detection ended
  try {
    (void)account(log, kStep, kTokensPerStep);
    ADD_FAILURE() << "the check did not fire";
  } catch (const InvariantViolation& v) {
    EXPECT_EQ(v.invariant(), "phases tile the window");
  }
}

TEST(TimeAccounting, ADiscardedCheckpointThatNoneCommittedIsAViolation)
{
  const TraceLog log{seg(0, 100, Phase::Training), failure(100, "gpu"), CheckpointDiscarded{100, 50, 0},
                     seg(100, 120, Phase::Restart)};
  try {
    (void)account(log, kStep, kTokensPerStep);
    ADD_FAILURE() << "the check did not fire";
  } catch (const InvariantViolation& v) {
    EXPECT_EQ(v.invariant(), "a discarded checkpoint was committed");
  }
}

}  // namespace
}  // namespace fleetsim::models
