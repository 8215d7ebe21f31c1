// Black-box tests of `fleetsim report`: the run, fleet and sweep reports are written, self-contained
// and deterministic; bad directories and malformed files exit 2 and write nothing.
#include "fleetsim_process.hpp"

#include "report/checkpoint_report.hpp"
#include "report/fleet_charts.hpp"
#include "report/svg_chart.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using fleetsim::testing::read_file;
using fleetsim::testing::run_command;
using fleetsim::testing::TempDir;

const std::string kBinary = FLEETSIM_BINARY;
const std::string kLemons = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/lemon_retirement.yaml";

fleetsim::testing::ProcessOutput report(const std::string& args)
{
  return run_command(kBinary + " report " + args + " 2>&1");
}

// A Llama 3 replay (analytic step: no fabric simulation) into tmp/run, 6 days unless told.
std::string small_run(const TempDir& tmp, const std::string& duration = "6d")
{
  const std::string dir = tmp / "run";
  const auto r = run_command(kBinary + " run --set run.duration=" + duration +
                             " --set run.step_model=analytic --quiet --out " + dir + " 2>&1");
  EXPECT_EQ(r.code, 0) << r.text;
  return dir;
}

// 4,845 Kalos-like jobs on 1,536 GPUs for 4 days (scenarios/fleet_kalos_sizing.yaml, shortened) into tmp/fleet.
std::string small_fleet(const TempDir& tmp)
{
  const std::string dir = tmp / "fleet";
  const auto r = run_command(kBinary + " run " + FLEETSIM_SOURCE_DIR +
                             "/scenarios/fleet_kalos_sizing.yaml --set cluster.gpus=1536 --set "
                             "workload.generator.window=3d --set run.duration=4d --quiet --out " +
                             dir + " 2>&1");
  EXPECT_EQ(r.code, 0) << r.text;
  return dir;
}

// A replay with asynchronous checkpoints that share a 100 GB/s storage system with data loading, into tmp/async.
std::string async_run(const TempDir& tmp)
{
  const std::string dir = tmp / "async";
  const auto r = run_command(kBinary + " run " + FLEETSIM_SOURCE_DIR +
                             "/scenarios/no_failures.yaml --set checkpoint.strategy=async --set "
                             "checkpoint.state_per_gpu=10GB --set data.bytes_per_token=500KB --set "
                             "storage.bandwidth=100GB/s --set run.duration=1d --quiet --out " +
                             dir + " 2>&1");
  EXPECT_EQ(r.code, 0) << r.text;
  return dir;
}

// The rows of a CSV file, split at commas (the header dropped).
std::vector<std::vector<std::string>> csv_rows(const std::string& text)
{
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  std::vector<std::vector<std::string>> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream row(line);
    for (std::string c; std::getline(row, c, ',');)
      cells.push_back(c);
    rows.push_back(cells);
  }
  return rows;
}

// The share of the started jobs in jobs.csv whose wait_s is 0, counted here rather than by the report.
double share_that_did_not_wait(const std::string& jobs_csv)
{
  std::istringstream in(jobs_csv);
  std::string line;
  std::getline(in, line);
  double started = 0, zero = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream row(line);
    for (std::string c; std::getline(row, c, ',');)
      cells.push_back(c);
    if (cells.size() < 6 || cells[3].empty())
      continue;
    ++started;
    zero += std::stod(cells[5]) == 0 ? 1 : 0;
  }
  return started > 0 ? zero / started : 0;
}

// The number of points of the first polyline drawn in `color`.
std::size_t polyline_points(const std::string& html, const std::string& color)
{
  const auto at = html.find("stroke=\"" + color + "\"");
  if (at == std::string::npos)
    return 0;
  const auto begin = html.find("points=\"", at) + 8;
  const std::string points = html.substr(begin, html.find('"', begin) - begin);
  return static_cast<std::size_t>(std::count(points.begin(), points.end(), ','));
}

