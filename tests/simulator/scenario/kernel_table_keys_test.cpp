// accelerator.gemm.table, accelerator.attention.table and model.attention_kernel: the tables are read
// when the scenario loads, relative to the file that names them, and a bad row or an unknown kernel is
// an error at its file and line. No SimGrid.
#include "simulator/scenario/scenario_loader.hpp"

#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace fleetsim::scenario {
namespace {

namespace fs = std::filesystem;

class KernelTableKeys : public ::testing::Test {
protected:
  void SetUp() override
  {
    std::string pattern = (fs::temp_directory_path() / "fleetsim_kernels_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    write("hw/gemm.csv", "# measured\nm,k,n,forward,input_gradient,weight_gradient,source\n"
                         "4096,4096,4096,0.7,0.7,0.6,test\n");
    write("hw/attention.csv", "kernel,pass,causal,head_dim,seq,tflops,source\n"
                              "fa,forward_backward,true,128,4096,150,test\nfb,forward,true,128,4096,300,test\n");
    write("hw/chip.yaml", "accelerator:\n  name: X1\n  peak_flops: 312TFLOPS\n  hbm_bandwidth: 2TB/s\n"
                          "  gemm:\n    max_efficiency: 0.87\n    table: gemm.csv\n    table_scale: 1.07\n"
                          "  attention:\n    table: attention.csv\n"
                          "network:\n  nic_bandwidth: 200Gbps\n  nvlink_bandwidth: 200GB/s\n");
  }
  void TearDown() override
  {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& text) const
  {
    fs::create_directories((dir_ / name).parent_path());
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return (dir_ / name).string();
  }
  LoadResult load(const std::string& extra)
  {
    const std::string path =
        write("case.yaml", "include: hw/chip.yaml\ncluster:\n  gpus: 8\nmodel:\n  parameters: 1e9\n  layers: 8\n"
                           "  hidden: 4096\n  attention_heads: 32\n  kv_heads: 32\n  sequence_length: 4096\n"
                           "  global_batch_tokens: 32768\n  flash_attention: true\n" +
                               extra + "parallelism:\n  tp: 8\n  pp: 1\n  dp: 1\n");
    return load_scenario_file(path);
  }
  fs::path dir_;
};

TEST_F(KernelTableKeys, TablesAreReadRelativeToTheHardwareFileThatNamesThem)
{
  const LoadResult r = load("");
  ASSERT_TRUE(r.scenario.has_value()) << r.diagnostics.to_string();
  const models::GemmCurve& curve = r.scenario->step.accelerator.gemm_curve;
  ASSERT_TRUE(curve.measured_gemms());
  EXPECT_DOUBLE_EQ(curve.table->scale, 1.07);
  EXPECT_DOUBLE_EQ(curve.table->efficiency(models::GemmPass::WeightGradient, 4096, 4096, 4096), 0.6 * 1.07);
  ASSERT_TRUE(curve.attention);
  EXPECT_EQ(curve.attention->kernels().front(), "fa");
}

TEST_F(KernelTableKeys, AnUnknownKernelIsAnErrorAtTheModelKeyNamingTheMeasuredOnes)
{
  const LoadResult r = load("  attention_kernel: fc\n");
  ASSERT_FALSE(r.scenario.has_value());
  const std::string text = r.diagnostics.to_string();
  EXPECT_NE(text.find("case.yaml:13"), std::string::npos) << text;
  EXPECT_NE(text.find("'fc' is not in"), std::string::npos) << text;
  EXPECT_NE(text.find("it measures fa, fb"), std::string::npos) << text;
  EXPECT_TRUE(load("  attention_kernel: fb\n").scenario.has_value());
}

TEST_F(KernelTableKeys, ABadRowIsAnErrorAtItsLineOfTheTable)
{
  write("hw/gemm.csv", "m,k,n,forward,input_gradient,weight_gradient,source\n4096,4096,4096,0.7,0.7,0.6,test\n"
                       "4096,4096,1024,seventy,0.7,0.6,test\n");
  const LoadResult r = load("");
  ASSERT_FALSE(r.scenario.has_value());
  const std::string text = r.diagnostics.to_string();
  EXPECT_NE(text.find("gemm.csv:3:"), std::string::npos) << text;
  EXPECT_NE(text.find("accelerator.gemm.table: forward must be an efficiency"), std::string::npos) << text;
  fs::remove(dir_ / "hw/gemm.csv");
  const std::string missing = load("").diagnostics.to_string();
  EXPECT_NE(missing.find("chip.yaml:7"), std::string::npos) << missing;
  EXPECT_NE(missing.find("cannot read"), std::string::npos) << missing;
}

}  // namespace
}  // namespace fleetsim::scenario
