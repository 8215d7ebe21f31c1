// Unit tests of the scenario loader: YAML text -> diagnostics or a validated Scenario. No SimGrid.
#include "simulator/scenario/scenario_loader.hpp"
#include "simulator/scenario/parameter_table.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <numeric>
#include <string>
#include <vector>

namespace fleetsim::scenario {
namespace {

const std::string kLlama3 = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/llama3_405b_16k.yaml";

LoadResult load(std::string_view yaml, const std::vector<std::string>& overrides = {})
{
  return load_scenario_text(yaml, "test.yaml", overrides);
}

// The single diagnostic of a result that must have exactly one.
Diagnostic only_error(const LoadResult& r)
{
  EXPECT_EQ(r.diagnostics.items().size(), 1u) << r.diagnostics.to_string();
  EXPECT_FALSE(r.scenario.has_value());
  return r.diagnostics.items().empty() ? Diagnostic{} : r.diagnostics.items().front();
}

const ResolvedValue* resolved(const LoadResult& r, const std::string& key)
{
  for (const auto& v : r.resolved)
    if (v.key == key)
      return &v;
  return nullptr;
}

const models::FailureCause* cause(const Scenario& s, const std::string& name)
{
  for (const auto& c : s.causes)
    if (c.name == name)
      return &c;
  return nullptr;
}

double total_count(const Scenario& s)
{
  return std::accumulate(s.causes.begin(), s.causes.end(), 0.0,
                         [](double acc, const models::FailureCause& c) { return acc + c.count.value_or(0); });
}

// ---- the shipped scenario -------------------------------------------------------------------------

TEST(ScenarioLoader, AWholeCheckpointSizeGivesEachGpuItsShareAtAnyClusterSize)
{
  for (const auto& [gpus, dp] :
       std::vector<std::pair<std::string, std::string>>{{"1024", "8"}, {"16384", "128"}, {"65536", "512"}}) {
    const auto r = load_scenario_file(kLlama3,
                                      {"cluster.gpus=" + gpus, "parallelism.dp=" + dp, "run.step_model=analytic",
                                       "parallelism.virtual_stages=1", "checkpoint.state_total=5734400MB"});
    ASSERT_TRUE(r.scenario.has_value()) << r.diagnostics.to_string();
    EXPECT_DOUBLE_EQ(r.scenario->checkpoint_bytes().si(), 5734400e6) << gpus << " GPUs";
    EXPECT_DOUBLE_EQ(r.scenario->checkpoint.state_per_gpu.si(), 5734400e6 / std::stod(gpus));
  }
  // Without it, state_per_gpu (350 MB in the Llama 3 scenario) grows the checkpoint with the cluster.
  const auto plain = load_scenario_file(
      kLlama3, {"cluster.gpus=1024", "parallelism.dp=8", "run.step_model=analytic", "parallelism.virtual_stages=1"});
  ASSERT_TRUE(plain.scenario.has_value()) << plain.diagnostics.to_string();
  EXPECT_DOUBLE_EQ(plain.scenario->checkpoint_bytes().si(), 350e6 * 1024);
}

TEST(ScenarioLoader, LoadsLlama3With18CausesTotalling419AndAConsistentLayout)
{
  const LoadResult r = load_scenario_file(kLlama3);
  ASSERT_TRUE(r.diagnostics.empty()) << r.diagnostics.to_string();
  ASSERT_TRUE(r.scenario.has_value());
  const Scenario& s = *r.scenario;
  EXPECT_EQ(s.name, "llama3_405b_16k");
  EXPECT_EQ(s.source, kLlama3);
  EXPECT_EQ(s.causes.size(), 18u);
  EXPECT_DOUBLE_EQ(total_count(s), 419.0);
  EXPECT_EQ(s.fleet.gpus, 16384);
  EXPECT_EQ(static_cast<long>(s.step.layout.tp) * s.step.layout.pp * s.step.layout.dp, s.fleet.gpus);
  EXPECT_EQ(s.step.layout.virtual_stages, 8);  // one layer per chunk: 16 x 8 - 2 = 126 ([L3] 3.3.2)
  EXPECT_TRUE(s.step.layout.embedding_chunks);
  ASSERT_FALSE(s.causes.empty());
  EXPECT_EQ(s.causes.front().name, "faulty_gpu");  // file order is kept
  EXPECT_EQ(s.causes.back().name, "system_memory");
}

TEST(ScenarioLoader, ConvertsQuantitiesToSiUnitsWhenLoadingLlama3)
{
  const LoadResult r = load_scenario_file(kLlama3);
  ASSERT_TRUE(r.scenario.has_value()) << r.diagnostics.to_string();
  const Scenario& s = *r.scenario;
  EXPECT_DOUBLE_EQ(s.checkpoint.interval.si(), 600.0);           // 10min
  EXPECT_DOUBLE_EQ(s.step.fabric.nic_bandwidth.si(), 5e10);      // 400Gbps, bits -> bytes
  EXPECT_DOUBLE_EQ(s.step.fabric.nvlink_bandwidth.si(), 370e9);  // 370GB/s, from the included H100 file
  EXPECT_DOUBLE_EQ(s.storage.read_bandwidth.si(), 7e12);         // 7TB/s
  EXPECT_DOUBLE_EQ(s.step.accelerator.peak_flops.si(), 989e12);  // 989TFLOPS
  EXPECT_DOUBLE_EQ(s.checkpoint.state_per_gpu.si(), 350e6);      // 350MB
  EXPECT_DOUBLE_EQ(s.duration.si(), 54 * 86400.0);               // 54d
  EXPECT_DOUBLE_EQ(s.recovery.detection.si(), 120.0);            // 2min
  const auto* nccl = cause(s, "nccl_watchdog_timeouts");
  ASSERT_NE(nccl, nullptr);
  ASSERT_TRUE(nccl->detection.has_value());
  EXPECT_DOUBLE_EQ(nccl->detection->si(), 600.0);
  EXPECT_EQ(nccl->scope, models::Scope::Job);
  const auto* gpu = cause(s, "faulty_gpu");
  ASSERT_NE(gpu, nullptr);
  EXPECT_FALSE(gpu->detection.has_value());
  EXPECT_EQ(gpu->category, "GPU");
}

// ---- diagnostics: format and location -----------------------------------------------------------

std::string formatted(const std::string& file, int line, int column)
{
  Diagnostics diags;
  diags.error(SourceLocation{file, line, column}, "boom");
  return diags.to_string();
}

TEST(Diagnostic, FormatsAsFileLineColumnErrorMessage)
{
  EXPECT_EQ(formatted("a.yaml", 3, 7), "a.yaml:3:7: error: boom\n");
  EXPECT_EQ(formatted("a.yaml", 3, 0), "a.yaml:3: error: boom\n");
  EXPECT_EQ(formatted("command line", 0, 0), "command line: error: boom\n");
}

TEST(ScenarioLoader, WritesMessagesInLowerCaseWithoutFinalPeriod)
{
  const std::vector<std::string> bad = {"cluster: {gpu: 8}",
                                        "checkpoint: {interval: 10}",
                                        "cluster: {gpus: lots}",
                                        "planned: {arrival: weekly}",
                                        "storage: {write_bandwidth: -2TB/s}",
                                        "cluster: [1",
                                        "failures: {causes: {x: {category: GPU}}}",
                                        "cluster: {gpus: 8}",
                                        "cluster: 3"};
  for (const auto& yaml : bad) {
    const LoadResult r = load(yaml);
    ASSERT_FALSE(r.diagnostics.empty()) << yaml;
    for (const auto& d : r.diagnostics.items()) {
      ASSERT_FALSE(d.message.empty());
      EXPECT_FALSE(std::isupper(static_cast<unsigned char>(d.message.front()))) << d.message;
      EXPECT_NE(d.message.back(), '.') << d.message;
      EXPECT_EQ(d.message.find('\n'), std::string::npos) << d.message;
      EXPECT_EQ(d.to_string().rfind("test.yaml:", 0), 0u) << d.to_string();
    }
  }
}

TEST(ScenarioLoader, ReportsMissingUnitAtTheValueWhenQuantityIsABareNumber)
{
  const Diagnostic d = only_error(load("name: x\ncheckpoint:\n  interval: 10\n"));
  EXPECT_EQ(d.where.file, "test.yaml");
  EXPECT_EQ(d.where.line, 3);
  EXPECT_EQ(d.where.column, 13);
  EXPECT_NE(d.message.find("'checkpoint.interval'"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("no unit"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("min"), std::string::npos) << d.message;  // lists the accepted units
  EXPECT_EQ(d.to_string().rfind("test.yaml:3:13: error: 'checkpoint.interval': ", 0), 0u) << d.to_string();
}

TEST(ScenarioLoader, SuggestsClusterGpusWhenNestedKeyIsMisspelt)
{
  const Diagnostic d = only_error(load("cluster: {gpu: 8}\n"));
  EXPECT_EQ(d.message, "unknown key 'cluster.gpu' (did you mean 'cluster.gpus'?)");
  EXPECT_EQ(d.where.line, 1);
  EXPECT_EQ(d.where.column, 11);
}

TEST(ScenarioLoader, SuggestsCheckpointWhenTopLevelKeyIsMisspelt)
{
  const Diagnostic d = only_error(load("name: x\ncheckpont:\n  interval: 10min\n"));
  EXPECT_EQ(d.message, "unknown key 'checkpont' (did you mean 'checkpoint'?)");
  EXPECT_EQ(d.where.line, 2);
  EXPECT_EQ(d.where.column, 1);
}

TEST(ScenarioLoader, GivesNoHintWhenUnknownKeyIsFarFromEveryName)
{
  const Diagnostic d = only_error(load("xylophone_quartet: 3\n"));
  EXPECT_EQ(d.message, "unknown key 'xylophone_quartet'");
}

TEST(ScenarioLoader, SuggestsCauseFieldWhenCauseKeyIsMisspelt)
{
  const Diagnostic d = only_error(load("failures:\n  causes:\n    nic: {cuont: 3}\n"));
  EXPECT_EQ(d.message, "unknown key 'failures.causes.nic.cuont' (did you mean 'failures.causes.nic.count'?)");
  EXPECT_EQ(d.where.line, 3);
}

// ---- wrong type and out of range ----------------------------------------------------------------

TEST(ScenarioLoader, RejectsWordWhenIntegerIsExpected)
{
  const Diagnostic d = only_error(load("cluster:\n  gpus: lots\n"));
  EXPECT_EQ(d.message, "'cluster.gpus' expects an integer, got 'lots'");
  EXPECT_EQ(d.where.line, 2);
  EXPECT_EQ(d.where.column, 9);
  EXPECT_EQ(only_error(load("cluster: {gpus: 8.5}")).message, "'cluster.gpus' expects an integer, got '8.5'");
}

TEST(ScenarioLoader, RejectsMaybeWhenBooleanIsExpected)
{
  const Diagnostic d = only_error(load("planned:\n  checkpoint_before: maybe\n"));
  EXPECT_EQ(d.message, "'planned.checkpoint_before' expects true or false, got 'maybe'");
  EXPECT_EQ(d.where.line, 2);
  EXPECT_EQ(d.where.column, 22);
}

TEST(ScenarioLoader, ListsChoicesWhenEnumValueIsUnknown)
{
  const Diagnostic d = only_error(load("planned:\n  arrival: weekly\n"));
  EXPECT_NE(d.message.find("'planned.arrival'"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("uniform"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("poisson"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("'weekly'"), std::string::npos) << d.message;
  EXPECT_EQ(d.where.line, 2);
}

TEST(ScenarioLoader, RejectsNegativeBandwidth)
{
  const Diagnostic d = only_error(load("storage:\n  write_bandwidth: -2TB/s\n"));
  EXPECT_NE(d.message.find("'storage.write_bandwidth' must be > 0"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("'-2TB/s'"), std::string::npos) << d.message;
  EXPECT_EQ(d.where.line, 2);
  EXPECT_EQ(d.where.column, 20);
}

TEST(ScenarioLoader, RejectsGemmEfficiencyAboveOne)
{
  const Diagnostic d = only_error(load("accelerator:\n  gemm_efficiency: 1.5\n"));
  EXPECT_NE(d.message.find("'accelerator.gemm_efficiency' must be"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("<= 1"), std::string::npos) << d.message;
  EXPECT_EQ(d.where.line, 2);
  const LoadResult one = load("accelerator: {gemm_efficiency: 1}");  // the bound itself is valid
  EXPECT_TRUE(one.scenario.has_value()) << one.diagnostics.to_string();
}

TEST(ScenarioLoader, RejectsZeroGpus)
{
  const Diagnostic d = only_error(load("cluster:\n  gpus: 0\n"));
  EXPECT_EQ(d.message, "'cluster.gpus' must be >= 1, <= 1e+08, got '0'");
  EXPECT_EQ(d.where.line, 2);
}

// ---- malformed YAML and multiple errors --------------------------------------------------------

TEST(ScenarioLoader, GivesOneLocatedDiagnosticWhenYamlIsMalformed)
{
  const LoadResult r = load("name: x\ncluster: {gpus: 8\nrun:\n  duration: 1d\n");
  const Diagnostic d = only_error(r);
  EXPECT_GT(d.where.line, 1);
  EXPECT_EQ(d.message.rfind("malformed YAML: ", 0), 0u) << d.message;
  EXPECT_TRUE(r.resolved.empty());
}

TEST(ScenarioLoader, RejectsListWhenDocumentIsNotAMap)
{
  EXPECT_EQ(only_error(load("- a\n- b\n")).message, "a scenario must be a map of keys");
}

TEST(ScenarioLoader, RejectsNullWhenDocumentIsNotAMap)
{
  const Diagnostic d = only_error(load("# a comment\n~\n"));
  EXPECT_EQ(d.to_string(), "test.yaml:2:1: error: a scenario must be a map of keys");
}

// An empty file would otherwise run the table's defaults: a 16,384-GPU Llama 3 job nobody asked for.
TEST(ScenarioLoader, RejectsFileWhenItIsEmpty)
{
  EXPECT_EQ(only_error(load("")).to_string(), "test.yaml:1:1: error: scenario file is empty");
}

TEST(ScenarioLoader, RejectsFileWhenItHoldsOnlyCommentsAndBlankLines)
{
  EXPECT_EQ(only_error(load("# nothing yet\n\n   # indented comment\r\n\t\n")).to_string(),
            "test.yaml:1:1: error: scenario file is empty");
  EXPECT_EQ(only_error(load("\xEF\xBB\xBF%YAML 1.2\n---  # only a document marker\n...\n")).to_string(),
            "test.yaml:1:1: error: scenario file is empty");
}

TEST(ScenarioLoader, ReportsOnlyTheEmptyFileWhenOverridesAreGivenToo)
{
  const Diagnostic d = only_error(load("# empty\n", {"cluster.gpus=8", "bogus"}));
  EXPECT_EQ(d.message, "scenario file is empty");
}

TEST(ScenarioLoader, ReportsEveryValueErrorWhenFileHasSeveral)
{
  const LoadResult r = load(
      "cluster:\n  gpus: lots\n"                // 2
      "accelerator:\n  gemm_efficiency: 1.5\n"  // 4
      "checkpoint:\n  interval: 10\n"           // 6
      "planned:\n  arrival: weekly\n");         // 8
  ASSERT_EQ(r.diagnostics.items().size(), 4u) << r.diagnostics.to_string();
  std::vector<int> lines;
  for (const auto& d : r.diagnostics.items())
    lines.push_back(d.where.line);
  EXPECT_EQ(lines, (std::vector<int>{2, 4, 6, 8}));
  EXPECT_FALSE(r.scenario.has_value());
}

TEST(ScenarioLoader, ReportsEveryStructuralErrorWhenFileHasSeveral)
{
  const LoadResult r = load("checkpont: {interval: 1h}\ncluster: {gpu: 8}\nnetwork: 3\nrun: {seed: [1]}\n");
  ASSERT_EQ(r.diagnostics.items().size(), 4u) << r.diagnostics.to_string();
  EXPECT_NE(r.diagnostics.items()[2].message.find("'network' is a section"), std::string::npos);
  EXPECT_NE(r.diagnostics.items()[3].message.find("'run.seed' expects a single value"), std::string::npos);
}

// Structural errors (unknown keys) do not hide value errors: all are reported in one pass.
TEST(ScenarioLoader, ReportsValueErrorsAlongsideUnknownKeys)
{
  const LoadResult r = load("cluster:\n  gpu: 8\ncheckpoint:\n  interval: 10\n");
  EXPECT_EQ(r.diagnostics.items().size(), 2u) << r.diagnostics.to_string();
}

// ---- failure causes and cross-key rules ---------------------------------------------------------

TEST(ScenarioLoader, RejectsCauseWithNeitherCountNorMtbf)
{
  const Diagnostic d = only_error(load("failures:\n  causes:\n    psu: {category: Host, scope: node}\n"));
  EXPECT_EQ(d.message, "failure cause 'psu' needs a rate: count (over the reference window) or mtbf");
  EXPECT_EQ(d.where.line, 3);  // at the scope given for the cause
}

TEST(ScenarioLoader, RejectsCauseWithBothCountAndMtbfAtTheMtbf)
{
  const Diagnostic d = only_error(load("failures:\n  causes:\n    psu:\n      count: 3\n      mtbf: 1000h\n"));
  EXPECT_EQ(d.message, "failure cause 'psu' gives both count and mtbf; keep one");
  EXPECT_EQ(d.where.line, 5);
}

TEST(ScenarioLoader, LoadsMtbfCauseInSeconds)
{
  const LoadResult r = load("failures: {causes: {psu: {mtbf: 1000h, scope: node}}}");
  ASSERT_TRUE(r.scenario.has_value()) << r.diagnostics.to_string();
  ASSERT_EQ(r.scenario->causes.size(), 1u);
  EXPECT_FALSE(r.scenario->causes[0].count.has_value());
  EXPECT_DOUBLE_EQ(r.scenario->causes[0].component_mtbf->si(), 3.6e6);
  EXPECT_EQ(r.scenario->causes[0].scope, models::Scope::Node);
}

TEST(ScenarioLoader, RejectsCauseNameWithUpperCase)
{
  const Diagnostic d = only_error(load("failures:\n  causes:\n    BadName: {count: 1}\n"));
  EXPECT_NE(d.message.find("invalid name 'BadName'"), std::string::npos) << d.message;
  EXPECT_EQ(d.where.line, 3);
}

TEST(ScenarioLoader, RejectsLayoutWhoseProductDiffersFromGpus)
{
  const Diagnostic d = only_error(load("cluster: {gpus: 8}\n"));  // default layout is 8 x 16 x 128
  EXPECT_EQ(d.message, "tp*pp*dp = 16384 does not match the 8 gpus of the job");
}

TEST(ScenarioLoader, AcceptsSmallLayoutWhenProductMatchesGpus)
{
  const LoadResult r = load("cluster: {gpus: 8}\nparallelism: {tp: 8, pp: 1, dp: 1}\n");
  ASSERT_TRUE(r.scenario.has_value()) << r.diagnostics.to_string();
  EXPECT_EQ(r.scenario->fleet.gpus, 8);
}

// Errors that involve several keys point at a key the user wrote, not at a defaulted one.
TEST(ScenarioLoader, LocatesCrossKeyErrorsInTheFileWhenTheyInvolveDefaults)
{
  EXPECT_GT(only_error(load("failures:\n  causes:\n    psu: {category: Host}\n")).where.line, 0);
  EXPECT_GT(only_error(load("name: x\ncluster: {gpus: 8}\n")).where.line, 0);
}

// ---- overrides (--set) ---------------------------------------------------------------------------

TEST(ScenarioLoader, AppliesOverridesOnTopOfTheFile)
{
  const LoadResult r = load_scenario_file(
      kLlama3, {"checkpoint.interval=25min", "failures.causes.nic.count=14", "failures.causes.cosmic_ray.count=3"});
  ASSERT_TRUE(r.scenario.has_value()) << r.diagnostics.to_string();
  const Scenario& s = *r.scenario;
  EXPECT_DOUBLE_EQ(s.checkpoint.interval.si(), 1500.0);
  ASSERT_EQ(s.causes.size(), 19u);
  EXPECT_DOUBLE_EQ(cause(s, "nic")->count.value_or(-1), 14.0);
  EXPECT_EQ(cause(s, "nic")->category, "Host");  // the rest of the cause is kept
  EXPECT_EQ(s.causes.back().name, "cosmic_ray");
  EXPECT_DOUBLE_EQ(s.causes.back().count.value_or(-1), 3.0);
  EXPECT_EQ(s.causes.back().scope, models::Scope::Gpu);  // default scope
  EXPECT_DOUBLE_EQ(total_count(s), 419.0 - 7 + 14 + 3);
  const ResolvedValue* v = resolved(r, "checkpoint.interval");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->text, "25min");
  EXPECT_EQ(v->where.file, "command line");
  EXPECT_FALSE(v->is_default);
}

TEST(ScenarioLoader, SuggestsKeyWhenOverrideKeyIsUnknown)
{
  const Diagnostic d = only_error(load("{}", {"cluster.gpu=8"}));
  EXPECT_EQ(d.to_string(), "command line: error: --set: unknown key 'cluster.gpu' (did you mean 'cluster.gpus'?)");
}

TEST(ScenarioLoader, RejectsOverrideWithoutEqualsSign)
{
  const Diagnostic d = only_error(load("{}", {"cluster.gpus"}));
  EXPECT_EQ(d.message, "--set 'cluster.gpus' is not of the form key=value");
  EXPECT_EQ(only_error(load("{}", {"=8"})).message, "--set '=8' is not of the form key=value");
}

TEST(ScenarioLoader, ChecksOverrideValuesLikeFileValues)
{
  const Diagnostic d = only_error(load("{}", {"checkpoint.interval=10"}));
  EXPECT_EQ(d.where.file, "command line");
  EXPECT_NE(d.message.find("no unit"), std::string::npos) << d.message;
}

// --set applies the same cause-name rule as the YAML walk.
TEST(ScenarioLoader, RejectsUpperCaseCauseNameInOverride)
{
  EXPECT_FALSE(load("{}", {"failures.causes.NIC.count=3"}).diagnostics.empty());
}

// ---- defaults and dump_resolved ------------------------------------------------------------------

TEST(ScenarioLoader, UsesTableDefaultsWhenDocumentIsAnEmptyMap)
{
  const LoadResult r = load("{}");
  ASSERT_TRUE(r.scenario.has_value()) << r.diagnostics.to_string();
  const Scenario& s = *r.scenario;
  EXPECT_EQ(s.name, "unnamed");
  EXPECT_EQ(s.fleet.gpus, 16384);
  EXPECT_DOUBLE_EQ(s.checkpoint.interval.si(), 1800.0);
  EXPECT_DOUBLE_EQ(s.duration.si(), 54 * 86400.0);
  EXPECT_TRUE(s.causes.empty());
  size_t with_default = 0;
  for (const auto& p : parameter_table())
    with_default += (p.default_value && p.key.find("<name>") == std::string::npos) ? 1 : 0;
  EXPECT_EQ(r.resolved.size(), with_default);
  for (const auto& v : r.resolved) {
    EXPECT_TRUE(v.is_default) << v.key;
    EXPECT_EQ(v.text, *find_param(v.key)->default_value) << v.key;
  }
}

TEST(ScenarioLoader, MarksOnlyMissingKeysAsDefaults)
{
  const LoadResult r = load("recovery:\n  restart: 7min\nfailures: {causes: {nic: {count: 2}}}\n");
  ASSERT_TRUE(r.scenario.has_value()) << r.diagnostics.to_string();
  const ResolvedValue* given = resolved(r, "recovery.restart");
  ASSERT_NE(given, nullptr);
  EXPECT_FALSE(given->is_default);
  EXPECT_EQ(given->where.line, 2);
  EXPECT_EQ(given->where.column, 12);
  ASSERT_NE(resolved(r, "recovery.warmup"), nullptr);
  EXPECT_TRUE(resolved(r, "recovery.warmup")->is_default);
  EXPECT_EQ(resolved(r, "recovery.warmup")->text, "0s");
  ASSERT_NE(resolved(r, "failures.causes.nic.scope"), nullptr);
  EXPECT_TRUE(resolved(r, "failures.causes.nic.scope")->is_default);
  EXPECT_EQ(resolved(r, "failures.causes.nic.mtbf"), nullptr);  // optional keys have no default
  EXPECT_DOUBLE_EQ(r.scenario->recovery.restart.si(), 420.0);
}

TEST(ScenarioLoader, DumpsDefaultsWithAComment)
{
  const std::string dump = dump_resolved(load("recovery: {restart: 7min}").resolved);
  EXPECT_NE(dump.find("recovery:\n  detection: 5min  # default\n  restart: 7min\n  warmup: 0s  # default\n"),
            std::string::npos)
      << dump;
  EXPECT_EQ(dump.rfind("name: unnamed  # default\n", 0), 0u) << dump;
}

TEST(ScenarioLoader, ReloadsDumpedLlama3ToAnEquivalentScenario)
{
  const LoadResult first = load_scenario_file(kLlama3, {"failures.causes.cosmic_ray.mtbf=1000h"});
  ASSERT_TRUE(first.scenario.has_value()) << first.diagnostics.to_string();
  const LoadResult again = load_scenario_text(dump_resolved(first.resolved, &*first.scenario), "dump.yaml");
  ASSERT_TRUE(again.scenario.has_value()) << again.diagnostics.to_string();
  const Scenario& a = *first.scenario;
  const Scenario& b = *again.scenario;
  EXPECT_EQ(b.name, a.name);
  EXPECT_EQ(b.description, a.description);
  EXPECT_EQ(b.fleet.gpus, a.fleet.gpus);
  EXPECT_EQ(b.step.layout.virtual_stages, a.step.layout.virtual_stages);
  EXPECT_DOUBLE_EQ(b.checkpoint.interval.si(), a.checkpoint.interval.si());
  EXPECT_DOUBLE_EQ(b.step.fabric.nic_bandwidth.si(), a.step.fabric.nic_bandwidth.si());
  EXPECT_DOUBLE_EQ(b.storage.read_bandwidth.si(), a.storage.read_bandwidth.si());
  EXPECT_EQ(b.planned.checkpoint_before, a.planned.checkpoint_before);
  EXPECT_DOUBLE_EQ(b.planned.count, a.planned.count);
  ASSERT_EQ(b.causes.size(), a.causes.size());
  for (size_t i = 0; i < a.causes.size(); ++i) {
    EXPECT_EQ(b.causes[i].name, a.causes[i].name);
    EXPECT_EQ(b.causes[i].category, a.causes[i].category);
    EXPECT_EQ(b.causes[i].scope, a.causes[i].scope);
    EXPECT_EQ(b.causes[i].count, a.causes[i].count) << a.causes[i].name;
    EXPECT_EQ(b.causes[i].component_mtbf.has_value(), a.causes[i].component_mtbf.has_value());
    EXPECT_EQ(b.causes[i].detection.has_value(), a.causes[i].detection.has_value());
  }
  EXPECT_EQ(b.causes.back().name, "cosmic_ray");
  // The dump is a fixed point: the reloaded scenario dumps to the same values, less the marks of where
  // a value came from (a default, or a line of an included file: the dump includes nothing). The keys
  // this run does not read are comments in both (the reload has them as defaults).
  auto values = [](const std::string& dump, bool unmark) {
    std::string out;
    std::istringstream lines(dump);
    for (std::string line; std::getline(lines, line);) {
      if (line.find_first_not_of(' ') != std::string::npos && line[line.find_first_not_of(' ')] == '#')
        continue;
      if (const size_t mark = line.find("  # "); unmark && mark != std::string::npos)
        line.erase(mark);
      out += line + "\n";
    }
    return out;
  };
  const std::string dumped = dump_resolved(first.resolved, &*first.scenario);
  EXPECT_NE(dumped.find("# dp_overlap: 0.8  # "), std::string::npos) << dumped;  // the simulated step's
  EXPECT_EQ(values(dump_resolved(again.resolved, &*again.scenario), false), values(dumped, true));
}

TEST(ScenarioLoader, QuotesStringsThatYamlWouldOtherwiseMisread)
{
  const LoadResult first = load("name: \"a: b # c\"\ndescription: \"~\"\n");
  ASSERT_TRUE(first.scenario.has_value()) << first.diagnostics.to_string();
  const LoadResult again = load(dump_resolved(first.resolved, &*first.scenario));
  ASSERT_TRUE(again.scenario.has_value()) << again.diagnostics.to_string();
  EXPECT_EQ(again.scenario->name, "a: b # c");
  EXPECT_EQ(again.scenario->description, "~");
}

// ---- files ------------------------------------------------------------------------------------------

TEST(ScenarioLoader, ReportsCannotOpenWhenFileIsMissing)
{
  const std::string path = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/no_such_scenario.yaml";
  const LoadResult r = load_scenario_file(path);
  EXPECT_FALSE(r.scenario.has_value());
  EXPECT_EQ(r.diagnostics.to_string(), path + ": error: cannot open scenario file\n");
}

// A directory is not an empty scenario: std::ifstream opens one without complaint.
TEST(ScenarioLoader, RejectsDirectoryGivenAsScenarioFile)
{
  const LoadResult r = load_scenario_file(std::string(FLEETSIM_SOURCE_DIR) + "/scenarios");
  EXPECT_FALSE(r.scenario.has_value());
  EXPECT_EQ(r.diagnostics.items().size(), 1u);
}

// YAML requires unique keys; a duplicate is an error at the second one (not first-one-wins).
TEST(ScenarioLoader, RejectsDuplicateKey)
{
  const Diagnostic d = only_error(load("cluster:\n  gpus: 8\n  gpus: 16\n"));
  EXPECT_EQ(d.where.line, 3);
}

}  // namespace
}  // namespace fleetsim::scenario