bool self_contained(const std::string& html)
{
  return html.find("http://") == std::string::npos && html.find("https://") == std::string::npos &&
         html.find("<script") == std::string::npos && html.find("<link") == std::string::npos &&
         html.find("<img") == std::string::npos;
}

TEST(CliReport, RunReportIsSelfContainedDeterministicAndHasEveryChart)
{
  TempDir tmp;
  const std::string dir = small_run(tmp);
  auto r = report(dir);
  ASSERT_EQ(r.code, 0) << r.text;
  const std::string html = read_file(fs::path(dir) / "report.html");
  ASSERT_FALSE(html.empty());
  EXPECT_TRUE(self_contained(html));
  for (const char* s :
       {"<!DOCTYPE html>", "fleetsim run report: llama3_405b_16k", "Goodput over time", "State timeline",
        "Interruptions by cause", "Where the time went", "Lost time by cause", "faulty_gpu", "gpu_hbm3_memory",
        "silent_data_corruption", "checkpoint", "restart", "ETTR", "MFU", "<svg"})
    EXPECT_NE(html.find(s), std::string::npos) << s;
  for (const char* bad : {"\"nan", ",nan", ">nan", "-nan", "inf\"", "n/a"})
    EXPECT_EQ(html.find(bad), std::string::npos) << bad;
  r = report(dir + " --out " + (tmp / "again.html"));
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_EQ(read_file(tmp / "again.html"), html);
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().rfind(".report.html.tmp", 0), std::string::npos) << e.path();
}

TEST(CliReport, RunReportDownsamplesTheTraceToThePlotWidth)
{
  TempDir tmp;
  const std::string dir = small_run(tmp, "54d");  // ~16,000 timeline rows
  ASSERT_EQ(report(dir).code, 0);
  const std::string html = read_file(fs::path(dir) / "report.html");
  // The goodput polyline holds at most two points per pixel column of its 1020-pixel plot.
  const auto at = html.find("stroke=\"#1b5e20\"");
  ASSERT_NE(at, std::string::npos);
  const auto begin = html.find("points=\"", at);
  const auto end = html.find('"', begin + 8);
  const std::string points = html.substr(begin + 8, end - begin - 8);
  const auto n = static_cast<std::size_t>(std::count(points.begin(), points.end(), ','));
  EXPECT_GT(n, 100u);
  EXPECT_LE(n, 2040u);
}

