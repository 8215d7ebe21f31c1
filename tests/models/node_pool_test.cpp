#include "models/resilience/node_pool.hpp"
#include "models/core/random_stream.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <vector>

namespace fleetsim::models {
namespace {

constexpr double kDay = 86400.0;
constexpr double kEps = 1e-9;

LemonSpec no_lemons() { return LemonSpec{}; }

// 4% lemons failing 10x as often; on 128 nodes that is round(5.12) = 5 lemons.
LemonSpec four_percent_lemons(int retire_after = 0, double retire_window = 0)
{
  LemonSpec l;
  l.fraction = 0.04;
  l.rate_multiplier = 10;
  l.retire_after = retire_after;
  l.retire_window = retire_window;
  return l;
}

// Retirement without lemons: every node has weight 1, three own failures in 14 days retire it.
LemonSpec retire_three_in_two_weeks()
{
  LemonSpec l;
  l.retire_after = 3;
  l.retire_window = 14 * kDay;
  return l;
}

std::vector<long> lemon_nodes(const NodePool& pool)
{
  std::vector<long> out;
  for (long n = 0; n < pool.size(); ++n)
    if (pool.lemon(n))
      out.push_back(n);
  return out;
}

long first_normal(const NodePool& pool)
{
  for (long n = 0; n < pool.size(); ++n)
    if (!pool.lemon(n))
      return n;
  return -1;
}

// The counters agree with the nodes' states, every slot holds at most one node and vice versa, and
// the job's nodes sit in the slots it uses.
void expect_consistent(const NodePool& pool)
{
  long active = 0;
  long idle = 0;
  long repair = 0;
  std::set<long> slots;
  for (long n = 0; n < pool.size(); ++n) {
    switch (pool.state(n)) {
      case NodeState::Active:
        ++active;
        EXPECT_GE(pool.slot_of(n), 0) << "active node " << n << " holds no slot";
        EXPECT_LT(pool.slot_of(n), pool.used_slots(0)) << "active node " << n << " beyond the job";
        EXPECT_TRUE(slots.insert(pool.slot_of(n)).second) << "slot " << pool.slot_of(n) << " held twice";
        break;
      case NodeState::Idle:
        ++idle;
        EXPECT_EQ(pool.slot_of(n), -1) << "idle node " << n;
        break;
      case NodeState::Repair:
        ++repair;
        EXPECT_EQ(pool.slot_of(n), -1) << "node in repair " << n;
        break;
    }
  }
  EXPECT_EQ(pool.active(), active);
  EXPECT_EQ(pool.idle(), idle);
  EXPECT_EQ(pool.in_repair(), repair);
  EXPECT_EQ(pool.active() + pool.idle() + pool.in_repair(), pool.size());
  EXPECT_EQ(pool.used_slots(0) - pool.empty_slots(0), pool.active());
}

// ---- construction ----------------------------------------------------------------------------

TEST(NodePool, PutsTheJobNodesInTheirSlotsAndKeepsTheSparesIdleWhenBuilt)
{
  const NodePool pool(16, 4, 8, no_lemons(), 1);
  EXPECT_EQ(pool.job_slots(0), 16);
  EXPECT_EQ(pool.size(), 20);
  EXPECT_EQ(pool.active(), 16);
  EXPECT_EQ(pool.idle(), 4);
  EXPECT_EQ(pool.in_repair(), 0);
  EXPECT_EQ(pool.used_slots(0), 16);
  EXPECT_EQ(pool.empty_slots(0), 0);
  for (long n = 0; n < 16; ++n) {
    EXPECT_EQ(pool.state(n), NodeState::Active) << n;
    EXPECT_EQ(pool.slot_of(n), n) << n;
  }
  for (long n = 16; n < 20; ++n) {
    EXPECT_EQ(pool.state(n), NodeState::Idle) << n;
    EXPECT_EQ(pool.slot_of(n), -1) << n;
  }
  expect_consistent(pool);
}

TEST(NodePool, RoundsThePartialLastRackUp)
{
  EXPECT_EQ(NodePool(16, 4, 8, no_lemons(), 1).racks(), 3);  // 20 nodes, 8 a rack
  EXPECT_EQ(NodePool(16, 0, 8, no_lemons(), 1).racks(), 2);  // exactly two racks
  EXPECT_EQ(NodePool(1, 0, 8, no_lemons(), 1).racks(), 1);
  EXPECT_EQ(NodePool(16, 4, 8, no_lemons(), 1).nodes_per_rack(), 8);
}

// ---- lemons ----------------------------------------------------------------------------------

TEST(NodePoolLemons, DrawsExactlyTheRoundedFractionOfTheClusterAsLemons)
{
  const NodePool pool(120, 8, 8, four_percent_lemons(), 7);
  EXPECT_EQ(pool.size(), 128);
  EXPECT_EQ(pool.lemons(), 5);
  EXPECT_EQ(lemon_nodes(pool).size(), 5u);
  EXPECT_TRUE(pool.weighted());
}

TEST(NodePoolLemons, NormalisesTheWeightsToAMeanOfOneOverTheCluster)
{
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const NodePool pool(120, 8, 8, four_percent_lemons(), seed);
    double total = 0;
    for (long n = 0; n < pool.size(); ++n)
      total += pool.weight(n);
    EXPECT_NEAR(total, static_cast<double>(pool.size()), kEps) << "seed " << seed;
  }
}

TEST(NodePoolLemons, GivesALemonRateMultiplierTimesTheWeightOfANormalNode)
{
  const NodePool pool(120, 8, 8, four_percent_lemons(), 7);
  const long normal = first_normal(pool);
  ASSERT_GE(normal, 0);
  // (1 - f) w + f m w = 1 with f = 5/128, m = 10: w = 128/173.
  const double w = 128.0 / 173.0;
  for (long n = 0; n < pool.size(); ++n) {
    if (pool.lemon(n))
      EXPECT_NEAR(pool.weight(n), 10 * w, kEps) << n;
    else
      EXPECT_NEAR(pool.weight(n), w, kEps) << n;
  }
  const std::vector<long> lemons = lemon_nodes(pool);
  ASSERT_FALSE(lemons.empty());
  EXPECT_NEAR(pool.weight(lemons.front()), 10 * pool.weight(normal), kEps);
}

TEST(NodePoolLemons, DrawsTheSameLemonsFromTheSameSeedAndOthersFromAnotherSeed)
{
  const NodePool a(120, 8, 8, four_percent_lemons(), 42);
  const NodePool b(120, 8, 8, four_percent_lemons(), 42);
  const NodePool c(120, 8, 8, four_percent_lemons(), 43);
  EXPECT_EQ(lemon_nodes(a), lemon_nodes(b));
  // Two seeds picking the same 5 of 128 nodes: odds of 1 in C(128, 5) ~ 2.6e8.
  EXPECT_NE(lemon_nodes(a), lemon_nodes(c));
}

TEST(NodePoolLemons, LeavesEveryWeightAtOneWhenThereAreNoLemons)
{
  LemonSpec multiplier_one = four_percent_lemons();
  multiplier_one.rate_multiplier = 1;  // "lemons" that fail as often as the others: none
  for (const LemonSpec& spec : {no_lemons(), multiplier_one}) {
    const NodePool pool(120, 8, 8, spec, 7);
    EXPECT_FALSE(pool.weighted());
    EXPECT_EQ(pool.lemons(), 0);
    for (long n = 0; n < pool.size(); ++n)
      EXPECT_EQ(pool.weight(n), 1.0) << n;
  }
}

// ---- pick ------------------------------------------------------------------------------------

TEST(NodePoolPick, ReturnsTheNodeUnderTheDrawWhenUnweighted)
{
  NodePool pool(8, 2, 4, no_lemons(), 1);
  EXPECT_EQ(pool.pick(0.0), std::optional<long>(0));
  EXPECT_EQ(pool.pick(3.7), std::optional<long>(3));
  EXPECT_EQ(pool.pick(9.999), std::optional<long>(9));  // a spare can fail too
  (void)pool.fail(3, 1, 0, true);
  EXPECT_EQ(pool.pick(3.2), std::nullopt);  // in repair: the candidate is discarded
  EXPECT_EQ(pool.pick(4.2), std::optional<long>(4));
}

TEST(NodePoolPick, DiscardsACandidateThatLandsOnALemonInRepair)
{
  NodePool pool(120, 8, 8, four_percent_lemons(), 7);
  const long lemon = lemon_nodes(pool).front();
  // The middle of the lemon's interval on the cumulative weights.
  double before = 0;
  for (long n = 0; n < lemon; ++n)
    before += pool.weight(n);
  const double u = before + pool.weight(lemon) / 2;
  EXPECT_EQ(pool.pick(u), std::optional<long>(lemon));
  (void)pool.fail(lemon, 1, 0, true);
  EXPECT_EQ(pool.pick(u), std::nullopt);
}

TEST(NodePoolPick, PicksLemonsInProportionToTheirWeight)
{
  const NodePool pool(120, 8, 8, four_percent_lemons(), 7);
  const std::vector<long> lemons = lemon_nodes(pool);
  ASSERT_EQ(lemons.size(), 5u);
  const std::set<long> is_lemon(lemons.begin(), lemons.end());
  RandomStream draws(2024, "pick-test");
  constexpr int kDraws = 200000;
  long lemon_picks = 0;
  long discarded = 0;
  std::vector<long> per_lemon(lemons.size(), 0);
  for (int i = 0; i < kDraws; ++i) {
    const std::optional<long> n = pool.pick(draws.uniform() * static_cast<double>(pool.size()));
    if (!n) {
      ++discarded;
      continue;
    }
    if (is_lemon.count(*n) != 0) {
      ++lemon_picks;
      for (size_t k = 0; k < lemons.size(); ++k)
        per_lemon[k] += lemons[k] == *n ? 1 : 0;
    }
  }
  // Every node is up and the weights sum to size(): no candidate is discarded.
  EXPECT_EQ(discarded, 0);
  // Share 5 x w_lemon / size = 50/173 ~ 0.289; its standard error over 200k draws is ~0.001.
  const double expected = 5 * pool.weight(lemons.front()) / static_cast<double>(pool.size());
  EXPECT_NEAR(expected, 50.0 / 173.0, kEps);
  EXPECT_NEAR(static_cast<double>(lemon_picks) / kDraws, expected, 0.02 * expected);
  for (size_t k = 0; k < lemons.size(); ++k)
    EXPECT_NEAR(static_cast<double>(per_lemon[k]) / kDraws, expected / 5, 0.05 * expected / 5) << lemons[k];
}

// ---- fail ------------------------------------------------------------------------------------

TEST(NodePoolFail, TakesTheNodesToRepairAndReportsTheSlotsTheyVacate)
{
  NodePool pool(8, 2, 4, no_lemons(), 1);
  const NodePool::Hit hit = pool.fail(2, 3, 100, false);
  EXPECT_EQ(hit.nodes, (std::vector<long>{2, 3, 4}));
  EXPECT_EQ(hit.slots_of(0), (std::vector<long>{2, 3, 4}));
  EXPECT_TRUE(hit.retired.empty());
  for (long n : {2L, 3L, 4L}) {
    EXPECT_EQ(pool.state(n), NodeState::Repair) << n;
    EXPECT_FALSE(pool.up(n)) << n;
    EXPECT_EQ(pool.slot_of(n), -1) << n;
  }
  EXPECT_EQ(pool.active(), 5);
  EXPECT_EQ(pool.idle(), 2);
  EXPECT_EQ(pool.in_repair(), 3);
  EXPECT_EQ(pool.empty_slots(0), 3);
  EXPECT_EQ(pool.used_slots(0), 8);
  expect_consistent(pool);
}

TEST(NodePoolFail, SkipsNodesAlreadyInRepair)
{
  NodePool pool(8, 2, 4, no_lemons(), 1);
  (void)pool.fail(2, 3, 100, false);
  const NodePool::Hit again = pool.fail(3, 2, 200, false);  // 3 and 4: both down already
  EXPECT_TRUE(again.nodes.empty());
  EXPECT_TRUE(again.slots_of(0).empty());
  const NodePool::Hit rack = pool.fail(4, 4, 300, false);  // 4 down, 5..7 up
  EXPECT_EQ(rack.nodes, (std::vector<long>{5, 6, 7}));
  EXPECT_EQ(rack.slots_of(0), (std::vector<long>{5, 6, 7}));
  EXPECT_EQ(pool.in_repair(), 6);
  expect_consistent(pool);
}

TEST(NodePoolFail, ReportsNoSlotWhenAnIdleSpareFails)
{
  NodePool pool(8, 2, 4, no_lemons(), 1);
  const NodePool::Hit hit = pool.fail(8, 1, 100, true);
  EXPECT_EQ(hit.nodes, (std::vector<long>{8}));
  EXPECT_TRUE(hit.slots_of(0).empty());
  EXPECT_EQ(pool.active(), 8);
  EXPECT_EQ(pool.idle(), 1);
  EXPECT_EQ(pool.in_repair(), 1);
  EXPECT_EQ(pool.empty_slots(0), 0);
  expect_consistent(pool);
}

TEST(NodePoolFail, ClipsTheBlastRadiusAtTheEndOfTheCluster)
{
  NodePool pool(8, 2, 4, no_lemons(), 1);
  const NodePool::Hit hit = pool.fail(8, 4, 100, false);  // a rack of 4 starting at 8: nodes 8, 9
  EXPECT_EQ(hit.nodes, (std::vector<long>{8, 9}));
  EXPECT_EQ(pool.idle(), 0);
  expect_consistent(pool);
}

TEST(NodePoolFail, ReturnsARepairedNodeAsIdle)
{
  NodePool pool(8, 2, 4, no_lemons(), 1);
  (void)pool.fail(2, 1, 100, false);
  pool.repaired(2);
  EXPECT_EQ(pool.state(2), NodeState::Idle);
  EXPECT_EQ(pool.slot_of(2), -1);
  EXPECT_EQ(pool.idle(), 3);
  EXPECT_EQ(pool.empty_slots(0), 1);  // until fill() puts someone back in the slot
  expect_consistent(pool);
}

// ---- retirement ------------------------------------------------------------------------------

// Fails `node` alone at t (its own fault unless told otherwise) and brings it back from repair.
NodePool::Hit fail_and_repair(NodePool& pool, long node, double t, bool node_fault = true)
{
  NodePool::Hit hit = pool.fail(node, 1, t, node_fault);
  pool.repaired(node);
  return hit;
}

TEST(NodePoolRetirement, RetiresANodeAfterThreeOwnFailuresInsideTheWindow)
{
  NodePool pool(8, 2, 4, retire_three_in_two_weeks(), 1);
  EXPECT_TRUE(fail_and_repair(pool, 5, 0 * kDay).retired.empty());
  EXPECT_TRUE(fail_and_repair(pool, 5, 5 * kDay).retired.empty());
  const NodePool::Hit third = pool.fail(5, 1, 10 * kDay, true);
  EXPECT_EQ(third.nodes, (std::vector<long>{5}));
  EXPECT_EQ(third.retired, (std::vector<long>{5}));
  EXPECT_EQ(pool.retired_total(), 1);
  EXPECT_EQ(pool.retired_lemons(), 0);  // a healthy node with bad luck
  expect_consistent(pool);
}

TEST(NodePoolRetirement, KeepsANodeWhoseFailuresAreSpreadWiderThanTheWindow)
{
  NodePool pool(8, 2, 4, retire_three_in_two_weeks(), 1);
  EXPECT_TRUE(fail_and_repair(pool, 5, 0 * kDay).retired.empty());
  EXPECT_TRUE(fail_and_repair(pool, 5, 10 * kDay).retired.empty());
  // Day 0 has left the 14-day window by day 20: two failures inside it.
  EXPECT_TRUE(fail_and_repair(pool, 5, 20 * kDay).retired.empty());
  EXPECT_EQ(pool.retired_total(), 0);
  // Days 10, 20 and 22 do fall within 14 days.
  EXPECT_EQ(pool.fail(5, 1, 22 * kDay, true).retired, (std::vector<long>{5}));
  EXPECT_EQ(pool.retired_total(), 1);
}

TEST(NodePoolRetirement, NeverCountsFailuresThatAreNotTheNodesOwn)
{
  NodePool pool(8, 2, 4, retire_three_in_two_weeks(), 1);
  for (int i = 0; i < 5; ++i)
    EXPECT_TRUE(fail_and_repair(pool, 5, i * kDay, false).retired.empty()) << "failure " << i;
  // Two own failures plus the five foreign ones above: still short of three.
  EXPECT_TRUE(fail_and_repair(pool, 5, 6 * kDay).retired.empty());
  EXPECT_TRUE(fail_and_repair(pool, 5, 7 * kDay, false).retired.empty());
  EXPECT_TRUE(fail_and_repair(pool, 5, 8 * kDay).retired.empty());
  EXPECT_EQ(pool.retired_total(), 0);
}

TEST(NodePoolRetirement, CountsEachNodesFailuresSeparately)
{
  NodePool pool(8, 2, 4, retire_three_in_two_weeks(), 1);
  // Three failures in a day, but on three different nodes.
  EXPECT_TRUE(fail_and_repair(pool, 1, 0).retired.empty());
  EXPECT_TRUE(fail_and_repair(pool, 2, 100).retired.empty());
  EXPECT_TRUE(fail_and_repair(pool, 3, 200).retired.empty());
  // A rack failure that is the nodes' own counts once for each of them.
  EXPECT_TRUE(pool.fail(0, 4, 300, true).retired.empty());
  for (long n = 0; n < 4; ++n)
    pool.repaired(n);
  EXPECT_EQ(pool.fail(0, 4, 400, true).retired, (std::vector<long>{1, 2, 3}));
  EXPECT_EQ(pool.retired_total(), 3);
}

TEST(NodePoolRetirement, BringsARetiredLemonBackAsAHealthyNodeWithTheNormalWeight)
{
  NodePool pool(120, 8, 8, four_percent_lemons(3, 14 * kDay), 7);
  const long lemon = lemon_nodes(pool).front();
  const long normal = first_normal(pool);
  const double normal_weight = pool.weight(normal);
  (void)fail_and_repair(pool, lemon, 1 * kDay);
  (void)fail_and_repair(pool, lemon, 2 * kDay);
  const NodePool::Hit hit = pool.fail(lemon, 1, 3 * kDay, true);
  EXPECT_EQ(hit.retired, (std::vector<long>{lemon}));
  EXPECT_EQ(pool.retired_total(), 1);
  EXPECT_EQ(pool.retired_lemons(), 1);
  pool.repaired(lemon);
  EXPECT_EQ(pool.state(lemon), NodeState::Idle);
  EXPECT_FALSE(pool.lemon(lemon));
  EXPECT_NEAR(pool.weight(lemon), normal_weight, kEps);
  EXPECT_EQ(pool.lemons(), 4);
  // The replacement has no history: two more failures do not retire it.
  EXPECT_TRUE(fail_and_repair(pool, lemon, 4 * kDay).retired.empty());
  EXPECT_TRUE(fail_and_repair(pool, lemon, 5 * kDay).retired.empty());
  EXPECT_EQ(pool.retired_total(), 1);
  expect_consistent(pool);
}

TEST(NodePoolRetirement, DiscardsPicksBeyondTheLowerTotalWeightOnceALemonIsReplaced)
{
  NodePool pool(120, 8, 8, four_percent_lemons(3, 14 * kDay), 7);
  const long lemon = lemon_nodes(pool).front();
  for (int i = 0; i < 3; ++i)
    (void)fail_and_repair(pool, lemon, i * kDay);
  ASSERT_EQ(pool.retired_total(), 1);
  // The total fell from 128 by 9 normal weights (128 - 9 x 128/173 ~ 121.3).
  double total = 0;
  for (long n = 0; n < pool.size(); ++n)
    total += pool.weight(n);
  EXPECT_NEAR(total, 128.0 - 9 * 128.0 / 173.0, 1e-9);
  EXPECT_EQ(pool.pick(127.5), std::nullopt);
  EXPECT_EQ(pool.pick(total + 0.5), std::nullopt);
}

// ---- fill ------------------------------------------------------------------------------------

TEST(NodePoolFill, RefillsEmptySlotsFromIdleNodesLowestPositionFirst)
{
  NodePool pool(8, 3, 4, no_lemons(), 1);
  (void)pool.fail(2, 2, 100, false);  // slots 2 and 3 empty; spares 8, 9, 10 idle
  EXPECT_EQ(pool.empty_slots(0), 2);
  EXPECT_EQ(pool.fill(0, 8), 0);
  EXPECT_EQ(pool.slot_of(8), 2);
  EXPECT_EQ(pool.slot_of(9), 3);
  EXPECT_EQ(pool.state(10), NodeState::Idle);
  EXPECT_EQ(pool.empty_slots(0), 0);
  EXPECT_EQ(pool.active(), 8);
  EXPECT_EQ(pool.idle(), 1);
  expect_consistent(pool);
  // A repaired node with a lower position than the remaining spare goes in first.
  (void)pool.fail(5, 1, 200, false);
  pool.repaired(2);
  EXPECT_EQ(pool.fill(0, 8), 0);
  EXPECT_EQ(pool.slot_of(2), 5);
  EXPECT_EQ(pool.state(10), NodeState::Idle);
  expect_consistent(pool);
}

TEST(NodePoolFill, ReportsTheSlotsLeftEmptyWhenThereAreTooFewIdleNodes)
{
  NodePool pool(8, 1, 4, no_lemons(), 1);
  (void)pool.fail(0, 3, 100, false);  // slots 0, 1, 2 empty; one spare
  EXPECT_EQ(pool.fill(0, 8), 2);
  EXPECT_EQ(pool.slot_of(8), 0);  // the lowest empty slot gets the spare
  EXPECT_EQ(pool.empty_slots(0), 2);
  EXPECT_EQ(pool.used_slots(0), 8);
  EXPECT_EQ(pool.active(), 6);
  EXPECT_EQ(pool.idle(), 0);
  expect_consistent(pool);
  pool.repaired(1);
  EXPECT_EQ(pool.fill(0, 8), 1);
  EXPECT_EQ(pool.slot_of(1), 1);
  expect_consistent(pool);
}

TEST(NodePoolFill, MovesNodesFromHighSlotsIntoEmptyLowSlotsWhenTheJobShrinks)
{
  NodePool pool(8, 0, 4, no_lemons(), 1);
  (void)pool.fail(1, 1, 100, false);  // slot 1 empty, no spare
  EXPECT_EQ(pool.fill(0, 8), 1);
  // Shrink to 6 slots: nodes 6 and 7 leave slots 6 and 7; 6 fills slot 1, 7 is released.
  EXPECT_EQ(pool.fill(0, 6), 0);
  EXPECT_EQ(pool.used_slots(0), 6);
  EXPECT_EQ(pool.empty_slots(0), 0);
  EXPECT_EQ(pool.slot_of(6), 1);
  EXPECT_EQ(pool.state(6), NodeState::Active);
  EXPECT_EQ(pool.state(7), NodeState::Idle);
  EXPECT_EQ(pool.slot_of(7), -1);
  for (long n : {0L, 2L, 3L, 4L, 5L})
    EXPECT_EQ(pool.slot_of(n), n) << "node " << n << " should keep its slot";
  EXPECT_EQ(pool.active(), 6);
  EXPECT_EQ(pool.idle(), 1);
  EXPECT_EQ(pool.in_repair(), 1);
  expect_consistent(pool);
}

TEST(NodePoolFill, ReleasesTheNodesOfDroppedSlotsToIdleAndTakesThemBackOnRegrowth)
{
  NodePool pool(8, 0, 4, no_lemons(), 1);
  EXPECT_EQ(pool.fill(0, 4), 0);
  EXPECT_EQ(pool.used_slots(0), 4);
  EXPECT_EQ(pool.active(), 4);
  EXPECT_EQ(pool.idle(), 4);
  for (long n = 4; n < 8; ++n)
    EXPECT_EQ(pool.state(n), NodeState::Idle) << n;
  expect_consistent(pool);
  (void)pool.fail(2, 1, 100, false);
  EXPECT_EQ(pool.empty_slots(0), 1);
  // Regrow to 8: slot 2 and slots 4..7 from idle nodes 4, 5, 6, 7; one slot stays empty.
  EXPECT_EQ(pool.fill(0, 8), 1);
  EXPECT_EQ(pool.slot_of(4), 2);
  EXPECT_EQ(pool.slot_of(5), 4);
  EXPECT_EQ(pool.slot_of(6), 5);
  EXPECT_EQ(pool.slot_of(7), 6);
  EXPECT_EQ(pool.empty_slots(0), 1);
  EXPECT_EQ(pool.idle(), 0);
  expect_consistent(pool);
}

TEST(NodePoolFill, KeepsTheCountsConsistentThroughAMixOfOperations)
{
  NodePool pool(16, 4, 4, four_percent_lemons(2, 7 * kDay), 3);
  expect_consistent(pool);
  (void)pool.fail(0, 4, 1 * kDay, true);
  expect_consistent(pool);
  (void)pool.fill(0, 16);
  expect_consistent(pool);
  (void)pool.fail(16, 4, 2 * kDay, false);
  expect_consistent(pool);
  (void)pool.fill(0, 12);
  expect_consistent(pool);
  for (long n = 0; n < 4; ++n)
    pool.repaired(n);
  expect_consistent(pool);
  (void)pool.fail(0, 2, 3 * kDay, true);  // second own failure of nodes 0, 1 in a week: retired
  expect_consistent(pool);
  (void)pool.fill(0, 16);
  expect_consistent(pool);
  EXPECT_EQ(pool.retired_total(), 2);
}

// ---- memory copies ---------------------------------------------------------------------------

TEST(MemoryCopies, SurviveWhenNoSlotIsLost)
{
  EXPECT_TRUE(memory_copies_survive({}, 16, 1, 2));
  EXPECT_TRUE(memory_copies_survive({}, 16, 2, 2));
}

TEST(MemoryCopies, AreGoneWithAnyLostSlotWhenThereIsOneCopy)
{
  EXPECT_FALSE(memory_copies_survive({0}, 16, 1, 2));
  EXPECT_FALSE(memory_copies_survive({15}, 16, 1, 2));
}

TEST(MemoryCopies, SurviveLosingNeighboursWhosePeersSitInAnotherRack)
{
  // Slot 0's copy is on slot 2, slot 1's on slot 3.
  EXPECT_TRUE(memory_copies_survive({0, 1}, 16, 2, 2));
  EXPECT_TRUE(memory_copies_survive({5}, 16, 2, 2));
}

TEST(MemoryCopies, AreGoneWhenASlotAndItsPeerAreBothLost)
{
  EXPECT_FALSE(memory_copies_survive({0, 2}, 16, 2, 2));
  EXPECT_FALSE(memory_copies_survive({2, 0}, 16, 2, 2));  // order does not matter
}

TEST(MemoryCopies, WrapAroundTheLastSlotToFindThePeer)
{
  // 15's peer is (15 + 2) % 16 = 1.
  EXPECT_FALSE(memory_copies_survive({15, 1}, 16, 2, 2));
  // 15's and 14's peers (1 and 0) are up.
  EXPECT_TRUE(memory_copies_survive({14, 15}, 16, 2, 2));
}

TEST(MemoryCopies, SurviveWhileAnyOfSeveralCopiesRemains)
{
  // Three copies: slot 0's shard is also on 2 and 4.
  EXPECT_TRUE(memory_copies_survive({0, 2}, 16, 3, 2));
  EXPECT_FALSE(memory_copies_survive({0, 2, 4}, 16, 3, 2));
}

}  // namespace
}  // namespace fleetsim::models
