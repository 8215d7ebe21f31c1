#include "models/network/collectives.hpp"

#include <gtest/gtest.h>

namespace fleetsim::models {
namespace {

using units::Bytes;
using units::BytesPerSecond;
using units::Seconds;

const AlphaBeta kLink{Seconds(5e-6), BytesPerSecond(50e9)};

TEST(RingAllreduce, Takes42msWhenOneGigabyteCrosses256Ranks)
{
  // 2*255*5e-6 + 2*255/256 * 1e9/50e9 = 0.00255 + 0.03984375 = 0.04239375 s
  const Seconds t = ring_allreduce_time(Bytes(1e9), 256, kLink);
  EXPECT_NEAR(t.si(), 0.04239375, 1e-12);
}

TEST(RingAllreduce, IsFreeWhenThereIsOneRankOrNone)
{
  EXPECT_EQ(ring_allreduce_time(Bytes(1e9), 1, kLink).si(), 0.0);
  EXPECT_EQ(ring_allreduce_time(Bytes(1e9), 0, kLink).si(), 0.0);
}

TEST(RingAllreduce, IsLatencyBoundWhenMessageIsEmpty)
{
  // 2*(8-1)*5us = 70us
  EXPECT_NEAR(ring_allreduce_time(Bytes(0), 8, kLink).si(), 70e-6, 1e-15);
}

TEST(RingAllreduce, CostsOneBandwidthTermPerDirectionWhenTwoRanks)
{
  // 2*1*5e-6 + 2*(1/2)*1e8/50e9 = 1e-5 + 2e-3
  EXPECT_NEAR(ring_allreduce_time(Bytes(1e8), 2, kLink).si(), 0.00201, 1e-12);
}

TEST(RingReduceScatter, CostsHalfAnAllreduceWhenSameBuffer)
{
  // (N-1) alpha + (N-1)/N M/beta = 255*5e-6 + 255/256*0.02 = 0.001275 + 0.019921875
  EXPECT_NEAR(ring_reduce_scatter_time(Bytes(1e9), 256, kLink).si(), 0.021196875, 1e-12);
  EXPECT_NEAR(ring_all_gather_time(Bytes(1e9), 256, kLink).si(), 0.021196875, 1e-12);
  EXPECT_EQ(ring_all_gather_time(Bytes(1e9), 1, kLink).si(), 0.0);
}

TEST(RingAllreduceBytes, SendsTwiceTheBufferLessOneShareWhenRingIsLarge)
{
  EXPECT_DOUBLE_EQ(ring_allreduce_bytes_per_rank(Bytes(1024), 4).si(), 1536.0);
  EXPECT_DOUBLE_EQ(ring_allreduce_bytes_per_rank(Bytes(1024), 1).si(), 0.0);
}

TEST(P2p, AddsLatencyToSerialisationTime)
{
  // 5e-6 + 1e6/50e9 = 5e-6 + 2e-5
  EXPECT_NEAR(p2p_time(Bytes(1e6), kLink).si(), 25e-6, 1e-15);
}

TEST(Barrier, CostsTwoLatenciesPerTreeLevelWhenRanksArePowerOfTwo)
{
  // ceil(log2 16384) = 14 levels, up and down: 28 * 5us = 140us
  EXPECT_NEAR(barrier_time(16384, Seconds(5e-6)).si(), 140e-6, 1e-15);
  EXPECT_NEAR(barrier_time(2, Seconds(5e-6)).si(), 10e-6, 1e-15);
}

TEST(Barrier, RoundsTreeDepthUpWhenRanksAreNotPowerOfTwo)
{
  // ceil(log2 5) = 3, ceil(log2 1000) = 10
  EXPECT_NEAR(barrier_time(5, Seconds(1e-6)).si(), 6e-6, 1e-15);
  EXPECT_NEAR(barrier_time(1000, Seconds(1e-6)).si(), 20e-6, 1e-15);
  EXPECT_EQ(barrier_time(1, Seconds(1e-6)).si(), 0.0);
}

}  // namespace
}  // namespace fleetsim::models