TEST(CliReport, RunReportHasStorageAndCheckpointSectionsThatAgreeWithTheFiles)
{
  TempDir tmp;
  const std::string dir = async_run(tmp);
  ASSERT_EQ(report(dir).code, 0);
  const std::string html = read_file(fs::path(dir) / "report.html");
  EXPECT_TRUE(self_contained(html));
  for (const char* s : {"<h2>Checkpoints</h2>", "<h2>Storage</h2>", "storage throughput over time",
                        "pause against time", "drain against time", "<td>strategy</td><td>async</td>",
                        "<td>interval policy</td><td>fixed</td>", "data_stall (", "background:#00bcd4"})
    EXPECT_NE(html.find(s), std::string::npos) << s;
  EXPECT_EQ(html.find("burst credit over time"), std::string::npos);  // no token bucket here
  // Storage: the figures of storage.csv, time-weighted here over the day.
  const auto rows = csv_rows(read_file(fs::path(dir) / "storage.csv"));
  ASSERT_GT(rows.size(), 100u);
  double peak = 0, written = 0, saturated = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double dt = (i + 1 < rows.size() ? std::stod(rows[i + 1][0]) : 86400) - std::stod(rows[i][0]);
    const double w = std::stod(rows[i][1]);
    peak = dt > 0 ? std::max(peak, w) : peak;
    written += w * dt;
    saturated += std::stod(rows[i][3]) >= 0.999 * std::stod(rows[i][4]) ? dt : 0;
  }
  EXPECT_EQ(peak, 100e9);  // the drains run the servers flat out
  using fleetsim::report::format_number;
  EXPECT_NE(html.find("peak write</td><td>100 GB/s<"), std::string::npos);
  EXPECT_NE(html.find("mean write</td><td>" + format_number(written / 86400 / 1e9, 4) + " GB/s<"), std::string::npos)
      << written / 86400;
  EXPECT_NE(html.find("servers saturated</td><td>" + fleetsim::report::percent(saturated / 86400)), std::string::npos)
      << saturated / 86400;
  // Checkpoints: the pauses and drains of events.csv, and summary.json's pause.
  std::vector<double> pauses, drains;
  for (const auto& e : csv_rows(read_file(fs::path(dir) / "events.csv"))) {
    if (e[1] == "checkpoint" && e[6] == "completed")
      pauses.push_back(std::stod(e[5]));
    if (e[1] == "checkpoint_drained")
      drains.push_back(std::stod(e[5]));
  }
  ASSERT_GT(pauses.size(), 100u);
  ASSERT_FALSE(drains.empty());
  const auto summary = nlohmann::json::parse(read_file(fs::path(dir) / "summary.json"));
  const double pause = summary["checkpoints"]["pause_s"].get<double>();
  EXPECT_NEAR(*std::max_element(pauses.begin(), pauses.end()), pause, 1e-6);
  using fleetsim::report::format_duration;
  EXPECT_NE(html.find("pause p50</td><td>" + format_duration(pause) + "<"), std::string::npos) << pause;
  EXPECT_NE(html.find("of them completed</td><td>" + std::to_string(pauses.size()) + "<"), std::string::npos);
  const double max_drain = *std::max_element(drains.begin(), drains.end());
  EXPECT_NEAR(max_drain, summary["checkpoints"]["max_drain_s"].get<double>(), 1e-3);
  EXPECT_GT(max_drain, 10e12 / 100e9);  // 10 GB on each of 1,024 GPUs at 100 GB/s at best
  EXPECT_NE(html.find("drain max</td><td>" + format_duration(max_drain) + "<"), std::string::npos) << max_drain;
  ASSERT_EQ(report(dir + " --out " + (tmp / "again.html")).code, 0);
  EXPECT_EQ(read_file(tmp / "again.html"), html);
}

TEST(CliReport, MalformedStorageCsvExitsTwoAndAMissingOneIsLeftOut)
{
  TempDir tmp;
  const std::string dir = small_run(tmp, "1d");
  const std::string storage = read_file(fs::path(dir) / "storage.csv");
  const auto line = std::count(storage.begin(), storage.end(), '\n') + 1;
  tmp.write("run/storage.csv", storage + "90000.0,1,2\n");
  auto r = report(dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("storage.csv:" + std::to_string(line) + ": error: 3 cells where the header has 6"),
            std::string::npos)
      << r.text;
  EXPECT_FALSE(fs::exists(fs::path(dir) / "report.html"));
  tmp.write("run/storage.csv", storage + "1.0,0,0,0,1,0\n");
  r = report(dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("storage.csv:" + std::to_string(line) + ": error: rows must be in time order"),
            std::string::npos)
      << r.text;
  tmp.write("run/storage.csv", storage + "90000.0,x,0,0,1,0\n");
  r = report(dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("storage.csv:" + std::to_string(line) + ": error: column 'write_Bps' is not a number"),
            std::string::npos)
      << r.text;
  EXPECT_FALSE(fs::exists(fs::path(dir) / "report.html"));

  fs::remove(fs::path(dir) / "storage.csv");  // an output directory older than storage.csv
  r = report(dir);
  ASSERT_EQ(r.code, 0) << r.text;
  const std::string html = read_file(fs::path(dir) / "report.html");
  EXPECT_EQ(html.find("<h2>Storage</h2>"), std::string::npos);
  EXPECT_NE(html.find("<h2>Checkpoints</h2>"), std::string::npos);
  EXPECT_NE(html.find("<td>strategy</td><td>sync</td>"), std::string::npos);
}

