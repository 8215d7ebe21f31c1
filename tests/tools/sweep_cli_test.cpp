// Black-box tests of `fleetsim sweep`: results.csv and replicas.csv, -j independence, resuming a
// killed sweep, and bad sweep files refused before anything runs.
#include "fleetsim_process.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using fleetsim::testing::column_of;
using fleetsim::testing::csv_cells;
using fleetsim::testing::lines_of;
using fleetsim::testing::read_file;
using fleetsim::testing::TempDir;

const std::string kLemons = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/lemon_retirement.yaml";

fleetsim::testing::ProcessOutput sweep(const std::string& args)
{
  return fleetsim::testing::fleetsim_command("sweep " + args);
}

std::string sweep_file(const TempDir& tmp, int replicas)
{
  return tmp.write("sweep.yaml", "base: " + kLemons + "\nreplicas: " + std::to_string(replicas) +
                                     "\nset: {run.duration: 20d}\nvary:\n  lemons.retire_after: [0, 3]\n"
                                     "  spares.nodes: [0, 2]\n");
}

TEST(CliSweep, WritesOneResultRowPerPointAndOneReplicaRowPerSeed)
{
  TempDir tmp;
  const std::string out = tmp / "out";
  const auto r = sweep(sweep_file(tmp, 3) + " --out " + out + " -j 2");
  ASSERT_EQ(r.code, 0) << r.text;
  const auto results = lines_of(read_file(fs::path(out) / "results.csv"));
  const auto replicas = lines_of(read_file(fs::path(out) / "replicas.csv"));
  ASSERT_EQ(results.size(), 5u);    // header + 2 x 2 points
  ASSERT_EQ(replicas.size(), 13u);  // header + 4 points x 3 seeds
  EXPECT_EQ(
      results[0].rfind("lemons.retire_after,spares.nodes,replicas,ettr_mean,ettr_sd,ettr_ci95,ettr_p5,ettr_p95,", 0),
      0u);
  EXPECT_EQ(replicas[0].rfind("lemons.retire_after,spares.nodes,seed,ettr,", 0), 0u);
  // Point (3, 2): the mean of its three replicas, which are the runs' own summaries.
  double sum = 0;
  for (int seed = 1; seed <= 3; ++seed) {
    const auto j = nlohmann::json::parse(read_file(fs::path(out) / "runs" / "lemons.retire_after=3,spares.nodes=2" /
                                                   ("seed-" + std::to_string(seed)) / "summary.json"));
    EXPECT_EQ(j["seed"].get<int>(), seed);
    sum += j["ettr"].get<double>();
  }
  const auto row = csv_cells(results[4]);
  ASSERT_EQ(row[0], "3");
  ASSERT_EQ(row[1], "2");
  EXPECT_NEAR(std::stod(row[3]), sum / 3, 1e-9);
  EXPECT_LE(std::stod(row[6]), std::stod(row[3]));  // p5 <= mean <= p95
  EXPECT_GE(std::stod(row[7]), std::stod(row[3]));
  EXPECT_GT(std::stod(row[5]), 0);  // a confidence interval
}

TEST(CliSweep, GivesTheSameFilesWhateverTheNumberOfProcesses)
{
  TempDir tmp;
  const std::string file = sweep_file(tmp, 3);
  ASSERT_EQ(sweep(file + " --out " + (tmp / "one") + " -j 1").code, 0);
  ASSERT_EQ(sweep(file + " --out " + (tmp / "two") + " -j 2").code, 0);
  for (const char* f : {"results.csv", "replicas.csv"})
    EXPECT_EQ(read_file(fs::path(tmp / "one") / f), read_file(fs::path(tmp / "two") / f)) << f;
}

