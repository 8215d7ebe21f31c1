// Where a multi-node job goes (models/fleet/cluster.hpp): topology packing spans the fewest racks
// and pods, random scatters the job over the free nodes, reproducibly.

#include "models/fleet/cluster.hpp"

#include <gtest/gtest.h>

#include <set>

namespace fm = fleetsim::models::fleet;

namespace {

// 128 nodes of 8 GPUs, racks of 2 nodes, pods of 32 nodes.
fm::Cluster cluster(std::uint64_t seed = 7) { return fm::Cluster(128, 8, 2, 32, 0, seed); }

std::set<long> nodes_of(const fm::Placement& p)
{
  std::set<long> out;
  for (const auto& part : p.parts)
    out.insert(part.first);
  return out;
}

}  // namespace

TEST(FleetPlacement, TopologySpansTheFewestRacksAndRandomScattersAcrossPods)
{
  const fm::Cluster c = cluster();
  const auto packed = c.place(16 * 8, fm::Packing::Topology);
  const auto scattered = c.place(16 * 8, fm::Packing::Random);
  ASSERT_TRUE(packed && scattered);
  EXPECT_EQ(packed->racks, 8);
  EXPECT_EQ(packed->pods, 1);
  EXPECT_EQ(scattered->gpus(), 16 * 8);
  EXPECT_EQ(nodes_of(*scattered).size(), 16U);
  EXPECT_GT(scattered->racks, 12);  // 16 of 64 racks at random: about 14 distinct
  EXPECT_GE(scattered->pods, 3);    // and nearly always all four pods
}

TEST(FleetPlacement, RandomIsReproducibleAndMovesOnWithEachPlacementTaken)
{
  fm::Cluster a = cluster(7);
  const fm::Cluster b = cluster(7);
  const auto first = a.place(4 * 8, fm::Packing::Random);
  ASSERT_TRUE(first);
  EXPECT_EQ(nodes_of(*first), nodes_of(*a.place(4 * 8, fm::Packing::Random)));  // place() changes nothing
  EXPECT_EQ(nodes_of(*first), nodes_of(*b.place(4 * 8, fm::Packing::Random)));  // the same seed
  EXPECT_NE(nodes_of(*first), nodes_of(*cluster(8).place(4 * 8, fm::Packing::Random)));  // another seed
  a.take(*first);
  const auto second = a.place(4 * 8, fm::Packing::Random);
  ASSERT_TRUE(second);
  for (long n : nodes_of(*second))
    EXPECT_EQ(nodes_of(*first).count(n), 0U) << "a taken node is not offered again";
}

TEST(FleetPlacement, ASubNodeJobIsPlacedByBestFitUnderEveryPacking)
{
  fm::Cluster c = cluster();
  const auto half = c.place(4, fm::Packing::Topology);
  ASSERT_TRUE(half);
  c.take(*half);
  // Best fit: the next 4-GPU job shares the node that has 4 free, whatever the packing.
  for (fm::Packing p : {fm::Packing::Topology, fm::Packing::FirstFit, fm::Packing::Random})
    EXPECT_EQ(c.place(4, p)->parts.front().first, half->parts.front().first);
}