TEST(CliReport, FleetReportDrawsStorageOnlyWhenTheJobsStore)
{
  TempDir tmp;
  const std::string dir = tmp / "stores";
  const auto r = run_command(kBinary + " run " + FLEETSIM_SOURCE_DIR +
                             "/tests/data/fleet/storage_jobs.yaml --quiet --out " + dir + " 2>&1");
  ASSERT_EQ(r.code, 0) << r.text;
  ASSERT_EQ(report(dir).code, 0);
  const std::string html = read_file(fs::path(dir) / "report.html");
  EXPECT_TRUE(self_contained(html));
  for (const char* s : {"<h2>Storage</h2>", "storage throughput over time", "peak write</td><td>100 GB/s<"})
    EXPECT_NE(html.find(s), std::string::npos) << s;
  const std::string plain = small_fleet(tmp);
  ASSERT_FALSE(fs::exists(fs::path(plain) / "storage.csv"));
  ASSERT_EQ(report(plain).code, 0);
  EXPECT_EQ(read_file(fs::path(plain) / "report.html").find("<h2>Storage</h2>"), std::string::npos);
}

// A fleet on a shared fabric (network.fleet_fabric: shared) gets a section with the contention's
// GPU-hours, the uplinks' utilisation and the jobs' slowdown; a fleet without one does not.
TEST(CliReport, FleetReportShowsTheSharedFabricOnlyWhenThereIsOne)
{
  TempDir tmp;
  const std::string dir = tmp / "shared";
  const auto r = run_command(kBinary + " run " + FLEETSIM_SOURCE_DIR +
                             "/tests/data/fleet/key_walk.yaml --set network.fleet_fabric=shared"
                             " --set network.rack_oversubscription=4 --set scheduler.placement=random --quiet --out " +
                             dir + " 2>&1");
  ASSERT_EQ(r.code, 0) << r.text;
  ASSERT_EQ(report(dir).code, 0);
  const std::string html = read_file(fs::path(dir) / "report.html");
  const auto summary = nlohmann::json::parse(read_file(fs::path(dir) / "summary.json"));
  const std::string lost = fleetsim::report::grouped(summary["fabric"]["contention_gpu_hours"].get<double>(), 1);
  for (const std::string& s : {std::string("<h2>The shared fabric</h2>"), "GPU-hours lost to contention</td><td>" + lost,
                               std::string("rack uplinks&#39; utilisation"), std::string("job slowdown p99")})
    EXPECT_NE(html.find(s), std::string::npos) << s;
  const std::string plain = small_fleet(tmp);
  ASSERT_EQ(report(plain).code, 0);
  EXPECT_EQ(read_file(fs::path(plain) / "report.html").find("The shared fabric"), std::string::npos);
}

TEST(CliReport, FleetReportHasItsSectionsAndTheSummarysFigures)
{
  TempDir tmp;
  const std::string dir = small_fleet(tmp);
  auto r = report(dir);
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_NE(r.text.find("fleet report: "), std::string::npos) << r.text;
  const std::string html = read_file(fs::path(dir) / "report.html");
  EXPECT_TRUE(self_contained(html));
  EXPECT_EQ(html.find("http"), std::string::npos);
  for (const char* s : {"fleetsim fleet report: fleet_kalos_sizing", "Utilisation over time", "Wait time by job size",
                        "Wait-time distribution", "Lost GPU-hours by cause", "Jobs that lost the most GPU-hours",
                        "easy_backfill", "topology", "share of the 1,536 GPUs", "first wait (log scale)", ">513+<",
                        ">startup<", "to within summary.json&#39;s rounding", "<svg"})
    EXPECT_NE(html.find(s), std::string::npos) << s;
  for (const char* bad : {"\"nan", ",nan", ">nan", "-nan", "inf\"", "n/a"})
    EXPECT_EQ(html.find(bad), std::string::npos) << bad;
  const auto summary = nlohmann::json::parse(read_file(fs::path(dir) / "summary.json"));
  const std::string p99 = fleetsim::report::format_duration(summary["wait_s"]["p99"].get<double>());
  EXPECT_NE(html.find("wait p99</div><div class=\"v\">" + p99 + "<"), std::string::npos) << p99;
  const std::string goodput = fleetsim::report::grouped(summary["goodput_gpu_hours"].get<double>());
  EXPECT_NE(html.find(">" + goodput + "<"), std::string::npos) << goodput;
  const double no_wait = share_that_did_not_wait(read_file(fs::path(dir) / "jobs.csv"));
  EXPECT_GT(no_wait, 0.5);  // the load is light: most jobs start at once, and some wait
  EXPECT_LT(no_wait, 1.0);
  EXPECT_NE(html.find(std::string("(") + fleetsim::report::percent(no_wait) + ") did not wait"), std::string::npos);
  ASSERT_EQ(report(dir + " --out " + (tmp / "again.html")).code, 0);
  EXPECT_EQ(read_file(tmp / "again.html"), html);
}