TEST(CliSweep, ARerunFinishesOnlyTheMissingReplicasAndIgnoresHalfWrittenOnes)
{
  TempDir tmp;
  const std::string file = sweep_file(tmp, 2);
  const std::string out = tmp / "out";
  ASSERT_EQ(sweep(file + " --out " + out).code, 0);
  const std::string results = read_file(fs::path(out) / "results.csv");
  const fs::path runs = fs::path(out) / "runs" / "lemons.retire_after=0,spares.nodes=0";
  const auto kept_time = fs::last_write_time(runs / "seed-1" / "summary.json");
  // As if the sweep was killed: one replica never finished, another was being written.
  fs::remove_all(runs / "seed-2");
  fs::create_directories(runs / "seed-2.partial-999999999");
  std::ofstream(runs / "seed-2.partial-999999999" / "summary.json") << "{ half";
  // A replica directory without its summary is not a finished replica.
  const fs::path other = fs::path(out) / "runs" / "lemons.retire_after=3,spares.nodes=2" / "seed-1";
  fs::remove(other / "summary.json");
  fs::remove(fs::path(out) / "results.csv");
  const auto r = sweep(file + " --out " + out);
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_TRUE(fs::exists(runs / "seed-2" / "summary.json"));
  EXPECT_TRUE(fs::exists(other / "summary.json"));
  EXPECT_FALSE(fs::exists(runs / "seed-2.partial-999999999"));
  EXPECT_EQ(fs::last_write_time(runs / "seed-1" / "summary.json"), kept_time) << "a finished replica ran again";
  EXPECT_EQ(read_file(fs::path(out) / "results.csv"), results);
}

TEST(CliSweep, RefusesABadSweepFileWithItsLineAndWritesNothing)
{
  TempDir tmp;
  const std::string out = tmp / "out";
  const std::string bad = tmp.write("bad.yaml", "base: " + kLemons + "\nreplicas: 0\nvary:\n  spares.nodes: 4\n");
  const auto r = sweep(bad + " --out " + out);
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("bad.yaml:2:"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("bad.yaml:4:"), std::string::npos) << r.text;
  EXPECT_FALSE(fs::exists(out));
  const std::string comma = tmp.write("comma.yaml", "base: " + kLemons + "\nvary:\n  recovery.policy: ['restart,x']\n");
  const auto c = sweep(comma + " --out " + out);
  EXPECT_EQ(c.code, 2) << c.text;
  EXPECT_NE(c.text.find("would break run directory names"), std::string::npos) << c.text;
  EXPECT_FALSE(fs::exists(out));
  const std::string unknown_key = tmp.write("key.yaml", "base: " + kLemons + "\nvary:\n  spares.nodez: [1, 2]\n");
  const auto k = sweep(unknown_key + " --out " + out);
  EXPECT_EQ(k.code, 2) << k.text;
  EXPECT_NE(k.text.find("spares.nodez"), std::string::npos) << k.text;
  EXPECT_FALSE(fs::exists(out));
}

TEST(CliSweep, ZippedKeysVaryTogetherAsOneAxis)
{
  TempDir tmp;
  const std::string out = tmp / "out";
  const std::string file = tmp.write("zip.yaml", "base: " + kLemons +
                                                     "\nreplicas: 2\nset: {run.duration: 10d}\n"
                                                     "zip:\n  - {cluster.gpus: [512, 1024], parallelism.dp: [4, 8]}\n"
                                                     "vary:\n  spares.nodes: [0, 2]\n");
  const auto r = sweep(file + " --out " + out);
  ASSERT_EQ(r.code, 0) << r.text;
  const auto results = lines_of(read_file(fs::path(out) / "results.csv"));
  ASSERT_EQ(results.size(), 5u);  // 2 zipped sizes x 2 spare counts, not 2 x 2 x 2
  EXPECT_EQ(results[0].rfind("cluster.gpus,parallelism.dp,spares.nodes,replicas,", 0), 0u) << results[0];
  EXPECT_EQ(results[1].rfind("512,4,0,2,", 0), 0u) << results[1];
  EXPECT_EQ(results[4].rfind("1024,8,2,2,", 0), 0u) << results[4];
  const auto j = nlohmann::json::parse(
      read_file(fs::path(out) / "runs" / "cluster.gpus=512,spares.nodes=2" / "seed-1" / "summary.json"));
  EXPECT_EQ(j["gpus"].get<long>(), 512);
  const std::string uneven = tmp.write(
      "uneven.yaml", "base: " + kLemons + "\nzip:\n  - {cluster.gpus: [512, 1024], parallelism.dp: [4]}\n");
  const auto bad = sweep(uneven + " --out " + (tmp / "bad"));
  EXPECT_EQ(bad.code, 2) << bad.text;
  EXPECT_NE(bad.text.find("as long as the others"), std::string::npos) << bad.text;
}

