// `include:` in scenario files: included keys are defaults that the including file, then --set,
// replace; errors inside an included file point into it; cycles and missing files are errors at
// the include line. No SimGrid.
#include "simulator/scenario/scenario_loader.hpp"

#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fleetsim::scenario {
namespace {

namespace fs = std::filesystem;

// A fresh directory of scenario files, removed at the end of the test.
class Files {
public:
  Files()
  {
    std::string pattern = (fs::temp_directory_path() / "fleetsim_include_XXXXXX").string();
    if (mkdtemp(pattern.data()) != nullptr)
      dir_ = pattern;
  }
  ~Files()
  {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  Files(const Files&) = delete;
  Files& operator=(const Files&) = delete;
  std::string write(const std::string& name, const std::string& text) const
  {
    fs::create_directories((dir_ / name).parent_path());
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return (dir_ / name).string();
  }
  [[nodiscard]] std::string path(const std::string& name) const { return (dir_ / name).lexically_normal().string(); }

private:
  fs::path dir_;
};

const ResolvedValue& value_of(const LoadResult& r, const std::string& key)
{
  for (const auto& v : r.resolved)
    if (v.key == key)
      return v;
  static const ResolvedValue none;
  ADD_FAILURE() << "no value for " << key;
  return none;
}

const std::string kHardware =
    "accelerator:\n  name: X1\n  peak_flops: 100TFLOPS\n  gemm_efficiency: 0.5\n"
    "network:\n  nic_bandwidth: 100Gbps\n";

TEST(ScenarioInclude, IncludingFileThenSetOverrideTheIncludedKeys)
{
  Files f;
  f.write("hardware/x1.yaml", kHardware);
  const std::string top = f.write("cases/top.yaml",
                                  "include: ../hardware/x1.yaml\n"
                                  "accelerator:\n  gemm_efficiency: 0.7\n"
                                  "run:\n  step_model: analytic\n");
  const LoadResult r = load_scenario_file(top, {"network.nic_bandwidth=200Gbps"});
  ASSERT_TRUE(r.scenario.has_value()) << r.diagnostics.to_string();
  EXPECT_EQ(value_of(r, "accelerator.name").text, "X1");  // from the include
  EXPECT_TRUE(value_of(r, "accelerator.name").included);
  EXPECT_EQ(value_of(r, "accelerator.name").where.file, f.path("hardware/x1.yaml"));
  EXPECT_EQ(value_of(r, "accelerator.name").where.line, 2);
  EXPECT_EQ(value_of(r, "accelerator.gemm_efficiency").text, "0.7");  // the including file wins
  EXPECT_FALSE(value_of(r, "accelerator.gemm_efficiency").included);
  EXPECT_EQ(value_of(r, "network.nic_bandwidth").text, "200Gbps");  // --set wins over both
  EXPECT_DOUBLE_EQ(r.scenario->step.accelerator.peak_flops.si(), 100e12);
  EXPECT_EQ(r.includes, std::vector<std::string>{f.path("hardware/x1.yaml")});
  // The dump says where each included value came from.
  const std::string dump = dump_resolved(r.resolved);
  EXPECT_NE(dump.find("  name: X1  # " + f.path("hardware/x1.yaml") + ":2\n"), std::string::npos) << dump;
  EXPECT_NE(dump.find("  gemm_efficiency: 0.7\n"), std::string::npos) << dump;
}

TEST(ScenarioInclude, LaterIncludesAndNestedIncludesLayerInOrder)
{
  Files f;
  f.write("base.yaml", "accelerator:\n  name: base\n  memory: 10GB\n");
  f.write("mid.yaml", "include: base.yaml\naccelerator:\n  memory: 20GB\n");
  f.write("other.yaml", "accelerator:\n  power: 300W\n  memory: 30GB\n");
  const std::string top = f.write("top.yaml", "include: [mid.yaml, other.yaml]\nrun:\n  step_model: analytic\n");
  const LoadResult r = load_scenario_file(top);
  ASSERT_TRUE(r.scenario.has_value()) << r.diagnostics.to_string();
  EXPECT_EQ(value_of(r, "accelerator.name").text, "base");
  EXPECT_EQ(value_of(r, "accelerator.memory").text, "30GB");  // the later include wins
  EXPECT_EQ(value_of(r, "accelerator.power").text, "300W");
  EXPECT_EQ(r.includes, (std::vector<std::string>{f.path("mid.yaml"), f.path("base.yaml"), f.path("other.yaml")}));
}

TEST(ScenarioInclude, AnErrorInsideAnIncludedFileIsReportedAtItsOwnFileAndLine)
{
  Files f;
  f.write("hardware/x1.yaml", "accelerator:\n  name: X1\n  peak_flops: 100\n");
  const std::string top = f.write("top.yaml", "include: hardware/x1.yaml\n");
  const LoadResult r = load_scenario_file(top);
  ASSERT_FALSE(r.scenario.has_value());
  ASSERT_EQ(r.diagnostics.items().size(), 1u) << r.diagnostics.to_string();
  const Diagnostic& d = r.diagnostics.items().front();
  EXPECT_EQ(d.where.file, f.path("hardware/x1.yaml"));
  EXPECT_EQ(d.where.line, 3);
  EXPECT_EQ(d.where.column, 15);
  EXPECT_NE(d.message.find("accelerator.peak_flops"), std::string::npos) << d.message;
}

TEST(ScenarioInclude, ACycleIsAnErrorAtTheIncludeThatClosesIt)
{
  Files f;
  f.write("a.yaml", "include: b.yaml\n");
  f.write("b.yaml", "accelerator:\n  name: B\ninclude: a.yaml\n");
  const LoadResult r = load_scenario_file(f.path("a.yaml"));
  ASSERT_FALSE(r.scenario.has_value());
  ASSERT_EQ(r.diagnostics.items().size(), 1u) << r.diagnostics.to_string();
  const Diagnostic& d = r.diagnostics.items().front();
  EXPECT_EQ(d.where.file, f.path("b.yaml"));
  EXPECT_EQ(d.where.line, 3);
  EXPECT_NE(d.message.find("cycle"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find(f.path("a.yaml") + " -> " + f.path("b.yaml") + " -> " + f.path("a.yaml")), std::string::npos)
      << d.message;
  // A file that includes itself too.
  const LoadResult self = load_scenario_file(f.write("self.yaml", "include: self.yaml\n"));
  ASSERT_EQ(self.diagnostics.items().size(), 1u) << self.diagnostics.to_string();
  EXPECT_NE(self.diagnostics.items().front().message.find("cycle"), std::string::npos);
}

TEST(ScenarioInclude, AMissingFileIsAnErrorAtTheIncludeLine)
{
  Files f;
  const std::string top = f.write("top.yaml", "name: t\ninclude:\n  - nowhere.yaml\n");
  const LoadResult r = load_scenario_file(top);
  ASSERT_FALSE(r.scenario.has_value());
  ASSERT_EQ(r.diagnostics.items().size(), 1u) << r.diagnostics.to_string();
  const Diagnostic& d = r.diagnostics.items().front();
  EXPECT_EQ(d.to_string(), top + ":3:5: error: cannot open included scenario file '" + f.path("nowhere.yaml") + "'");
}

TEST(ScenarioInclude, IncludeBelowTheTopLevelOrNotAPathIsAnError)
{
  Files f;
  const LoadResult nested = load_scenario_file(f.write("n.yaml", "accelerator:\n  include: x.yaml\n"));
  ASSERT_EQ(nested.diagnostics.items().size(), 1u) << nested.diagnostics.to_string();
  EXPECT_EQ(nested.diagnostics.items().front().where.line, 2);
  EXPECT_NE(nested.diagnostics.items().front().message.find("top level"), std::string::npos);
  EXPECT_NE(nested.diagnostics.items().front().message.find("accelerator.include"), std::string::npos);
  const LoadResult map = load_scenario_file(f.write("m.yaml", "include: {a: 1}\n"));
  ASSERT_EQ(map.diagnostics.items().size(), 1u) << map.diagnostics.to_string();
  EXPECT_NE(map.diagnostics.items().front().message.find("file path"), std::string::npos);
}

}  // namespace
}  // namespace fleetsim::scenario
