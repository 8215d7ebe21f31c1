#include "models/resilience/failure_model.hpp"
#include "models/resilience/node_pool.hpp"
#include "models/core/random_stream.hpp"
#include "models/resilience/run_plan.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

namespace fleetsim::models {
namespace {

using units::kDay;
using units::kHour;
using units::Seconds;

constexpr long kLlamaGpus = 16384;
const Seconds kLlamaWindow(54 * kDay);

FleetShape fleet(long gpus)
{
  FleetShape f;
  f.gpus = gpus;
  f.gpus_per_node = 8;
  f.gpus_per_rack = 16;
  return f;
}

FailureCause counted(double count, bool scales = true)
{
  FailureCause c;
  c.name = "faulty_gpu";
  c.category = "GPU";
  c.count = count;
  c.reference_window = kLlamaWindow;
  c.reference_gpus = kLlamaGpus;
  c.scales_with_fleet = scales;
  return c;
}

FailureCause per_component(Scope scope, Seconds mtbf)
{
  FailureCause c;
  c.name = "component";
  c.scope = scope;
  c.component_mtbf = mtbf;
  return c;
}

// ---- count form ---------------------------------------------------------------------------------

TEST(FleetRate, Is148Over54DaysWhenFleetIsTheReferenceSize)
{
  const double expected = 148.0 / (54.0 * 86400.0);
  EXPECT_DOUBLE_EQ(fleet_rate_per_second(counted(148), fleet(kLlamaGpus)), expected);
}

TEST(FleetRate, ScalesLinearlyWithGpusWhenCauseScalesWithFleet)
{
  const double reference = 148.0 / (54.0 * 86400.0);
  EXPECT_DOUBLE_EQ(fleet_rate_per_second(counted(148), fleet(32768)), 2 * reference);
  EXPECT_DOUBLE_EQ(fleet_rate_per_second(counted(148), fleet(8192)), reference / 2);
  EXPECT_DOUBLE_EQ(fleet_rate_per_second(counted(148), fleet(1)), reference / kLlamaGpus);
}

TEST(FleetRate, StaysConstantWhenCauseDoesNotScaleWithFleet)
{
  const double reference = 148.0 / (54.0 * 86400.0);
  for (long gpus : {1L, 8192L, kLlamaGpus, 32768L, 100000L})
    EXPECT_DOUBLE_EQ(fleet_rate_per_second(counted(148, false), fleet(gpus)), reference) << gpus << " GPUs";
}

TEST(ExpectedCount, Is148Over54DaysWhenFleetIsTheReferenceSize)
{
  EXPECT_NEAR(expected_count(counted(148), fleet(kLlamaGpus), kLlamaWindow), 148.0, 1e-9);
  EXPECT_NEAR(expected_count(counted(148), fleet(32768), kLlamaWindow), 296.0, 1e-9);
  EXPECT_NEAR(expected_count(counted(148), fleet(kLlamaGpus), Seconds(27 * kDay)), 74.0, 1e-9);
}

// ---- MTBF form ----------------------------------------------------------------------------------

TEST(ComponentCount, DividesGpusByNodeAndRackSizeWhenFleetIsLlamaSized)
{
  const FleetShape f = fleet(kLlamaGpus);
  EXPECT_EQ(component_count(Scope::Gpu, f), 16384);
  EXPECT_EQ(component_count(Scope::Node, f), 2048);
  EXPECT_EQ(component_count(Scope::Rack, f), 1024);
  EXPECT_EQ(component_count(Scope::Job, f), 1);
}

TEST(ComponentCount, RoundsUpWhenGpusAreNotAMultiple)
{
  const FleetShape f = fleet(17);
  EXPECT_EQ(component_count(Scope::Gpu, f), 17);
  EXPECT_EQ(component_count(Scope::Node, f), 3);
  EXPECT_EQ(component_count(Scope::Rack, f), 2);
  EXPECT_EQ(component_count(Scope::Job, f), 1);
  EXPECT_EQ(component_count(Scope::Node, fleet(16)), 2);  // exact multiple: no extra node
  EXPECT_EQ(component_count(Scope::Rack, fleet(1)), 1);
}

TEST(FleetRate, MultipliesPerComponentRateByComponentCountWhenMtbfIsGiven)
{
  const Seconds mtbf(1e6 * kHour);
  const double one = 1.0 / mtbf.si();  // failures per second of one component
  const FleetShape f = fleet(kLlamaGpus);
  EXPECT_DOUBLE_EQ(fleet_rate_per_second(per_component(Scope::Gpu, mtbf), f), 16384 * one);
  EXPECT_DOUBLE_EQ(fleet_rate_per_second(per_component(Scope::Node, mtbf), f), 2048 * one);
  EXPECT_DOUBLE_EQ(fleet_rate_per_second(per_component(Scope::Rack, mtbf), f), 1024 * one);
  EXPECT_DOUBLE_EQ(fleet_rate_per_second(per_component(Scope::Job, mtbf), f), one);
  EXPECT_DOUBLE_EQ(fleet_rate_per_second(per_component(Scope::Node, mtbf), fleet(17)), 3 * one);
}

TEST(ExpectedCount, IsWindowOverComponentMtbfTimesComponentsWhenMtbfIsGiven)
{
  // 2048 nodes, each failing once per 2048 days: one node failure per day.
  const FailureCause c = per_component(Scope::Node, Seconds(2048 * kDay));
  EXPECT_NEAR(expected_count(c, fleet(kLlamaGpus), Seconds(54 * kDay)), 54.0, 1e-9);
}

// ---- job MTBF -----------------------------------------------------------------------------------

// Interruption counts of the 18 root-cause categories of Llama 3 pre-training (54 days, 16,384
// GPUs), in the order of the paper's table; they add up to 419.
std::vector<FailureCause> llama3_causes()
{
  const double counts[] = {148, 72, 54, 35, 32, 19, 17, 7, 7, 6, 6, 3, 3, 2, 2, 2, 2, 2};
  std::vector<FailureCause> causes;
  for (double n : counts)
    causes.push_back(counted(n));
  return causes;
}

TEST(JobMtbf, Is3Point09HoursWhenAllLlama3CausesRunOnTheReferenceFleet)
{
  const double hours = job_mtbf(llama3_causes(), fleet(kLlamaGpus)).si() / kHour;
  EXPECT_NEAR(hours, 54.0 * 24.0 / 419.0, 1e-9);
  EXPECT_NEAR(hours, 3.093, 5e-4);
}

TEST(JobMtbf, HalvesWhenFleetDoubles)
{
  const double reference = job_mtbf(llama3_causes(), fleet(kLlamaGpus)).si();
  EXPECT_NEAR(job_mtbf(llama3_causes(), fleet(32768)).si(), reference / 2, 1e-6);
}

TEST(JobMtbf, SuperposesCountAndMtbfForms)
{
  // One failure per day from each form: a job MTBF of half a day.
  std::vector<FailureCause> causes{counted(54), per_component(Scope::Job, Seconds(kDay))};
  EXPECT_NEAR(job_mtbf(causes, fleet(kLlamaGpus)).si(), kDay / 2, 1e-6);
}

TEST(JobMtbf, IsInfiniteWhenThereAreNoCauses)
{
  EXPECT_EQ(job_mtbf({}, fleet(kLlamaGpus)).si(), std::numeric_limits<double>::infinity());
}

// ---- scope names --------------------------------------------------------------------------------

TEST(ScopeName, RoundTripsThroughScopeFromNameForEveryScope)
{
  EXPECT_EQ(scope_name(Scope::Gpu), "gpu");
  EXPECT_EQ(scope_name(Scope::Node), "node");
  EXPECT_EQ(scope_name(Scope::Rack), "rack");
  EXPECT_EQ(scope_name(Scope::Job), "job");
  for (Scope s : {Scope::Gpu, Scope::Node, Scope::Rack, Scope::Job}) {
    const auto back = scope_from_name(scope_name(s));
    ASSERT_TRUE(back.has_value()) << scope_name(s);
    EXPECT_EQ(*back, s);
  }
}

TEST(ScopeFromName, RejectsUnknownNames)
{
  EXPECT_FALSE(scope_from_name("switch").has_value());
  EXPECT_FALSE(scope_from_name("").has_value());
  EXPECT_FALSE(scope_from_name("GPU").has_value());  // names are lower-case
}

}  // namespace
}  // namespace fleetsim::models

