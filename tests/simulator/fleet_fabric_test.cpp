// The fleet's shared fabric (simulator/platform/fleet_fabric.hpp) against a flow-by-flow
// co-simulation of the same jobs' iterations on the same links: each job computes, then
// all-reduces over a ring of its nodes in 2 (n - 1) steps of one message per node, every message a
// SimGrid communication. The steady model (one long-lived flow per ring hop that crosses an uplink,
// the slowest one setting the job's speed) must give each job's step time within 3 %; placed in
// pods of their own, jobs keep their isolated step exactly.
#include "simulator/platform/fleet_fabric.hpp"
#include "simulator/platform/platform_builder.hpp"
#include "simulator/platform/storage_system.hpp"
#include "simulator/run/child_process.hpp"
#include "simulator/run/engine_setup.hpp"

#include <gtest/gtest.h>

#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace fleetsim::testing {
namespace {

namespace sg4 = simgrid::s4u;
namespace mf = models::fleet;

constexpr double kStep = 10;      // s: each job's isolated step
constexpr double kComm = 0.4;     // of which scale-out communication
constexpr int kIterations = 20;

struct Compared {
  double model = 0;     // the steady model's step, over the isolated one
  double cosim = 0;     // the co-simulation's mean step, over the isolated one
};

// Jobs of `gpus` each on a 1,024-GPU cluster of 8-GPU nodes in two pods of 512 at 1:4, placed by
// `packing`; in a child process.
// `stagger`: job j starts its iterations j x stagger s after the first (0: all together).
std::vector<Compared> compare(const std::vector<long>& gpus, mf::Packing packing, double stagger = 0)
{
  auto child = sim::ChildProcess::start([&] {
    auto engine = sim::make_engine();
    scenario::Scenario s;
    s.fleet.gpus = 1024;
    s.fleet.gpus_per_node = 8;
    s.fleet.gpus_per_rack = 64;
    s.fabric.pod_size = 512;
    s.fabric.pod_oversubscription = 4;
    s.step.fabric.nic_bandwidth = units::BytesPerSecond(50e9);
    mf::Workload w;
    for (size_t j = 0; j < gpus.size(); ++j) {
      mf::JobSpec spec;
      spec.id = "j" + std::to_string(j);
      spec.gpus = gpus[j];
      spec.work = 1e6;
      spec.comm_fraction = kComm;
      w.push_back(spec);
    }
    mf::FleetConfig c;
    c.nodes = 128;
    c.gpus_per_node = 8;
    c.nodes_per_rack = 8;
    c.nodes_per_pod = 64;
    c.packing = packing;
    c.placement_seed = 7;
    c.horizon = 1e6;
    c.extra_causes = {"contention"};
    const auto policy = mf::find_scheduling_policy("fifo")->make();
    mf::FleetState fleet(c, w, *policy);
    std::unique_ptr<sim::FleetFabric> fabric;
    const sim::Platform platform = sim::build_platform(s, {}, [&](sg4::NetZone* zone, sim::StorageSystem&) {
      fabric = std::make_unique<sim::FleetFabric>(s, c.nodes, zone, w, c.horizon);
    });
    std::vector<Compared> out(w.size());
    std::vector<double> ended(w.size(), 0);
    sg4::Actor::create("driver", platform.control, [&] {
      for (size_t j = 0; j < w.size(); ++j)
        fleet.submit(static_cast<long>(j), 0);
      fabric->update(fleet, 0, fleet.take_placement_changes());
      sg4::this_actor::sleep_for(sim::FleetFabric::kMeasure);
      fabric->read(sg4::Engine::get_clock());
      // The speed the fabric tells the fleet (a job without shared hops keeps 1).
      for (size_t j = 0; j < w.size(); ++j) {
        const auto it = fabric->read_speeds().find(static_cast<long>(j));
        out[j].model = it == fabric->read_speeds().end() ? 1.0 : 1 / it->second;
      }
      fabric->stop_all();
      // The co-simulation, every job from the same instant.
      const double t0 = sg4::Engine::get_clock();
      for (size_t j = 0; j < w.size(); ++j) {
        std::vector<sg4::Host*> ring;
        for (const auto& part : fleet.placement_of(static_cast<long>(j)).parts)
          ring.push_back(fabric->node(part.first));
        const auto n = static_cast<double>(ring.size());
        // Each of the 2 (n - 1) steps moves 1/n of the buffer: kComm x kStep at the NIC's rate.
        const double chunk = kComm * kStep * fabric->nic() / (2 * (n - 1));
        sg4::Actor::create("job" + std::to_string(j), platform.control, [&, j, ring, chunk, t0, stagger] {
          sg4::this_actor::sleep_for(static_cast<double>(j) * stagger);
          for (int it = 0; it < kIterations; ++it) {
            sg4::this_actor::sleep_for((1 - kComm) * kStep);
            for (size_t step = 0; step < 2 * (ring.size() - 1); ++step) {
              std::vector<sg4::CommPtr> sends;
              for (size_t i = 0; i < ring.size(); ++i)
                sends.push_back(sg4::Comm::sendto_async(ring[i], ring[(i + 1) % ring.size()],
                                                        static_cast<uint64_t>(chunk)));
              for (auto& c : sends)
                c->wait();
            }
          }
          ended[j] = sg4::Engine::get_clock() - t0 - static_cast<double>(j) * stagger;
        });
      }
    });
    engine->run();
    std::ostringstream text;
    for (size_t j = 0; j < w.size(); ++j)
      text << out[j].model << ' ' << ended[j] / (kIterations * kStep) << ' ';
    return text.str();
  });
  std::vector<Compared> result;
  if (!child)
    return result;
  int status = 0;
  const auto text = child->finish(&status);
  if (!text)
    return result;
  std::istringstream in(*text);
  for (Compared c; in >> c.model >> c.cosim;)
    result.push_back(c);
  return result;
}

TEST(FleetFabric, TwoJobsSharingThePodUplinksRunAtTheCoSimulatedStep)
{
  const std::vector<Compared> r = compare({512, 512}, mf::Packing::Random);
  ASSERT_EQ(r.size(), 2U);
  for (const Compared& c : r) {
    EXPECT_GT(c.cosim, 1.1);  // scattered over both pods, they contend
    EXPECT_NEAR(c.model / c.cosim, 1, 0.03) << "model " << c.model << ", co-simulation " << c.cosim;
    std::cout << "model " << c.model << ", co-simulation " << c.cosim << "\n";
  }
}

TEST(FleetFabric, TwoJobsInPodsOfTheirOwnRunAtTheirIsolatedStep)
{
  const std::vector<Compared> r = compare({512, 512}, mf::Packing::Topology);
  ASSERT_EQ(r.size(), 2U);
  for (const Compared& c : r) {
    EXPECT_EQ(c.model, 1.0);
    EXPECT_NEAR(c.cosim, 1, 1e-6);
  }
}

TEST(FleetFabric, FourJobsOfMixedSizesRunAtTheCoSimulatedStep)
{
  const std::vector<Compared> r = compare({256, 512, 128, 128}, mf::Packing::Random);
  ASSERT_EQ(r.size(), 4U);
  for (const Compared& c : r) {
    EXPECT_NEAR(c.model / c.cosim, 1, 0.03) << "model " << c.model << ", co-simulation " << c.cosim;
    std::cout << "model " << c.model << ", co-simulation " << c.cosim << "\n";
  }
}

// The model's assumption is the worst case: jobs whose communication phases do not coincide
// contend less. Here the second job starts half a step after the first (documented in
// docs/models/fleet.md with these numbers).
TEST(FleetFabric, JobsOutOfPhaseContendLessThanTheModelCharges)
{
  const std::vector<Compared> r = compare({512, 512}, mf::Packing::Random, kStep / 2);
  ASSERT_EQ(r.size(), 2U);
  for (const Compared& c : r) {
    std::cout << "model " << c.model << ", co-simulation out of phase " << c.cosim << "\n";
    EXPECT_LT(c.cosim, c.model);
    EXPECT_GE(c.cosim, 1.0);
  }
}

}  // namespace
}  // namespace fleetsim::testing
