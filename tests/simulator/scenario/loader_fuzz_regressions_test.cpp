// What fuzzing the loader found (docs/hardening.md): each input once crashed, hung, hit undefined
// behaviour or was accepted or reported wrongly, and must now give the right diagnostics. The
// reproducers are in tests/fuzz/corpus/.
#include "simulator/scenario/scenario_loader.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace fleetsim::scenario {
namespace {

LoadResult load(std::string_view yaml, const std::vector<std::string>& overrides = {})
{
  return load_scenario_text(yaml, "f.yaml", overrides);
}

std::string only_error(const LoadResult& r)
{
  EXPECT_FALSE(r.scenario.has_value());
  EXPECT_EQ(r.diagnostics.items().size(), 1u) << r.diagnostics.to_string();
  return r.diagnostics.items().empty() ? std::string() : r.diagnostics.items().front().to_string();
}

// yaml-cpp 0.7's LoadAll loops forever, allocating, on a token no document consumes.
TEST(LoaderFuzzRegressions, ReportsAStrayCommaAsMalformedYamlInsteadOfLooping)
{
  EXPECT_EQ(only_error(load(",")), "f.yaml:1:1: error: malformed YAML: unexpected ',' outside a flow collection");
  EXPECT_EQ(only_error(load("# c\n ,\n")),
            "f.yaml:2:2: error: malformed YAML: unexpected ',' outside a flow collection");
  EXPECT_EQ(only_error(load("{cluster: {gpus: 8}},")),
            "f.yaml:1:21: error: malformed YAML: unexpected ',' outside a flow collection");
}

// A reference to yaml-cpp's iterator->first dangled (ASan: stack-use-after-scope in every walk; the
// sanitized build, tools/test_sanitized.sh, runs this test).
TEST(LoaderFuzzRegressions, ReadsEveryKeyAndValueOfNestedMaps)
{
  const LoadResult r = load("name: n\ncluster: {gpus: 64, gpus_per_node: 8}\nparallelism: {tp: 8, pp: 2, dp: 4}\n");
  ASSERT_TRUE(r.scenario.has_value()) << r.diagnostics.to_string();
  EXPECT_EQ(r.scenario->name, "n");
  EXPECT_EQ(r.scenario->fleet.gpus, 64);
  EXPECT_EQ(r.scenario->step.layout.dp, 4);
}

// Out-of-range numbers were still converted to long: undefined behaviour for 1e300.
TEST(LoaderFuzzRegressions, RejectsAHugeIntegerWithItsRangeInsteadOfOverflowing)
{
  const std::string e = only_error(load("cluster: {gpus: 1e300}\n"));
  EXPECT_EQ(e.rfind("f.yaml:1:17: error: 'cluster.gpus' must be ", 0), 0u) << e;
  EXPECT_NE(e.find("got '1e300'"), std::string::npos) << e;
}

// The product of the torus dimensions overflowed a long.
TEST(LoaderFuzzRegressions, RejectsTorusDimsWhoseProductOverflowsALong)
{
  const std::string e = only_error(
      load("cluster: {gpus: 16384}\nnetwork: {topology: torus, torus_dims: 2147483647x2147483647x2147483647}\n"));
  EXPECT_NE(e.find("torus_dims whose product is cluster.gpus (16384)"), std::string::npos) << e;
}

// tp * cp * pp * dp overflowed a long in the layout check.
TEST(LoaderFuzzRegressions, RejectsALayoutWhoseProductOverflowsALong)
{
  const LoadResult r = load("name: big\n", {"parallelism.tp=1000000", "parallelism.pp=1000000",
                                            "parallelism.cp=1000000", "parallelism.dp=100000000"});
  EXPECT_FALSE(r.scenario.has_value());
  EXPECT_NE(r.diagnostics.to_string().find("tp*cp*pp*dp = 1e+26 does not match the 16384 gpus of the job"),
            std::string::npos)
      << r.diagnostics.to_string();
}

// Found while writing the fuzz seeds (docs/hardening.md, finding 9): an override naming an entry with
// an empty name got a hint that repeated the key itself.
TEST(LoaderFuzzRegressions, ReportsAnEmptyEntryNameInAnOverrideInsteadOfSuggestingTheSameKey)
{
  EXPECT_EQ(only_error(load("name: n\n", {"workload.jobs..gpus=8"})),
            "command line: error: --set: invalid name '' in 'workload.jobs..gpus' (use lower-case letters, digits "
            "and _)");
  EXPECT_EQ(only_error(load("name: n\n", {"failures.causes.NIC.bogus=1"})),
            "command line: error: --set: invalid name 'NIC' in 'failures.causes.NIC.bogus' (use lower-case letters, "
            "digits and _)");
}

// Found while writing the fuzz seeds (docs/hardening.md, finding 10): a trace or carbon path naming a
// directory was read as an empty file, and the error blamed the directory's first line
// ("DIR:1: error: the file is empty", "DIR: error: ... no header") instead of the scenario's key.
TEST(LoaderFuzzRegressions, ReportsATraceOrCarbonPathThatIsADirectoryAtItsKey)
{
  const std::string dir = std::filesystem::temp_directory_path().lexically_normal().string();
  EXPECT_EQ(only_error(load("cluster: {gpus: 64}\nworkload:\n  trace: {file: " + dir + "}\n")),
            "f.yaml:3:17: error: workload.trace.file: '" + dir + "' is a directory, not a CSV file");
  EXPECT_EQ(only_error(load("cluster: {gpus: 64}\nparallelism: {tp: 8, pp: 1, dp: 8}\n",
                            {"power.carbon.intensity=" + dir})),
            "command line: error: power.carbon.intensity: '" + dir + "' is a directory, not a CSV file");
}

// Found while writing the generator seeds (docs/hardening.md, finding 11): strtol and strtod read a
// prefix, so "8x:1" was a gang of 8 GPUs, "1e3:1" one of 1, and an hourly weight "abc" was 0, all
// without a word.
TEST(LoaderFuzzRegressions, RejectsGeneratorNumbersWithTrailingTextInsteadOfReadingTheirPrefix)
{
  const std::string base = "cluster: {gpus: 64}\nworkload:\n  generator: {preset: kalos, jobs: 10, window: 1d}\n";
  for (const char* gpus : {"8x:1", "1e3:1", "8:1x", "8:"}) {
    const std::string e = only_error(load(base, {std::string("workload.generator.gpus=") + gpus}));
    EXPECT_EQ(e, "command line: error: workload.generator.gpus must read \"gpus:weight, ...\" with positive GPUs, got '" +
                     std::string(gpus) + "'");
  }
  EXPECT_EQ(only_error(load(base, {"workload.generator.arrival=trace_shaped",
                                   "workload.generator.hourly_weights=1,1,1,1,1,1,abc,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1"})),
            "command line: error: workload.generator.hourly_weights: 'abc' (hour 6) is not a number");
  const LoadResult ok = load(base, {"workload.generator.gpus=1:0.5, 8:0.25, 64:.25"});
  ASSERT_TRUE(ok.scenario.has_value()) << ok.diagnostics.to_string();
  ASSERT_EQ(ok.scenario->workload.generator->gpus.size(), 3u);
  EXPECT_EQ(ok.scenario->workload.generator->gpus[2].gpus, 64);
}

// did_you_mean stops computing a distance once it cannot beat the best so far (it took 70 % of
// fuzz_overrides' time); what it suggests is the same: the first closest candidate, within
// max(2, length / 3) edits.
TEST(LoaderFuzzRegressions, DidYouMeanSuggestsTheFirstClosestKeyWithinItsBound)
{
  const std::vector<std::string> keys = {"cluster.gpus", "cluster.gpus_per_node", "run.seed", "run.sed"};
  EXPECT_EQ(did_you_mean("cluster.gpu", keys), "cluster.gpus");
  EXPECT_EQ(did_you_mean("cluster.gpus_per_nod", keys), "cluster.gpus_per_node");
  EXPECT_EQ(did_you_mean("run.sxed", keys), "run.seed");  // 1 edit from both: the first wins
  EXPECT_EQ(did_you_mean("ab", {"abcd", "abcde"}), "abcd");  // 2 edits: within max(2, 0) for a short word
  EXPECT_EQ(did_you_mean("ab", {"abcde"}), "");              // 3 edits: too far
  EXPECT_EQ(did_you_mean("abcdefghi", {"abcxyzghi", "abcdxyghi"}), "abcdxyghi");  // 3 > 2 edits: the closer one
  EXPECT_EQ(did_you_mean(std::string(5000, 'x') + "cluster.gpus", keys), "");
  EXPECT_EQ(did_you_mean("", keys), "");
}

}  // namespace
}  // namespace fleetsim::scenario