TEST(CliSweep, RefusesToMixTheResultsOfAnotherSweepIntoItsDirectory)
{
  TempDir tmp;
  const std::string out = tmp / "out";
  ASSERT_EQ(sweep(sweep_file(tmp, 2) + " --out " + out).code, 0);
  const auto r = sweep(sweep_file(tmp, 3) + " --out " + out);
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("runs.manifest"), std::string::npos) << r.text;
}

TEST(CliSweep, ReportsTheTimeToATokenTargetAndLeavesItBlankWhereAReplicaMissedIt)
{
  TempDir tmp;
  const std::string out = tmp / "out";
  // 20 days of the 1,024-GPU lemons scenario train ~1.84e11 tokens: 1.2e11 is reached in ~13 days,
  // 1.9e11 never.
  const std::string file = tmp.write("target.yaml", "base: " + kLemons +
                                                        "\nreplicas: 2\nset: {run.duration: 20d}\n"
                                                        "vary:\n  run.token_target: [1.2e11, 1.9e11]\n");
  const auto r = sweep(file + " --out " + out);
  ASSERT_EQ(r.code, 0) << r.text;
  const auto results = lines_of(read_file(fs::path(out) / "results.csv"));
  ASSERT_EQ(results.size(), 3u);
  const auto header = csv_cells(results[0]);
  const auto at = [&](const std::string& name) { return column_of(header, name); };
  ASSERT_LT(at("time_to_target_h_mean"), header.size());
  const auto reached = csv_cells(results[1]);
  const double hours = std::stod(reached[at("time_to_target_h_mean")]);
  EXPECT_GT(hours, 10 * 24.0);
  EXPECT_LT(hours, 16 * 24.0);
  EXPECT_EQ(reached[at("target_reached_mean")], "1");
  const auto missed = csv_cells(results[2] + ",");  // a trailing empty cell survives the split
  EXPECT_EQ(missed[at("time_to_target_h_mean")], "") << results[2];
  EXPECT_EQ(missed[at("time_to_target_h_ci95")], "") << results[2];
  EXPECT_EQ(missed[at("target_reached_mean")], "0");
  // Each replica's own summary says the same.
  const auto j = nlohmann::json::parse(
      read_file(fs::path(out) / "runs" / "run.token_target=1.9e11" / "seed-1" / "summary.json"));
  EXPECT_FALSE(j["token_target"]["reached"].get<bool>());
  EXPECT_TRUE(j["token_target"]["time_to_target_s"].is_null());
}

TEST(CliSweep, AggregatesOnlyTheMetricsItIsAskedFor)
{
  TempDir tmp;
  const std::string file = tmp.write("m.yaml",
                                     "base: " + kLemons +
                                         "\nreplicas: 2\nset: {run.duration: 5d}\n"
                                         "metrics: [unexpected_interruptions, ettr]\nvary:\n  spares.nodes: [0, 2]\n");
  ASSERT_EQ(sweep(file + " --out " + (tmp / "out")).code, 0);
  const auto results = lines_of(read_file(fs::path(tmp / "out") / "results.csv"));
  EXPECT_EQ(results[0],
            "spares.nodes,replicas,unexpected_interruptions_mean,unexpected_interruptions_sd,"
            "unexpected_interruptions_ci95,unexpected_interruptions_p5,unexpected_interruptions_p95,"
            "ettr_mean,ettr_sd,ettr_ci95,ettr_p5,ettr_p95");  // in the file's order
  const std::string bad = tmp.write("bad.yaml", "base: " + kLemons + "\nmetrics: [ettr, tflops_per_gpu]\n");
  const auto r = sweep(bad + " --out " + (tmp / "bad"));
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("bad.yaml:2:"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("unknown metric 'tflops_per_gpu'"), std::string::npos) << r.text;
  EXPECT_FALSE(fs::exists(tmp / "bad"));
}

