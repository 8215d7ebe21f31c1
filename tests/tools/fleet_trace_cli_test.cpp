// Job traces through the scenario and the binary: a trace in AcmeTrace's column layout loads without
// editing and runs; a malformed one stops with file:line: error and exit code 2, and writes nothing.
#include "fleetsim_process.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>
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
                       "run: {duration: 1d}\n");
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

TEST(FleetTraceCli, AGeneratedWorkloadWrittenAsATraceReplaysToTheSameJobs)
{
  // `fleetsim workload` writes the generator's jobs in AcmeTrace's layout; a scenario that reads that
  // file back runs the same jobs: the same jobs.csv rows, job for job.
  TempDir dir;
  const std::string gen = dir.write("gen.yaml",
                                    "name: gen\n"
                                    "cluster: {gpus: 64, gpus_per_node: 8, gpus_per_rack: 16}\n"
                                    "workload:\n"
                                    "  generator: {jobs: 300, window: 2d, gpus: \"1:0.5, 8:0.3, 32:0.2\", "
                                    "median: 20min, sigma: 1}\n"
                                    "run: {duration: 3d}\n");
  auto w = fleetsim_command("workload " + gen + " --seed 4 --quiet --out " + (dir / "jobs_trace.csv"));
  ASSERT_EQ(w.code, 0) << w.text;
  const std::string replay = dir.write("replay.yaml",
                                       "name: replay\n"
                                       "cluster: {gpus: 64, gpus_per_node: 8, gpus_per_rack: 16}\n"
                                       "workload:\n"
                                       "  trace: {file: jobs_trace.csv, preset: acme}\n"
                                       "run: {duration: 3d}\n");
  ASSERT_EQ(fleetsim_command("run " + gen + " --seed 4 --quiet --out " + (dir / "a")).code, 0);
  ASSERT_EQ(fleetsim_command("run " + replay + " --quiet --out " + (dir / "b")).code, 0);
  const std::string a = read_file(dir / "a/jobs.csv");
  const std::string b = read_file(dir / "b/jobs.csv");
  EXPECT_GT(a.size(), 1000U);
  // The trace's submit times are relative to its first job, which the generator drew after t = 0:
  // compare what does not depend on the origin.
  auto column = [](const std::string& csv, int k) {
    std::istringstream in(csv);
    std::string line, out;
    std::getline(in, line);
    while (std::getline(in, line)) {
      std::stringstream cells(line);
      std::string cell;
      for (int i = 0; i <= k; ++i)
        std::getline(cells, cell, ',');
      out += cell + "\n";
    }
    return out;
  };
  EXPECT_EQ(column(a, 0), column(b, 0));  // job ids, in order
  EXPECT_EQ(column(a, 6), column(b, 6));  // GPUs
  EXPECT_EQ(column(a, 5), column(b, 5));  // waits
}

TEST(FleetTraceCli, WorkloadOfASingleJobScenarioIsABadRequest)
{
  TempDir dir;
  const auto r = fleetsim_command("workload " + std::string(FLEETSIM_SOURCE_DIR) +
                                  "/scenarios/no_failures.yaml --out " + (dir / "t.csv"));
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("has no workload section"), std::string::npos) << r.text;
}