TEST(CliReport, FleetReportOfOneHundredThousandJobsIsSmall)
{
  TempDir tmp;
  const std::string dir = small_fleet(tmp);
  // jobs.csv replaced: 100,000 started jobs (a quarter did not wait, the others all waited a different
  // time), 1,000 that never started, and one job that lost far more than any other.
  std::string csv = read_file(fs::path(dir) / "jobs.csv");
  csv.erase(csv.find('\n') + 1);
  for (int i = 0; i < 100000; ++i) {
    const double wait = i % 4 == 0 ? 0 : 1 + i * 0.37;
    csv += std::string("j") + std::to_string(i) + ",u,10.000," + std::to_string(10 + wait) + ",," +
           std::to_string(wait) + ",8,8,1,1,0,0,running,2.0000,1.5000,0.1000,0.1000,0.0000," +
           (i == 54321 ? "900.0000" : "0.3000") +
           ",0.750000,10.000,0.010000,1.000,3600.000,0.500000,,0.0000,0.0000,1.000000,\n";
  }
  for (int i = 0; i < 1000; ++i) {
    csv += 'w';
    csv += std::to_string(i);
    csv += ",,10.000,,,-1.000,64,0,0,0,0,0,waiting,0,0,0,0,0,0,,10.000,0.000000,0.000,0.000,0.000000,,0.0000,0.0000,,\n";
  }
  tmp.write("fleet/jobs.csv", csv);
  // Its speed is measured by `bash tools/bench_fleet.sh --report` (docs/benchmarks.md), not here: a
  // wall-clock bound in a test fails on a slow or loaded machine (the sanitized build on CI's).
  const auto r = report(dir);
  ASSERT_EQ(r.code, 0) << r.text;
  const std::string html = read_file(fs::path(dir) / "report.html");
  EXPECT_LT(html.size(), 200'000u);
  EXPECT_NE(html.find("Of the 100,000 jobs that started, 25,000 (25.0%) did not wait"), std::string::npos);
  EXPECT_NE(html.find("1,000 jobs had not started by the end of the window"), std::string::npos);
  const std::size_t points = polyline_points(html, "#1f6fb4");  // the CDF: two per x position at most
  EXPECT_GT(points, 100u);
  EXPECT_LE(points, 2 * 340u + 2);
  EXPECT_NE(html.find("<td>j54321</td>"), std::string::npos);  // the top loser heads the table
  EXPECT_LT(html.find("<td>j54321</td>"), html.find("<td>j0</td>"));
  EXPECT_EQ(html.find("<td>j99999</td>"), std::string::npos);  // 20 rows, not 100,000
}

TEST(CliReport, FleetDirectoryWithoutJobsCsvOrWithABadRowExitsTwo)
{
  TempDir tmp;
  const std::string dir = small_fleet(tmp);
  const std::string jobs = read_file(fs::path(dir) / "jobs.csv");
  fs::remove(fs::path(dir) / "jobs.csv");
  auto r = report(dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("jobs.csv: error: missing"), std::string::npos) << r.text;
  EXPECT_FALSE(fs::exists(fs::path(dir) / "report.html"));

  tmp.write("fleet/jobs.csv", jobs);
  const std::string timeline = read_file(fs::path(dir) / "timeline.csv");
  const auto bad_line = std::count(timeline.begin(), timeline.end(), '\n') + 1;
  tmp.write("fleet/timeline.csv", timeline + "1.0,2.0,3\n");
  r = report(dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("timeline.csv:" + std::to_string(bad_line) + ": error: 3 cells where the header has 25"),
            std::string::npos)
      << r.text;
  EXPECT_FALSE(fs::exists(fs::path(dir) / "report.html"));
}

TEST(CliReport, SweepReportDrawsEveryMetricOfTheHeader)
{
  TempDir tmp;
  const std::string file = tmp.write("sweep.yaml", "base: " + kLemons +
                                                       "\nreplicas: 2\nset: {run.duration: 10d}\nvary:\n"
                                                       "  lemons.retire_after: [0, 3]\n  spares.nodes: [0, 2, 4]\n");
  const std::string dir = tmp / "sweep";
  auto r = run_command(kBinary + " sweep " + file + " --out " + dir + " -j 2 --quiet 2>&1");
  ASSERT_EQ(r.code, 0) << r.text;
  r = report(dir);
  ASSERT_EQ(r.code, 0) << r.text;
  const std::string html = read_file(fs::path(dir) / "report.html");
  EXPECT_TRUE(self_contained(html));
  // x: spares.nodes (3 values, more than retire_after's 2); one series per retire_after value.
  for (const char* s : {"fleetsim sweep report: sweep", "Metrics against spares.nodes", "lemons.retire_after=0",
                        "lemons.retire_after=3", "<h3>ettr</h3>", "<h3>goodput_ratio</h3>", "<h3>waiting_h</h3>",
                        "ettr (mean ± 95% CI)", "linear scale"})
    EXPECT_NE(html.find(s), std::string::npos) << s;
  ASSERT_EQ(report(dir + " --out " + (tmp / "again.html")).code, 0);
  EXPECT_EQ(read_file(tmp / "again.html"), html);
}

TEST(CliReport, SweepJsonGroupsZippedKeysAndNewMetricsAppear)
{
  TempDir tmp;
  fs::create_directories(tmp.path() / "s");
  std::string csv = "cluster.gpus,parallelism.dp,checkpoint.interval,replicas";
  for (const char* m : {"ettr", "time_to_target_h"})
    for (const char* st : {"mean", "sd", "ci95", "p5", "p95"})
      csv += std::string(",") + m + "_" + st;
  csv += "\n";
  int k = 0;
  for (const char* size : {"1024,8", "16384,128", "65536,512"})
    for (const char* interval : {"5min", "10min"}) {
      const double e = 0.95 - 0.05 * k++;
      csv += std::string(size) + "," + interval + ",4," + std::to_string(e) + ",0.01,0.02," + std::to_string(e - 0.02) +
             "," + std::to_string(e + 0.02) + ",1200,30,40,1150,1250\n";
    }
  tmp.write("s/results.csv", csv);
  tmp.write("s/sweep.json",
            R"({"axes": [{"keys": ["cluster.gpus", "parallelism.dp"]}, {"keys": ["checkpoint.interval"]}],
                               "replicas": 4, "first_seed": 1, "metrics": ["ettr", "time_to_target_h"]})");
  const auto r = report(tmp / "s");
  ASSERT_EQ(r.code, 0) << r.text;
  const std::string html = read_file(tmp.path() / "s" / "report.html");
  for (const char* s : {"Metrics against cluster.gpus", "log2 scale", "x: cluster.gpus (with parallelism.dp)",
                        "checkpoint.interval=5min", "checkpoint.interval=10min", "<h3>time_to_target_h</h3>",
                        "time_to_target_h (mean ± 95% CI)", ">65536<", "first seed"})
    EXPECT_NE(html.find(s), std::string::npos) << s;
  EXPECT_EQ(html.find("parallelism.dp=8"), std::string::npos);  // dp is no series of its own
}

