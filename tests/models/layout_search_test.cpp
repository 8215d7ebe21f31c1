// Layout search (models/step/layout_search.hpp): memory-feasible layouts ranked by the analytic step.
#include "models/step/layout_search.hpp"
#include "llama3_inputs.hpp"

#include <gtest/gtest.h>

#include <cstdio>

namespace fleetsim::models {
namespace {


// Every ranked layout is consistent and fits with the recomputation chosen, lighter recomputation
// would not fit, the ranking is fastest first, and layouts that cannot fit are counted and dropped.
TEST(LayoutSearch, RanksOnlyLayoutsThatFitWithTheLightestRecomputationFastestFirst)
{
  SearchStats stats;
  const auto ranked = search_layouts(llama3_405b_inputs(), 16384, SearchSpace{}, &stats);
  ASSERT_GE(ranked.size(), 10U);
  EXPECT_GT(stats.rejected_memory, 0);
  EXPECT_EQ(stats.enumerated - stats.rejected_memory, static_cast<long>(ranked.size()));
  for (size_t i = 0; i < ranked.size(); ++i) {
    const LayoutCandidate& c = ranked[i];
    const ParallelLayout& l = c.inputs.layout;
    SCOPED_TRACE(::testing::Message() << "tp " << l.tp << " cp " << l.cp << " pp " << l.pp << " v " << l.virtual_stages
                                      << " mbs " << c.inputs.workload.micro_batch_size);
    EXPECT_EQ(l.gpus(), 16384);
    EXPECT_TRUE(c.memory.fits());
    EXPECT_TRUE(check_step_inputs(c.inputs, 16384).empty());
    // 405e9 parameters x 2 bytes of weights alone need at least 11 GPUs per replica's copy.
    EXPECT_GE(static_cast<long>(l.tp) * l.pp, 16);
    if (i > 0) {
      EXPECT_LE(ranked[i - 1].step.step_time.si(), c.step.step_time.si());
    }
    if (c.inputs.workload.recompute != Recompute::None) {
      StepInputs lighter = c.inputs;
      lighter.workload.recompute = Recompute::None;
      EXPECT_FALSE(check_step_inputs(lighter, 16384).empty());
    }
  }
}

// Not yet an assertion (issue 15): where the paper's layout ranks. The analytic ranking prefers
// context parallelism at 8K tokens, which Llama 3 used only for long context; printed so that the
// gap stays visible in the test log.
TEST(LayoutSearch, PrintsWhereTheLlama3PaperLayoutRanks)
{
  const auto ranked = search_layouts(llama3_405b_inputs(), 16384, SearchSpace{});
  int paper_rank = -1;
  for (size_t i = 0; i < ranked.size(); ++i) {
    const ParallelLayout& l = ranked[i].inputs.layout;
    if (i < 10)
      std::printf("%2zu tp %d cp %d pp %d dp %d v %d mbs %d %s: %.3f s MFU %.1f %% %.1f GB\n", i + 1, l.tp, l.cp, l.pp,
                  l.dp, l.virtual_stages, ranked[i].inputs.workload.micro_batch_size,
                  recompute_name(ranked[i].inputs.workload.recompute), ranked[i].step.step_time.si(),
                  100 * ranked[i].step.mfu, ranked[i].memory.total / 1e9);
    if (paper_rank < 0 && l.tp == 8 && l.cp == 1 && l.pp == 16 && l.dp == 128 &&
        ranked[i].inputs.workload.micro_batch_size == 1) {
      paper_rank = static_cast<int>(i) + 1;
      std::printf("the paper's layout (TP 8, CP 1, PP 16, DP 128, micro-batch 1, v %d): rank %d of %zu, %.3f s\n",
                  l.virtual_stages, paper_rank, ranked.size(), ranked[i].step.step_time.si());
    }
  }
  EXPECT_GE(paper_rank, 1);  // it fits and is ranked at all
}

// Among the layouts Llama 3 considered at 8K tokens (no context parallelism, which it used for long
// context only), the paper's is the fastest: TP 8 across the node, the 16 pipeline stages that let
// 405B fit without recomputation, and the interleaving that shrinks their bubble. What beats it
// with CP 1 would be a finding, not a reproduction.
TEST(LayoutSearch, WithoutContextParallelismThePaperLayoutRanksFirst)
{
  SearchSpace space;
  space.context_parallel = {1};
  SearchStats stats;
  const auto ranked = search_layouts(llama3_405b_inputs(), 16384, space, &stats);
  ASSERT_FALSE(ranked.empty());
  EXPECT_GT(stats.rejected_memory, 0);  // and the memory check still drops the few that fit nowhere
  const ParallelLayout& best = ranked[0].inputs.layout;
  EXPECT_EQ(best.tp, 8);
  EXPECT_EQ(best.cp, 1);
  EXPECT_EQ(best.pp, 16);
  EXPECT_EQ(best.dp, 128);
  EXPECT_EQ(ranked[0].inputs.workload.micro_batch_size, 1);
  EXPECT_EQ(ranked[0].inputs.workload.recompute, Recompute::None);
  EXPECT_GT(best.virtual_stages, 1);
  // The runner-up is the same layout with less interleaving, and is slower by its larger bubble.
  ASSERT_GE(ranked.size(), 2U);
  EXPECT_LT(ranked[1].inputs.layout.virtual_stages, best.virtual_stages);
  EXPECT_GT(ranked[1].step.bubble.si(), ranked[0].step.bubble.si());
}

}  // namespace
}  // namespace fleetsim::models
