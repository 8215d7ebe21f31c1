// summary.json's declaration (models/summary/): each object names a key once, paths resolve through
// objects and maps, and maps keyed by another declaration take that declaration's names.
#include "models/accounting/goodput.hpp"
#include "models/summary/fleet_summary_fields.hpp"
#include "models/summary/run_energy_fields.hpp"
#include "models/summary/run_summary_fields.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace {

namespace ms = fleetsim::models::summary;

// Every object's keys, recursively: a repeated key would make the schema's properties lose one.
void expect_unique_keys(ms::Fields fields, const std::string& where)
{
  std::set<std::string> seen;
  for (const ms::Field* f : fields) {
    EXPECT_TRUE(seen.insert(f->key).second) << "'" << f->key << "' twice in " << where;
    EXPECT_FALSE(std::string(f->key).empty()) << where;
    EXPECT_NE(std::string(f->doc), "") << f->key << " in " << where << " has no description";
    if (!f->fields.empty())
      expect_unique_keys(f->fields, where + "." + f->key);
  }
}

TEST(SummaryFields, EveryObjectNamesEachKeyOnce)
{
  expect_unique_keys(ms::run::fields(), "run");
  expect_unique_keys(ms::fleet::fields(), "fleet");
}

TEST(SummaryFields, BothKindsStartWithTheScenarioAndEndWithTheWallTime)
{
  for (ms::Fields top : {ms::run::fields(), ms::fleet::fields()}) {
    ASSERT_FALSE(top.empty());
    EXPECT_EQ(top.front(), &ms::kScenario);
    EXPECT_EQ(top.back(), &ms::kWallTimeS);
  }
  EXPECT_EQ(ms::find_field(ms::run::fields(), "kind"), nullptr);  // only a fleet's says its kind
  EXPECT_EQ(ms::find_field(ms::fleet::fields(), "kind"), &ms::fleet::kKind);
}

TEST(SummaryFields, FindsAPathThroughObjectsAndMaps)
{
  const ms::Fields run = ms::run::fields();
  EXPECT_EQ(ms::find_path(run, "ettr"), &ms::run::kEttr);
  EXPECT_EQ(ms::find_path(run, "interruptions.planned"), &ms::run::interruptions::kPlanned);
  EXPECT_EQ(ms::find_path(run, "interruptions.by_cause.faulty_gpu"), &ms::run::interruptions::kByCause);
  EXPECT_EQ(ms::find_path(run, "energy.swings.by_cause.restart.max_mw"), &ms::run::energy::swing_cause::kMaxMw);
  EXPECT_EQ(ms::find_path(run, "energy.peak_mw.mw"), &ms::energy::kMw);
  EXPECT_EQ(ms::find_path(ms::fleet::fields(), "wait_s_by_gpus.513+.p99"), &ms::fleet::distribution::kP99);
  EXPECT_EQ(ms::find_path(run, "etr"), nullptr);
  EXPECT_EQ(ms::find_path(run, "ettr.x"), nullptr);
  EXPECT_EQ(ms::find_path(run, "interruptions.by_cause.faulty_gpu.x"), nullptr);
  EXPECT_EQ(ms::find_path(run, "wait_s"), nullptr);  // a fleet's
}

TEST(SummaryFields, AKeyedMapTakesItsOwnersNames)
{
  const std::vector<std::string> terms = ms::run::breakdown_names();
  ASSERT_EQ(terms.size(), fleetsim::models::kBreakdownTerms.size());
  for (size_t i = 0; i < terms.size(); ++i)
    EXPECT_EQ(terms[i], fleetsim::models::kBreakdownTerms[i].name);
  ASSERT_NE(ms::run::kTimeBreakdownS.keys, nullptr);
  const std::vector<std::string> components = ms::energy::component_names();
  EXPECT_EQ(components.front(), "gpu_compute");
  EXPECT_EQ(components.back(), ms::energy::component::kOverhead);
  EXPECT_EQ(ms::fleet::size_class_names().back(), "513+");
}

TEST(SummaryFields, OptionalAndNullableAreDeclared)
{
  EXPECT_TRUE(ms::run::kEttr.required);
  EXPECT_FALSE(ms::run::kTokenTarget.required);
  EXPECT_TRUE(ms::run::checkpoints::kJobMtbfS.nullable);
  EXPECT_FALSE(ms::run::checkpoints::kJobMtbfS.optional().required);
  EXPECT_EQ(ms::run::kRecovery.extra, ms::Type::Integer);  // a policy's own counters
  EXPECT_EQ(ms::path({"jobs", "finished"}), "jobs.finished");
}

}  // namespace
