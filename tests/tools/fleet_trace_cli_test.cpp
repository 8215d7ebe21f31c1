// Job traces through the scenario and the binary: a trace in AcmeTrace's column layout loads without
// editing and runs; a malformed one stops with file:line: error and exit code 2, and writes nothing.
#include "fleetsim_process.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace {

using fleetsim::testing::fleetsim_command;
using fleetsim::testing::read_file;
using fleetsim::testing::TempDir;

// A scenario next to its trace, trace.csv.
std::string write_case(const TempDir& dir, const std::string& trace, const std::string& extra = "")
{
  dir.write("trace.csv", trace);
  return dir.write("fleet.yaml",
                   "name: trace_case\n"
                   "cluster: {gpus: 32, gpus_per_node: 8, gpus_per_rack: 16}\n"
                   "workload:\n"
                   "  trace: {file: trace.csv, preset: acme" +
                       extra +
                       "}\n"
                       "scheduler: {policy: fifo}\n"
                       "run: {duration: 1d, step_model: analytic}\n");
}

const std::string kHeader = "job_id,user,node_num,gpu_num,submit_time,start_time,end_time,duration,state\n";

}  // namespace

TEST(FleetTraceCli, AnAcmeTraceLoadsWithoutEditingAndRuns)
{
  TempDir dir;
  const std::string scenario = write_case(dir, kHeader +
                                                   "j1,u1,1,8,2023-05-01 08:00:00,2023-05-01 08:00:10,2023-05-01 "
                                                   "09:00:10,3600,COMPLETED\n"
                                                   "cpu,u2,1,0,2023-05-01 08:01:00,2023-05-01 08:01:00,2023-05-01 "
                                                   "08:02:00,60,COMPLETED\n"
                                                   "j2,u1,4,32,2023-05-01 08:30:00,2023-05-01 09:00:10,2023-05-01 "
                                                   "09:30:10,1800,FAILED\n");
  const auto r = fleetsim_command("run " + scenario + " --quiet --out " + (dir / "out"));
  ASSERT_EQ(r.code, 0) << r.text;
  const std::string jobs = read_file(dir / "out/jobs.csv");
  // j1 submits at t = 0 and runs 1 h on 8 GPUs; j2 (32 GPUs) submits 30 min later and waits for it.
  EXPECT_NE(jobs.find("\nj1,u1,0.000,0.000,3600.000,0.000,8,8,"), std::string::npos) << jobs;
  EXPECT_NE(jobs.find("\nj2,u1,1800.000,3600.000,5400.000,1800.000,32,32,"), std::string::npos) << jobs;
  EXPECT_EQ(jobs.find("\ncpu,"), std::string::npos) << "a job without GPUs is skipped";
  const auto summary = nlohmann::json::parse(read_file(dir / "out/summary.json"));
  EXPECT_EQ(summary["jobs"]["finished"], 2);
}

TEST(FleetTraceCli, AMissingColumnNamesItAndTheFieldAndExitsWith2)
{
  TempDir dir;
  const std::string scenario = write_case(dir, "job_id,user,node_num,submit_time,duration\nj1,u1,1,0,60\n",
                                          ", time_unit: 1s");
  const auto r = fleetsim_command("run " + scenario + " --quiet --out " + (dir / "out"));
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("trace.csv:1: error:"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("gpu_num"), std::string::npos) << r.text;
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
}

TEST(FleetTraceCli, ABadTimeAndNegativeGpusAreErrorsAtTheirLines)
{
  TempDir dir;
  const std::string scenario = write_case(dir, kHeader +
                                                   "j1,u1,1,8,2023-05-01 08:00:00,2023-05-01 08:00:00,2023-05-01 "
                                                   "09:00:00,3600,COMPLETED\n"
                                                   "j2,u1,1,8,yesterday,2023-05-01 08:00:00,2023-05-01 "
                                                   "09:00:00,3600,COMPLETED\n"
                                                   "j3,u1,1,-4,2023-05-01 08:00:00,2023-05-01 08:00:00,2023-05-01 "
                                                   "09:00:00,3600,COMPLETED\n");
  const auto r = fleetsim_command("run " + scenario + " --quiet --out " + (dir / "out"));
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("trace.csv:3: error:"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("yesterday"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("trace.csv:4: error:"), std::string::npos) << r.text;
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
}