TEST(CliReport, MissingOrUnrecognisedDirectoryExitsTwoAndWritesNothing)
{
  TempDir tmp;
  auto r = report(tmp / "absent");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find(tmp / "absent"), std::string::npos) << r.text;
  EXPECT_FALSE(fs::exists(tmp / "absent"));
  fs::create_directories(tmp.path() / "empty");
  r = report(tmp / "empty");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("summary.json"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("results.csv"), std::string::npos) << r.text;
  EXPECT_TRUE(fs::is_empty(tmp.path() / "empty"));
  EXPECT_EQ(run_command(kBinary + " report 2>&1").code, 2);
}

TEST(CliReport, MalformedInputsExitTwoWithTheFileAndWriteNothing)
{
  TempDir tmp;
  const std::string dir = small_run(tmp);
  tmp.write("run/timeline.csv", read_file(fs::path(dir) / "timeline.csv") + "1.0,2.0,training\n");
  auto r = report(dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("timeline.csv:"), std::string::npos) << r.text;
  EXPECT_FALSE(fs::exists(fs::path(dir) / "report.html"));

  fs::create_directories(tmp.path() / "bad_json");
  tmp.write("bad_json/summary.json", "{\"ettr\": 0.9,");
  r = report(tmp / "bad_json");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("summary.json"), std::string::npos) << r.text;
  EXPECT_FALSE(fs::exists(tmp.path() / "bad_json" / "report.html"));

  fs::create_directories(tmp.path() / "bad_csv");
  tmp.write("bad_csv/results.csv",
            "spares.nodes,replicas,ettr_mean,ettr_sd,ettr_ci95,ettr_p5,ettr_p95\n0,2,x,0,0,0,0\n");
  r = report(tmp / "bad_csv");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("results.csv:2: error: column 'ettr_mean' is not a number"), std::string::npos) << r.text;
  EXPECT_FALSE(fs::exists(tmp.path() / "bad_csv" / "report.html"));
}