namespace fleetsim::models {
namespace {

TEST(BlastRadius, AFailureTakesDownEveryGpuOfItsDomain)
{
  const FleetShape fleet{16384, 8, 16};
  EXPECT_EQ(blast_radius(Scope::Gpu, 1234, fleet).first, 1234);
  EXPECT_EQ(blast_radius(Scope::Gpu, 1234, fleet).count, 1);
  EXPECT_EQ(blast_radius(Scope::Node, 17, fleet).first, 136);
  EXPECT_EQ(blast_radius(Scope::Node, 17, fleet).count, 8);
  // A top-of-rack switch takes both nodes behind it: GPUs 16 k .. 16 k + 15.
  EXPECT_EQ(blast_radius(Scope::Rack, 906, fleet).first, 14496);
  EXPECT_EQ(blast_radius(Scope::Rack, 906, fleet).count, 16);
  EXPECT_EQ(blast_radius(Scope::Job, 0, fleet).count, 16384);
  // A partly filled last rack loses only the GPUs it holds.
  const FleetShape odd{1000, 8, 16};
  EXPECT_EQ(component_count(Scope::Rack, odd), 63);
  EXPECT_EQ(blast_radius(Scope::Rack, 62, odd).first, 992);
  EXPECT_EQ(blast_radius(Scope::Rack, 62, odd).count, 8);
}

}  // namespace
}  // namespace fleetsim::models