// The planners' cluster-size sweep (scenarios/sweeps/): ETTR falls as the job grows, and the
// confidence intervals narrow as replicas are added (about as 1/sqrt(n)).
TEST(CliSweepPlanners, ClusterSizeSweepEttrFallsWithSizeAndItsConfidenceIntervalsNarrowWithReplicas)
{
  TempDir tmp;
  const std::string file = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/sweeps/llama3_cluster_size.yaml";
  std::map<int, std::vector<std::vector<std::string>>> rows;
  for (int replicas : {3, 12}) {
    const std::string out = tmp / (replicas == 3 ? "three" : "twelve");
    const auto r = sweep(file + " --replicas " + std::to_string(replicas) + " --out " + out + " -j 2 --quiet");
    ASSERT_EQ(r.code, 0) << r.text;
    for (const auto& line : lines_of(read_file(fs::path(out) / "results.csv")))
      rows[replicas].push_back(csv_cells(line));
  }
  const auto& header = rows[3][0];
  const auto column = [&](const std::string& name) { return column_of(header, name); };
  const size_t reps = column("replicas"), mean = column("ettr_mean"), ci = column("ettr_ci95");
  ASSERT_EQ(header[0], "cluster.gpus");
  ASSERT_LT(ci, header.size());
  ASSERT_EQ(rows[3].size(), 8u);  // header + 1k, 2k, ..., 64k
  for (size_t i = 1; i < rows[3].size(); ++i) {
    for (int replicas : {3, 12}) {
      EXPECT_EQ(rows[replicas][i][reps], std::to_string(replicas));
      if (i > 1) {
        EXPECT_LT(std::stod(rows[replicas][i][mean]), std::stod(rows[replicas][i - 1][mean]))
            << rows[replicas][i][0] << " GPUs, " << replicas << " replicas";
      }
    }
    EXPECT_LT(std::stod(rows[12][i][ci]), 0.6 * std::stod(rows[3][i][ci])) << rows[3][i][0] << " GPUs";
  }
}

TEST(CliSweep, RangesExpandToEveryValueFromFirstToLastWithTheirUnit)
{
  TempDir tmp;
  const std::string out = tmp / "out";
  const std::string file = tmp.write("range.yaml",
                                     "base: " + kLemons +
                                         "\nreplicas: 1\nset: {run.duration: 2d}\n"
                                         "vary:\n  checkpoint.interval: {from: 5min, to: 15min, step: 5min}\n"
                                         "  spares.nodes: {from: 1, to: 8, times: 2}\n");
  const auto r = sweep(file + " --out " + out + " --quiet");
  ASSERT_EQ(r.code, 0) << r.text;
  const auto j = nlohmann::json::parse(read_file(fs::path(out) / "sweep.json"));
  EXPECT_EQ(j["axes"][0]["values"][0], nlohmann::json({"5min", "10min", "15min"}));
  EXPECT_EQ(j["axes"][1]["values"][0], nlohmann::json({"1", "2", "4", "8"}));
  EXPECT_EQ(lines_of(read_file(fs::path(out) / "results.csv")).size(), 13u);  // header + 3 x 4
  const std::string bad = tmp.write("bad.yaml", "base: " + kLemons +
                                                    "\nvary:\n  spares.nodes: {from: 8, to: 1, times: 2}\n"
                                                    "  checkpoint.interval: {from: 5min, to: 1h, step: 5min}\n");
  const auto b = sweep(bad + " --out " + (tmp / "bad"));
  EXPECT_EQ(b.code, 2) << b.text;
  EXPECT_NE(b.text.find("bad.yaml:3:"), std::string::npos) << b.text;  // to < from
  EXPECT_NE(b.text.find("bad.yaml:4:"), std::string::npos) << b.text;  // units differ
  EXPECT_FALSE(fs::exists(tmp / "bad"));
}

TEST(CliSweep, KeepSummaryWritesOnlyEachReplicasSummaryAndTheSameResults)
{
  TempDir tmp;
  const std::string all = sweep_file(tmp, 2);
  const std::string summary = tmp.write("summary.yaml", read_file(all) + "keep: summary\n");
  ASSERT_EQ(sweep(all + " --out " + (tmp / "all") + " --quiet").code, 0);
  ASSERT_EQ(sweep(summary + " --out " + (tmp / "summary") + " --quiet").code, 0);
  const fs::path run = fs::path(tmp / "summary") / "runs" / "lemons.retire_after=3,spares.nodes=2" / "seed-2";
  EXPECT_TRUE(fs::exists(run / "summary.json"));
  EXPECT_FALSE(fs::exists(run / "timeline.csv"));
  EXPECT_FALSE(fs::exists(run / "events.csv"));
  EXPECT_EQ(read_file(fs::path(tmp / "summary") / "results.csv"), read_file(fs::path(tmp / "all") / "results.csv"));
  const std::string bad = tmp.write("bad.yaml", "base: " + kLemons + "\nkeep: nothing\n");
  EXPECT_EQ(sweep(bad + " --out " + (tmp / "bad")).code, 2);
}

}  // namespace