TEST(CliReport, IsInTheHelpText)
{
  const auto r = run_command(kBinary + " help");
  EXPECT_NE(r.text.find("report DIR [--out FILE]"), std::string::npos);
}

}  // namespace

TEST(CliReport, AFleetsReplayedJobGetsItsOwnPageLinkedFromTheFleets)
{
  TempDir tmp;
  const std::string dir = tmp / "fleet";
  const auto r = fleetsim::testing::run_command(std::string(FLEETSIM_BINARY) + " run " + FLEETSIM_SOURCE_DIR +
                                                "/tests/data/fleet/replayed_beside_jobs.yaml --quiet --out " + dir +
                                                " 2>&1");
  ASSERT_EQ(r.code, 0) << r.text;
  ASSERT_EQ(report(dir).code, 0);
  const std::string fleet = read_file(fs::path(dir) / "report.html");
  EXPECT_NE(fleet.find("<h2>Replayed jobs</h2>"), std::string::npos);
  EXPECT_NE(fleet.find("<a href=\"jobs/llama/report.html\">"), std::string::npos);
  // The job's page is a run report of its own files, with its ETTR from its own summary.
  const std::string job = read_file(fs::path(dir) / "jobs/llama/report.html");
  const auto s = nlohmann::json::parse(read_file(fs::path(dir) / "jobs/llama/summary.json"));
  const std::string ettr = fleetsim::report::fixed(s["ettr"].get<double>(), 4);
  EXPECT_NE(job.find(ettr), std::string::npos) << ettr;
  EXPECT_NE(fleet.find(">" + ettr + "<"), std::string::npos) << ettr;
  // Written elsewhere, the fleet's page links the job's page where it is.
  fs::create_directories(tmp / "elsewhere");
  ASSERT_EQ(report(dir + " --out " + (tmp / "elsewhere/fleet.html")).code, 0);
  EXPECT_NE(read_file(tmp / "elsewhere/fleet.html").find("<a href=\"../fleet/jobs/llama/report.html\">"),
            std::string::npos);
}
