// Fleet jobs whose checkpoints and restores go through the shared storage system, through the
// fleetsim binary: concurrent checkpoints share the servers or are held back by the jobs' NICs, as
// the SimGrid resources dictate; a failure during a write loses it.
#include "fleetsim_process.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

using fleetsim::testing::fleetsim_command;
using fleetsim::testing::read_csv;
using fleetsim::testing::read_file;
using fleetsim::testing::TempDir;

const std::string kScenario = std::string(FLEETSIM_SOURCE_DIR) + "/tests/data/fleet/storage_jobs.yaml";

struct Window {
  double t0 = 0, t1 = 0, write = 0;
};

// The storage's busy windows (storage.csv rows with a write load, until the next row).
std::vector<Window> write_windows(const std::string& csv)
{
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "time_s,write_Bps,read_Bps,servers_Bps,servers_capacity_Bps,burst_credit_bytes");
  std::vector<std::pair<double, double>> rows;  // t, write load
  while (std::getline(in, line)) {
    std::stringstream cells(line);
    std::string t, w;
    std::getline(cells, t, ',');
    std::getline(cells, w, ',');
    rows.emplace_back(std::stod(t), std::stod(w));
  }
  std::vector<Window> out;
  for (size_t i = 0; i + 1 < rows.size(); ++i)
    if (rows[i].second > 0)
      out.push_back({rows[i].first, rows[i + 1].first, rows[i].second});
  return out;
}

std::vector<Window> run_windows(const TempDir& dir, const std::string& sets)
{
  const auto r = fleetsim_command("run " + kScenario + " " + sets + " --quiet --out " + (dir / "out"));
  EXPECT_EQ(r.code, 0) << r.text;
  return write_windows(read_file(dir / "out/storage.csv"));
}

TEST(FleetStorage, KJobsCheckpointingAtOnceEachTakeKTimesSOverBWhenTheServersBind)
{
  for (int k : {1, 2, 4}) {
    TempDir dir;
    const auto w = run_windows(dir, "--set workload.jobs.train.count=" + std::to_string(k));
    ASSERT_GT(w.size(), 10U) << k << " jobs";
    // The first checkpoint falls due after the 5 min restart and 10 min of training.
    EXPECT_NEAR(w[0].t0, 900, 1e-3);
    EXPECT_NEAR(w[0].t1 - w[0].t0, k * 1e12 / 100e9, 1e-3) << k << " jobs";
    EXPECT_NEAR(w[0].write, 100e9, 1);  // the servers run flat out
  }
}

TEST(FleetStorage, WhenTheJobsNicsBindEachTakesSOverItsClientLimit)
{
  // Servers at 1 TB/s, NICs at 1 GB/s: a 32-node job writes at 32 GB/s, alone or with others.
  for (int k : {1, 3}) {
    TempDir dir;
    const auto w = run_windows(dir,
                               "--set storage.write_bandwidth=1TB/s --set storage.client_bandwidth=1GB/s "
                               "--set workload.jobs.train.count=" +
                                   std::to_string(k));
    ASSERT_FALSE(w.empty());
    EXPECT_NEAR(w[0].t1 - w[0].t0, 1e12 / 32e9, 1e-3) << k << " jobs";
    EXPECT_NEAR(w[0].write, k * 32e9, 1);
  }
}

TEST(FleetStorage, ContendedCheckpointsCostTheJobsTheirSharedTime)
{
  TempDir dir;
  const auto r = fleetsim_command("run " + kScenario + " --quiet --out " + (dir / "out"));
  ASSERT_EQ(r.code, 0) << r.text;
  const auto s = nlohmann::json::parse(read_file(dir / "out/summary.json"));
  // 1 day of work in 10-min intervals: 143 checkpoints of 40 s on 256 GPUs, 4 jobs.
  EXPECT_NEAR(s["gpu_hours"]["lost_by_cause"]["checkpoint"].get<double>(), 4 * 143 * 40.0 * 256 / 3600, 0.5);
  // Alone, each would have cost a quarter of that.
  TempDir one;
  const auto r1 = fleetsim_command("run " + kScenario + " --set workload.jobs.train.count=1 --quiet --out " +
                                   (one / "out"));
  ASSERT_EQ(r1.code, 0) << r1.text;
  const auto s1 = nlohmann::json::parse(read_file(one / "out/summary.json"));
  EXPECT_NEAR(s1["gpu_hours"]["lost_by_cause"]["checkpoint"].get<double>(), 143 * 10.0 * 256 / 3600, 0.5);
}

