// `fleetsim calibrate` as a user runs it: it fits a hardware file's free parameter on the calibration
// cases that include it and writes the value back with its provenance, and it refuses a validation
// case. The published value here is the step the model gives at a known parameter, so the fit must
// find that parameter again.
#include "fleetsim_process.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;
using ::fleetsim::testing::TempDir;

fleetsim::testing::ProcessOutput fleetsim(const std::string& args)
{
  return fleetsim::testing::run_command("FLEETSIM_CACHE_DIR=off " + std::string(FLEETSIM_BINARY) + " " + args +
                                        " 2>&1");
}

std::string read(const fs::path& p)
{
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A copy of the A100 generation file and its kernel tables, a 22B case on one node that includes it
// (and its stack file, from the source tree), and a case list with that case twice: once for
// calibration, once for validation with the analytic step (inputs that differ: a validation case
// with a calibration case's very inputs is refused).
class CalibrateCli : public ::testing::Test {
protected:
  void SetUp() override
  {
    const fs::path src = fs::path(FLEETSIM_SOURCE_DIR) / "scenarios";
    fs::create_directories(dir_.path() / "hardware");
    fs::copy(src / "hardware/a100_sxm_80gb.yaml", dir_.path() / "hardware/a100.yaml");
    fs::copy(src / "hardware/kernels", dir_.path() / "hardware/kernels", fs::copy_options::recursive);
    std::string scenario = read(src / "validation/korthikanti22_22b.yaml");
    scenario = std::regex_replace(scenario, std::regex("\\.\\./hardware/[a-z0-9_]+\\.yaml"), "hardware/a100.yaml");
    scenario = std::regex_replace(scenario, std::regex(" stacks/"), " " + (src / "validation/stacks/").string());
    std::ofstream(dir_.path() / "case.yaml") << scenario;
  }
  // The case list, with `published` as the calibration case's step time.
  std::string cases(double published, bool same_inputs = false) const
  {
    const std::string common = "    kind: step\n    inputs: case.yaml\n    metric: step_time_s\n    unit: s\n"
                               "    tolerance: 10%\n";
    std::ofstream(dir_.path() / "cases.yaml")
        << "cases:\n  - id: cal-22b\n    title: t\n    source: s\n    role: calibration\n"
        << common << "    published: " << published << "\n"
        << "  - id: val-22b\n    title: t\n    source: s\n" << common << "    published: 1.1\n"
        << (same_inputs ? "" : "    step_model: analytic\n");
    return dir_ / "cases.yaml";
  }
  double step_at(const std::string& overhead) const
  {
    const auto r = fleetsim("step " + dir_ / "case.yaml" + " --set accelerator.gemm.kernel_overhead=" + overhead);
    std::smatch m;
    EXPECT_TRUE(std::regex_search(r.text, m, std::regex("= T_step +([0-9.]+) s"))) << r.text;
    return m.empty() ? 0 : std::stod(m[1]);
  }
  TempDir dir_;
};

TEST_F(CalibrateCli, AFitFindsTheParameterThatGaveThePublishedStepAndWritesItWithItsProvenance)
{
  const double published = step_at("20us");
  ASSERT_GT(published, step_at("0us"));
  const std::string list = cases(published);
  const std::string hw = dir_ / "hardware/a100.yaml";
  const auto r = fleetsim("calibrate " + hw + " --cases " + list + " --fit accelerator.gemm.kernel_overhead=0us:40us");
  ASSERT_EQ(r.code, 0) << r.text;
  const std::string text = read(hw);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(text, m, std::regex("kernel_overhead: ([0-9.]+)us  # FITTED by fleetsim calibrate")))
      << text;
  EXPECT_NEAR(std::stod(m[1]), 20.0, 0.5);
  EXPECT_NE(text.find("# --- calibration"), std::string::npos);
  EXPECT_NE(text.find("#   cal-22b: step_time_s published"), std::string::npos) << text;
  EXPECT_EQ(text.find("val-22b"), std::string::npos) << "a validation case is never in the fit";
  // The file still loads (through the case that includes it), and a second fit replaces the block
  // rather than adding one.
  ASSERT_EQ(fleetsim("validate " + dir_ / "case.yaml").code, 0);
  ASSERT_EQ(fleetsim("calibrate " + hw + " --cases " + list + " --fit accelerator.gemm.kernel_overhead=0us:40us").code,
            0);
  const std::string again = read(hw);
  EXPECT_EQ(again.find("# --- calibration"), again.rfind("# --- calibration"));
}

TEST_F(CalibrateCli, AValidationCaseIsRefusedAndNothingIsWritten)
{
  const std::string list = cases(1.2);
  const std::string hw = dir_ / "hardware/a100.yaml";
  const std::string before = read(hw);
  const auto r = fleetsim("calibrate " + hw + " --cases " + list + " --case val-22b");
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("val-22b is a validation case"), std::string::npos) << r.text;
  EXPECT_EQ(read(hw), before);
  // A parameter the file does not write, or bounds out of the key's range, are bad input too.
  EXPECT_EQ(fleetsim("calibrate " + hw + " --cases " + list + " --fit network.pp_overhead=0us:10us").code, 2);
  EXPECT_EQ(fleetsim("calibrate " + hw + " --cases " + list + " --fit network.overlap_slowdown=0:3").code, 2);
  EXPECT_EQ(read(hw), before);
}

TEST_F(CalibrateCli, ACalibrationCaseWithAValidationCasesInputsIsRefused)
{
  // The same inputs under two roles: a fit on one would be fitted to the other (a relabelled copy of a
  // validation case would otherwise pass every check).
  const std::string list = cases(1.2, /*same_inputs=*/true);
  const std::string hw = dir_ / "hardware/a100.yaml";
  const std::string before = read(hw);
  const auto r = fleetsim("calibrate " + hw + " --cases " + list + " --fit accelerator.gemm.kernel_overhead=0us:40us");
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("calibrate will not fit on cal-22b: val-22b: its resolved inputs equal the calibration "
                        "case cal-22b's"),
            std::string::npos)
      << r.text;
  EXPECT_EQ(read(hw), before);
}

}  // namespace