// ---- the scope registry ---------------------------------------------------------------------------

namespace {

// A scope defined here alone: half a rack (one of its two power feeds).
class HalfRackScope final : public fleetsim::models::FailureScopeModel {
public:
  [[nodiscard]] long component_count(const fleetsim::models::FleetShape& f) const override
  {
    return 2 * ((f.gpus + f.gpus_per_rack - 1) / f.gpus_per_rack);
  }
  [[nodiscard]] fleetsim::models::GpuRange blast_radius(long index,
                                                        const fleetsim::models::FleetShape& f) const override
  {
    return {index * f.gpus_per_rack / 2, f.gpus_per_rack / 2};
  }
  [[nodiscard]] std::optional<fleetsim::models::Strike> draw(fleetsim::models::RandomStream&,
                                                             const fleetsim::models::NodePool&,
                                                             const fleetsim::models::FleetShape&) const override
  {
    return fleetsim::models::Strike{3, 6, 2};
  }
};

}  // namespace

TEST(FailureScopes, BuiltInsKeepTheirNamesAndHandles)
{
  using fleetsim::models::Scope;
  const std::vector<std::pair<Scope, const char*>> builtins = {
      {Scope::Gpu, "gpu"}, {Scope::Node, "node"},       {Scope::Link, "link"}, {Scope::Rack, "rack"},
      {Scope::Pod, "pod"}, {Scope::Storage, "storage"}, {Scope::Job, "job"}};
  for (const auto& [scope, name] : builtins) {
    EXPECT_EQ(fleetsim::models::scope_name(scope), name);
    EXPECT_EQ(fleetsim::models::scope_from_name(name), scope) << name;
  }
  EXPECT_TRUE(Scope::Gpu.model().own_fault());
  EXPECT_FALSE(Scope::Rack.model().own_fault());
  EXPECT_TRUE(Scope::Link.model().hangs());
  EXPECT_EQ(Scope::Job.model().effect(), fleetsim::models::ScopeEffect::WholeJob);
  EXPECT_EQ(Scope::Storage.model().effect(), fleetsim::models::ScopeEffect::StorageOutage);
  EXPECT_FALSE(fleetsim::models::scope_from_name("cosmic_ray").has_value());
}

// Registered once, at static initialisation, as a plugin's scope would be.
const std::optional<fleetsim::models::Scope> kHalfRack = fleetsim::models::register_failure_scope(
    "test_half_rack", std::make_unique<HalfRackScope>());

TEST(FailureScopes, ARegisteredScopeIsUsedThroughTheSameFunctions)
{
  const auto& scope = kHalfRack;
  ASSERT_TRUE(scope.has_value());
  EXPECT_FALSE(fleetsim::models::register_failure_scope("test_half_rack", std::make_unique<HalfRackScope>()))
      << "a name is registered once";
  EXPECT_EQ(fleetsim::models::scope_from_name("test_half_rack"), scope);
  const auto names = fleetsim::models::scope_names();
  EXPECT_EQ(names.back(), "test_half_rack");
  fleetsim::models::FleetShape fleet;
  fleet.gpus = 64;
  fleet.gpus_per_rack = 16;
  EXPECT_EQ(fleetsim::models::component_count(*scope, fleet), 8);
  const auto down = fleetsim::models::blast_radius(*scope, 3, fleet);
  EXPECT_EQ(down.first, 24);
  EXPECT_EQ(down.count, 8);
  EXPECT_EQ(fleetsim::models::component_label(*scope, 3), "test_half_rack:3");
  fleetsim::models::FailureCause cause;
  cause.scope = *scope;
  cause.component_mtbf = fleetsim::units::Seconds(8 * 3600.0);
  EXPECT_DOUBLE_EQ(fleetsim::models::fleet_rate_per_second(cause, fleet), 8 / (8 * 3600.0)) << "8 half racks";
}