TEST(FleetStorage, ARestartAfterAFailureReadsTheCheckpointBackThroughTheStorage)
{
  // Node failures: restarts read the last checkpoint back through the storage (what a failure during
  // a write loses is tested on the fleet's state, tests/models/fleet_io_test.cpp).
  TempDir dir;
  const auto r = fleetsim_command("run " + kScenario +
                                  " --set failures.causes.crash.mtbf=20d --set failures.causes.crash.scope=node "
                                  "--set run.duration=4d --seed 3 --quiet --out " +
                                  (dir / "out"));
  ASSERT_EQ(r.code, 0) << r.text;
  std::istringstream in(read_file(dir / "out/storage.csv"));
  std::string line;
  std::getline(in, line);
  bool read_seen = false;
  while (std::getline(in, line)) {
    std::stringstream cells(line);
    std::string t, w, rd;
    std::getline(cells, t, ',');
    std::getline(cells, w, ',');
    std::getline(cells, rd, ',');
    read_seen = read_seen || std::stod(rd) > 0;
  }
  EXPECT_TRUE(read_seen) << "no restore read";
  const auto s = nlohmann::json::parse(read_file(dir / "out/summary.json"));
  EXPECT_GT(s["interruptions"].get<long>(), 0);
}

TEST(FleetStorage, AsyncJobsStallForTheirSnapshotWhileTheirWritesStillShareTheServers)
{
  TempDir dir;
  const auto w = run_windows(dir, "--set workload.jobs.train.checkpoint_strategy=async");
  ASSERT_GT(w.size(), 10U);
  EXPECT_NEAR(w[0].t1 - w[0].t0, 4 * 1e12 / 100e9, 1e-3);  // the four drains still take 40 s
  const auto s = nlohmann::json::parse(read_file(dir / "out/summary.json"));
  // Each job's share of 1 TB over 256 GPUs, at the default 25 GB/s per GPU: 0.156 s per pause.
  const double snapshot = 1e12 / 256 / 25e9;
  EXPECT_NEAR(s["gpu_hours"]["lost_by_cause"]["checkpoint"].get<double>(), 4 * 143 * snapshot * 256 / 3600, 0.05);
  // async without a checkpoint size has nothing to drain: refused, with the key.
  const auto bad = fleetsim_command(
      "run " + kScenario +
      " --set workload.jobs.train.checkpoint_strategy=async "
      "--set workload.jobs.other.work=1h --set workload.jobs.other.checkpoint_strategy=async "
      "--quiet --out " +
      (dir / "bad"));
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.text.find("workload.jobs.other.checkpoint_strategy"), std::string::npos) << bad.text;
}

}  // namespace

namespace {

// jobs.csv's cells of job `id`, by column name.
std::map<std::string, std::string> job_row(const std::string& csv, const std::string& id)
{
  std::istringstream in(csv);
  std::string header, line, cell;
  std::getline(in, header);
  while (std::getline(in, line)) {
    if (line.rfind(id + ",", 0) != 0)
      continue;
    std::map<std::string, std::string> row;
    std::stringstream names(header), cells(line);
    for (std::string name; std::getline(names, name, ',');) {
      std::getline(cells, cell, ',');
      row[name] = cell;
    }
    return row;
  }
  ADD_FAILURE() << "no job " << id;
  return {};
}

}  // namespace

namespace {

// Each outage costs each job about its 2 h on its 256 GPUs; `more`: further --set options.
void expect_outages_hold_restores(const std::string& more)
{
  TempDir dir;
  const auto r = fleetsim_command(
      "run " + kScenario +
      " --set failures.causes.outage.scope=storage --set failures.causes.outage.mtbf=12h"
      " --set failures.causes.outage.repair=2h --set failures.causes.outage.detection=1min"
      " --set workload.jobs.train.count=1 --set workload.jobs.train.work=10d"
      " --set workload.jobs.plain.gpus=256 --set workload.jobs.plain.work=10d"
      " --set workload.jobs.plain.checkpoint_interval=10min --set workload.jobs.plain.checkpoint_cost=10s"
      " --set workload.jobs.plain.restart_cost=5min --set run.duration=4d --quiet --out " +
      (dir / "out") + more);
  ASSERT_EQ(r.code, 0) << r.text;
  const std::string jobs = read_file(dir / "out/jobs.csv");
  for (const char* id : {"train", "plain"}) {
    const auto row = job_row(jobs, id);
    const double hits = std::stod(row.at("interruptions"));
    EXPECT_GE(hits, 5) << id;
    EXPECT_GT(std::stod(row.at("lost_failures_gpu_h")), 0.8 * hits * 256 * 2) << id;
    EXPECT_LT(std::stod(row.at("lost_failures_gpu_h")), 1.2 * hits * 256 * 2) << id;
  }
}

// Bytes written in a storage.csv: each row's write rate until the next row (the last row's end is
// not in the file).
double written_bytes(const std::filesystem::path& csv)
{
  const fleetsim::testing::Csv c = read_csv(csv);
  double bytes = 0;
  for (size_t i = 0; i + 1 < c.rows.size(); ++i)
    bytes += std::stod(c.cell(i, "write_Bps")) * (std::stod(c.cell(i + 1, "time_s")) - std::stod(c.cell(i, "time_s")));
  return bytes;
}

// Two Llama 3 jobs replayed side by side write their checkpoints to the one storage: each job's
// storage.csv is its own traffic (its committed checkpoints' bytes), not the fleet's, and the two
// add up to the fleet's storage.csv. (Each job's file was a copy of the fleet's whole record, and
// each job's energy had the storage's and the spare nodes' draw.)
TEST(FleetStorage, EachReplayedJobsRecordIsItsOwnTraffic)
{
  TempDir dir;
  const auto r = fleetsim_command("run " + std::string(FLEETSIM_SOURCE_DIR) +
                                  "/tests/data/fleet/two_replayed_jobs.yaml --set run.duration=5d --quiet --out " +
                                  (dir / "out"));
  ASSERT_EQ(r.code, 0) << r.text;
  const double fleet = written_bytes(dir / "out/storage.csv");
  double jobs = 0;
  double job_mwh = 0;
  std::vector<long> committed;
  for (const char* id : {"a", "b"}) {
    const std::string job = "out/jobs/" + std::string(id);
    const nlohmann::json s = nlohmann::json::parse(read_file(dir / (job + "/summary.json")));
    const double bytes = s["checkpoints"]["bytes"].get<double>();
    committed.push_back(s["checkpoints"]["committed"].get<long>());
    const double own = written_bytes(dir / (job + "/storage.csv"));
    // Its committed checkpoints, give or take the one its last row holds and the few a failure cut short.
    EXPECT_GT(own, (static_cast<double>(committed.back()) - 1) * bytes) << id;
    EXPECT_LT(own, (static_cast<double>(committed.back()) + 3) * bytes) << id;
    jobs += own;
    // Its energy leaves the storage servers' fixed draw (2.25 MW; no energy per byte here) and the
    // shared spare nodes to the fleet's account, which holds them once: each job counted them.
    EXPECT_EQ(s["energy"]["by_component_mwh"]["storage"].get<double>(), 0.0) << id;
    job_mwh += s["energy"]["facility_mwh"].get<double>();
  }
  EXPECT_NE(committed[0], committed[1]);  // (b waits for spares longer: the two records differ)
  EXPECT_GT(fleet, 0);
  EXPECT_NEAR(jobs, fleet, 2 * 5.7344e12);
  const nlohmann::json f = nlohmann::json::parse(read_file(dir / "out/summary.json"));
  EXPECT_NEAR(f["energy"]["by_component_mwh"]["storage"].get<double>(), 2.25 * 120, 1e-6);
  EXPECT_LT(job_mwh, f["energy"]["facility_mwh"].get<double>());
}

// Replayed jobs that load their data end one after the other while the others still checkpoint:
// each job's data loader stops watching the storage when the job ends (its runtime is freed then,
// and the storage told its loader of every later transfer; a sanitized build saw the use after free).
TEST(FleetStorage, ReplayedJobsThatLoadDataEndWhileOthersStillWrite)
{
  TempDir dir;
  const auto r = fleetsim_command("run " + std::string(FLEETSIM_SOURCE_DIR) +
                                  "/tests/data/fleet/many_short_replayed_jobs.yaml --set workload.jobs.s8.count=20 "
                                  "--set data.bytes_per_token=4B --quiet --out " +
                                  (dir / "out"));
  ASSERT_EQ(r.code, 0) << r.text;
  const fleetsim::testing::Csv jobs = read_csv(dir / "out/jobs.csv");
  ASSERT_EQ(jobs.rows.size(), 20U);
  std::vector<double> ends;
  for (size_t i = 0; i < jobs.rows.size(); ++i) {
    EXPECT_EQ(jobs.cell(i, "state"), "done") << i;
    ends.push_back(std::stod(jobs.cell(i, "end_s")));
  }
  // The first ends more than two checkpoint intervals (10 minutes each) before the last: the later
  // ones go on writing checkpoints after it.
  EXPECT_GT(*std::max_element(ends.begin(), ends.end()) - *std::min_element(ends.begin(), ends.end()), 1200.0);
}

}  // namespace

// The same when the job without a checkpoint_size writes and restores through the storage from its
// own nodes (workload.defaults.checkpoint_size_per_gpu): its transfers wait for the storage's return.
TEST(FleetStorage, AStorageOutageHoldsTheRestoreOfAJobStoringFromItsNodes)
{
  expect_outages_hold_restores(" --set workload.defaults.checkpoint_size_per_gpu=1GB");
}

TEST(FleetStorage, AStorageOutageHoldsEveryJobsRestoreUntilTheStorageIsBack)
{
  // Outages of the storage (every 12 h on average, 2 h each), detected in a minute, strike both a
  // job whose checkpoints go through the storage and one with closed-form costs (its restart of 5
  // min includes the reload). Neither can restore before the storage is back: each outage costs each
  // job about its 2 h on its 256 GPUs, where detection, restart and lost work alone are ~15 min.
  expect_outages_hold_restores("");
}
