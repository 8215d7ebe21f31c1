// Fleet runs through the fleetsim binary, as a user runs them: the book's gang-scheduling and
// preemption examples, failures on busy and idle nodes, jobs.csv and summary.json.
#include "fleetsim_process.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

using fleetsim::testing::fleetsim_command;
using fleetsim::testing::read_file;
using fleetsim::testing::TempDir;

const std::string kData = std::string(FLEETSIM_SOURCE_DIR) + "/tests/data/fleet/";

// jobs.csv as rows of named cells, by job id.
std::map<std::string, std::map<std::string, std::string>> read_jobs(const std::string& path)
{
  std::istringstream in(read_file(path));
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  for (std::stringstream h(line); std::getline(h, line, ',');)
    header.push_back(line);
  std::map<std::string, std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    std::map<std::string, std::string> row;
    std::stringstream cells(line);
    std::string cell;
    for (const auto& name : header) {
      std::getline(cells, cell, ',');
      row[name] = cell;
    }
    rows[row["job_id"]] = row;
  }
  return rows;
}

double minutes(const std::string& seconds) { return std::stod(seconds) / 60; }

struct FleetRun {
  int code = -1;
  std::string text;
  std::map<std::string, std::map<std::string, std::string>> jobs;
  nlohmann::json summary;
};

FleetRun run(const TempDir& dir, const std::string& scenario, const std::string& sets = "")
{
  FleetRun r;
  const auto out = fleetsim_command("run " + scenario + " " + sets + " --quiet --out " + (dir / "out"));
  r.code = out.code;
  r.text = out.text;
  if (r.code == 0) {
    r.jobs = read_jobs(dir / "out/jobs.csv");
    r.summary = nlohmann::json::parse(read_file(dir / "out/summary.json"));
  }
  return r;
}

// An 8B model on a layout of 64 GPUs (tp 8, dp 8) in a 128-GPU cluster; one job of 2e10 tokens.
std::string token_scenario(const TempDir& dir)
{
  return dir.write("tokens.yaml", R"(name: token_job
cluster: {gpus: 128, gpus_per_node: 8, gpus_per_rack: 16}
model: {parameters: 8e9, layers: 32, hidden: 4096, attention_heads: 32, kv_heads: 8, sequence_length: 8192,
        global_batch_tokens: 2097152, micro_batch_size: 1}
parallelism: {tp: 8, pp: 1, cp: 1, dp: 8}
workload:
  jobs:
    pretrain: {tokens: 2e10}
run: {duration: 30d, step_model: analytic}
)");
}

}  // namespace

TEST(FleetCli, FifoMakesTheShortJobWait48MinutesAndTheWideOne49)
{
  TempDir dir;
  const FleetRun r = run(dir, kData + "book_gang.yaml");
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_DOUBLE_EQ(minutes(r.jobs.at("short").at("wait_s")), 48);
  EXPECT_DOUBLE_EQ(minutes(r.jobs.at("wide").at("wait_s")), 49);
  EXPECT_EQ(r.summary["jobs"]["finished"], 3);
}

TEST(FleetCli, BackfillStartsTheShortJobAtOnceAndTheWideOneStillWaits49Minutes)
{
  TempDir dir;
  const FleetRun r = run(dir, kData + "book_gang.yaml", "--set scheduler.policy=easy_backfill");
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_DOUBLE_EQ(minutes(r.jobs.at("short").at("wait_s")), 0);
  EXPECT_DOUBLE_EQ(minutes(r.jobs.at("wide").at("wait_s")), 49);
}

TEST(FleetCli, FifoMakesThePriorityJobWait36Minutes)
{
  TempDir dir;
  const FleetRun r = run(dir, kData + "book_preemption.yaml", "--set scheduler.policy=fifo");
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_DOUBLE_EQ(minutes(r.jobs.at("urgent").at("wait_s")), 36);
  EXPECT_DOUBLE_EQ(minutes(r.jobs.at("background").at("end_s")), 50);
}

TEST(FleetCli, PreemptionStartsThePriorityJobAtOnceForTwoMinutesOfBackgroundWork)
{
  TempDir dir;
  const FleetRun r = run(dir, kData + "book_preemption.yaml");
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_DOUBLE_EQ(minutes(r.jobs.at("urgent").at("wait_s")), 0);
  EXPECT_DOUBLE_EQ(minutes(r.jobs.at("background").at("end_s")), 55);
  EXPECT_EQ(r.jobs.at("background").at("preemptions"), "1");
  // 32 GPUs x 2 min = 64 GPU-minutes.
  EXPECT_NEAR(r.summary["gpu_hours"]["lost_by_cause"]["preemption"].get<double>() * 60, 64, 0.1);
  EXPECT_NEAR(std::stod(r.jobs.at("background").at("lost_preemption_gpu_h")) * 60, 64, 0.01);
}

TEST(FleetCli, NodeFailuresInterruptOnlyTheJobOnTheNodeAndLostTimeAddsUp)
{
  // One job on half of the cluster's nodes; node failures strike all eight nodes alike.
  TempDir dir;
  const std::string scenario = dir.write("f.yaml", R"(name: busy_and_idle
cluster: {gpus: 64, gpus_per_node: 8, gpus_per_rack: 8}
workload:
  jobs:
    half: {gpus: 32, work: 30d, checkpoint_interval: 1h, checkpoint_cost: 1min, restart_cost: 5min}
repair: {time: 2h}
recovery: {detection: 3min}
failures:
  causes:
    node_fault: {mtbf: 2d, scope: node}
scheduler: {placement: first_fit}
run: {duration: 10d}
)");
  const FleetRun r = run(dir, scenario);
  ASSERT_EQ(r.code, 0) << r.text;
  const long failures = r.summary["failures"];
  const long on_idle = r.summary["failures_on_idle_nodes"];
  const long hit = std::stol(r.jobs.at("half").at("interruptions"));
  EXPECT_GT(failures, 20);
  EXPECT_GT(on_idle, 5);
  EXPECT_GT(hit, 5);
  // Every failure strikes either the job's node or an idle one (a node already in repair cannot fail).
  EXPECT_EQ(hit + on_idle, failures);
  const auto& h = r.summary["gpu_hours"];
  double lost = 0;
  for (const auto& [cause, v] : h["lost_by_cause"].items())
    lost += v.get<double>();
  EXPECT_NEAR(h["allocated"].get<double>() - h["productive"].get<double>(), lost, 1e-2);
  EXPECT_GT(h["lost_by_cause"]["node_fault"].get<double>(), 0);
  EXPECT_GT(h["lost_by_cause"]["checkpoint"].get<double>(), 0);
}

TEST(FleetCli, AJobLargerThanTheClusterIsABadScenario)
{
  TempDir dir;
  const std::string scenario = dir.write("big.yaml", R"(name: too_big
cluster: {gpus: 16, gpus_per_node: 8, gpus_per_rack: 16}
workload:
  jobs:
    huge: {gpus: 64, work: 1h}
run: {duration: 1d}
)");
  const FleetRun r = run(dir, scenario);
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("big.yaml:5:"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("fleet job 'huge' asks for 64 GPUs"), std::string::npos) << r.text;
}

TEST(FleetCli, CompareVariesTheSchedulerPolicyAndWritesFleetColumns)
{
  TempDir dir;
  const auto r = fleetsim_command("compare " + kData + "book_gang.yaml --vary scheduler.policy=fifo,easy_backfill " +
                                  "--quiet --out " + (dir / "cmp"));
  ASSERT_EQ(r.code, 0) << r.text;
  std::istringstream csv(read_file(dir / "cmp/compare.csv"));
  std::string header, fifo, backfill;
  std::getline(csv, header);
  std::getline(csv, fifo);
  std::getline(csv, backfill);
  // The mean first wait: FIFO (0 + 49 + 48) / 3 min, backfill (0 + 49 + 0) / 3 min.
  auto cell = [&](const std::string& row, const std::string& column) {
    std::stringstream h(header), c(row);
    std::string name, value;
    while (std::getline(h, name, ',') && std::getline(c, value, ','))
      if (name == column)
        return std::stod(value);
    ADD_FAILURE() << "no column " << column << " in " << header;
    return -1.0;
  };
  EXPECT_NEAR(cell(fifo, "wait_mean_h"), 97.0 / 3 / 60, 1e-6);
  EXPECT_NEAR(cell(backfill, "wait_mean_h"), 49.0 / 3 / 60, 1e-6);
  EXPECT_NEAR(cell(fifo, "allocated_utilisation"), cell(backfill, "allocated_utilisation"), 1e-9);
}

TEST(FleetCli, SweepReplicasDrawTheirOwnWorkloadsAndReportFleetMetrics)
{
  TempDir dir;
  const std::string sweep = dir.write("s.yaml", "base: " + kData +
                                                    "queue.yaml\nreplicas: 3\nseed: 1\nset:\n"
                                                    "  workload.generator.window: 100d\n  run.duration: 101d\n"
                                                    "vary:\n  cluster.gpus: [1, 2]\n"
                                                    "  cluster.gpus_per_node: [1]\n  cluster.gpus_per_rack: [1]\n");
  const auto r = fleetsim_command("sweep " + sweep + " --quiet --out " + (dir / "sw"));
  ASSERT_EQ(r.code, 0) << r.text;
  const std::string results = read_file(dir / "sw/results.csv");
  EXPECT_NE(results.find("wait_p99_h_mean"), std::string::npos) << results;
  EXPECT_NE(results.find("allocated_utilisation_ci95"), std::string::npos) << results;
  // Three replicas, three different workloads: their job counts differ.
  const auto s1 = nlohmann::json::parse(read_file(dir / "sw/runs/cluster.gpus=1,cluster.gpus_per_node=1,"
                                                        "cluster.gpus_per_rack=1/seed-1/summary.json"));
  const auto s2 = nlohmann::json::parse(read_file(dir / "sw/runs/cluster.gpus=1,cluster.gpus_per_node=1,"
                                                        "cluster.gpus_per_rack=1/seed-2/summary.json"));
  EXPECT_NE(s1["jobs"]["declared"], s2["jobs"]["declared"]);
}

TEST(FleetCli, TheLlama3ReplayAsAOneJobFleetAgreesWithTheSingleJobEngine)
{
  // Two engines, one job: the detailed replay (steps, checkpoint commits, recovery phases) and the
  // fleet's closed-form job model, on the same failure draws. Planned maintenance is off in both.
  TempDir dir;
  const auto replay = fleetsim_command("run " + std::string(FLEETSIM_SOURCE_DIR) +
                                       "/scenarios/llama3_405b_16k.yaml --set planned.count=0 --quiet --out " +
                                       (dir / "replay"));
  ASSERT_EQ(replay.code, 0) << replay.text;
  const FleetRun fleet = run(dir, kData + "llama3_one_job_fleet.yaml");
  ASSERT_EQ(fleet.code, 0) << fleet.text;
  const auto r = nlohmann::json::parse(read_file(dir / "replay/summary.json"));
  const double replay_ettr = r["ettr"].get<double>();
  const double fleet_ettr = std::stod(fleet.jobs.at("llama3").at("ettr"));
  EXPECT_NEAR(fleet_ettr, replay_ettr, 0.005);
  const double replay_hits = r["interruptions"]["unexpected"].get<double>();
  const double fleet_hits = std::stod(fleet.jobs.at("llama3").at("interruptions"));
  EXPECT_NEAR(fleet_hits / replay_hits, 1, 0.03);
}

TEST(FleetCli, ATokenTargetRunsAtTheStepModelsSpeed)
{
  // A job with tokens instead of work trains at the scenario's model and layout's step time: its run
  // time is tokens / (tokens per step / step time), the figures `fleetsim step` prints. Its GPUs
  // default to the layout's (tp x cp x pp x dp = 64 here), on a cluster twice that size.
  TempDir dir;
  const std::string scenario = token_scenario(dir);
  const auto step = fleetsim_command("step " + scenario + " --quiet --out " + (dir / "step"));
  ASSERT_EQ(step.code, 0) << step.text;
  const auto s = nlohmann::json::parse(read_file(dir / "step/step.json"));
  const double tokens_per_second = s["tokens_per_step"].get<double>() / s["step_time_s"].get<double>();
  const FleetRun r = run(dir, scenario);
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_EQ(r.jobs.at("pretrain").at("gpus"), "64");
  EXPECT_NEAR(std::stod(r.jobs.at("pretrain").at("end_s")), 2e10 / tokens_per_second, 1e-3);
  // jobs.csv says how far each job got: all of it here ...
  EXPECT_EQ(r.jobs.at("pretrain").at("complete"), "1.000000");
  EXPECT_NEAR(std::stod(r.jobs.at("pretrain").at("tokens_trained")), 2e10, 1);
  // ... and, with a window that closes halfway, the work done so far (its uncommitted part too,
  // as in a replay) and the tokens it trained.
  const double end = std::stod(r.jobs.at("pretrain").at("end_s"));
  const FleetRun half = run(dir, scenario, "--set run.duration=" + std::to_string(end / 2) + "s");
  ASSERT_EQ(half.code, 0) << half.text;
  const auto& job = half.jobs.at("pretrain");
  EXPECT_EQ(job.at("state"), "running");
  const double progress = std::stod(job.at("progress_s"));
  EXPECT_GT(progress, 0.4 * 2e10 / tokens_per_second);
  EXPECT_LE(progress, 0.5 * 2e10 / tokens_per_second + 1e-3);  // (this job has no checkpoint or start-up cost)
  EXPECT_NEAR(std::stod(job.at("complete")), progress / (2e10 / tokens_per_second), 1e-6);
  EXPECT_NEAR(std::stod(job.at("tokens_trained")), progress * tokens_per_second, 1);
  EXPECT_EQ(job.at("end_s"), "");
}

TEST(FleetCli, AJobByTokensOnGpusOtherThanItsLayoutsIsABadScenario)
{
  // Its speed is its layout's step (tp x cp x pp x dp = 64 GPUs): on 32 it would not be.
  TempDir dir;
  const std::string scenario = token_scenario(dir);
  const FleetRun wrong = run(dir, scenario, "--set workload.jobs.pretrain.gpus=32");
  EXPECT_EQ(wrong.code, 2) << wrong.text;
  EXPECT_NE(wrong.text.find("'workload.jobs.pretrain.gpus' (32) disagrees with the layout"), std::string::npos)
      << wrong.text;
  EXPECT_EQ(run(dir, scenario, "--set workload.jobs.pretrain.gpus=64").code, 0);  // the layout's own
}

// network.fleet_fabric: shared (simulator/platform/fleet_fabric.hpp) on tests/data/fleet/key_walk.yaml
// with its racks' uplinks at 1:4: jobs scattered over racks share them and slow, jobs packed by
// topology cross fewer of them; isolated, nothing slows.
TEST(FleetCli, OnASharedFabricScatteredJobsLoseMoreToContentionThanPackedOnes)
{
  TempDir dir;
  const std::string fixture = kData + "key_walk.yaml";
  const std::string shared = "--set network.fleet_fabric=shared --set network.rack_oversubscription=4 ";
  const FleetRun random = run(dir, fixture, shared + "--set scheduler.placement=random");
  ASSERT_EQ(random.code, 0) << random.text;
  const FleetRun packed = run(dir, fixture, shared + "--set scheduler.placement=topology");
  ASSERT_EQ(packed.code, 0) << packed.text;
  const double lost_random = random.summary["fabric"]["contention_gpu_hours"].get<double>();
  const double lost_packed = packed.summary["fabric"]["contention_gpu_hours"].get<double>();
  EXPECT_GT(lost_random, 2 * lost_packed);
  EXPECT_GT(random.summary["fabric"]["utilisation_rack"].get<double>(), 0);
  EXPECT_GT(packed.summary["goodput_gpu_hours"].get<double>(), random.summary["goodput_gpu_hours"].get<double>());
  // (An isolated fabric reads no oversubscription: network.rack_oversubscription is refused there.)
  const FleetRun isolated = run(dir, fixture, "--set scheduler.placement=random");
  ASSERT_EQ(isolated.code, 0) << isolated.text;
  EXPECT_FALSE(isolated.summary.contains("fabric"));
  // Per job: nothing slows an isolated job; on the shared fabric, scattered jobs slow, and the token
  // job's mean step is its isolated step times its slowdown.
  double most = 1;
  for (const auto& [id, row] : random.jobs)
    if (!row.at("slowdown").empty())
      most = std::max(most, std::stod(row.at("slowdown")));
  EXPECT_GT(most, 1.1);
  for (const auto& [id, row] : isolated.jobs) {
    if (!row.at("slowdown").empty()) {
      EXPECT_EQ(row.at("slowdown"), "1.000000") << id;
    }
  }
  // The token job's isolated mean step is its layout's step, as `fleetsim step` times it on its own
  // (another command, another code path); on the shared fabric, scattered, it is longer.
  const auto step = fleetsim_command("step " + fixture + " --quiet --out " + (dir / "step"));
  ASSERT_EQ(step.code, 0) << step.text;
  std::ifstream step_json(dir / "step/step.json");
  const double alone = nlohmann::json::parse(step_json)["step_time_s"].get<double>();
  EXPECT_NEAR(std::stod(isolated.jobs.at("llm").at("mean_step_s")), alone, 1e-4 * alone);
  EXPECT_GT(std::stod(random.jobs.at("llm").at("mean_step_s")), alone * (1 + 1e-3));
  EXPECT_FALSE(isolated.summary["gpu_hours"]["lost_by_cause"].contains("contention"));
}

// The shipped shared-fabric scenario (docs/models/fleet.md has its 7-day table), two days of it:
// packed by topology the pre-training jobs cross the 1:7 pod uplinks little and keep their speed;
// scattered they slow, train fewer tokens and lose GPU-hours to contention.
TEST(FleetCli, TheSharedFabricScenarioTrainsMoreTokensPackedThanScattered)
{
  TempDir dir;
  const std::string scenario = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/fleet_shared_fabric.yaml";
  const std::string short_run = "--set run.duration=2d --set workload.generator.window=2d ";
  auto tokens = [](const FleetRun& r) {
    double t = 0;
    for (const auto& [id, row] : r.jobs)
      if (id.rfind("pretrain", 0) == 0)
        t += std::stod(row.at("tokens_trained"));
    return t;
  };
  const FleetRun packed = run(dir, scenario, short_run + "--set scheduler.placement=topology");
  ASSERT_EQ(packed.code, 0) << packed.text;
  const FleetRun scattered = run(dir, scenario, short_run + "--set scheduler.placement=random");
  ASSERT_EQ(scattered.code, 0) << scattered.text;
  EXPECT_GT(tokens(packed), 1.05 * tokens(scattered));
  EXPECT_LT(packed.summary["fabric"]["contention_gpu_hours"].get<double>(),
            0.1 * scattered.summary["fabric"]["contention_gpu_hours"].get<double>());
  EXPECT_GT(scattered.summary["fabric"]["utilisation_pod"].get<double>(),
            packed.summary["fabric"]["utilisation_pod"].get<double>());
}

// workload.defaults.checkpoint_size_per_gpu: a trace's jobs write their checkpoints through the
// shared storage from their own nodes. k jobs of S bytes checkpointing at once into servers of
// bandwidth B each take k S / B (from the SimGrid resources: nothing in the fleet computes it), and
// a job's own storage client is not needed.
TEST(FleetCli, KTraceJobsCheckpointingAtOnceEachTakeKTimesSOverB)
{
  TempDir dir;
  for (int k : {1, 2, 4}) {
    std::string trace = "id,submit,gpus,duration\n";
    for (int j = 0; j < k; ++j)
      trace += "j" + std::to_string(j) + ",0,8,10800\n";
    dir.write("k.csv", trace);
    const std::string scenario = dir.write("k.yaml", R"(name: k_trace_jobs
cluster: {gpus: 64, gpus_per_node: 8, gpus_per_rack: 16}
storage: {write_bandwidth: 100GB/s, read_bandwidth: 100GB/s}
workload:
  trace: {file: k.csv, preset: none, columns: {id: id, submit: submit, gpus: gpus, duration: duration}}
  defaults: {checkpoint_interval: 1h, checkpoint_cost: 1s, checkpoint_size_per_gpu: 100GB}
scheduler: {policy: fifo}
run: {duration: 1d}
)");
    const FleetRun r = run(dir, scenario);
    ASSERT_EQ(r.code, 0) << r.text;
    // S = 8 x 100 GB: two checkpoints of k S / B each in 3 h of work (none after the last piece).
    const double each = k * 800e9 / 100e9;
    for (const auto& [id, row] : r.jobs) {
      EXPECT_NEAR(std::stod(row.at("end_s")), 10800 + 2 * each, 1e-3) << "k=" << k << " " << id;
      EXPECT_NEAR(std::stod(row.at("lost_checkpoint_gpu_h")), 2 * each * 8 / 3600, 1e-4) << "k=" << k;
    }
  }
}

// data.bytes_per_token in a fleet: jobs declared by tokens read their training data from the shared
// storage at their token rate. Two such jobs whose rates add up to more than the storage's read
// bandwidth B each get B / 2 and train at that share of their speed; alone on ample storage a job
// keeps its step. A fleet without a job declared by tokens refuses the key.
TEST(FleetCli, JobsReadingMoreDataThanTheStorageGivesTrainAtTheirShare)
{
  TempDir dir;
  const std::string scenario = token_scenario(dir);
  const FleetRun plain = run(dir, scenario);
  ASSERT_EQ(plain.code, 0) << plain.text;
  const double step = std::stod(plain.jobs.at("pretrain").at("mean_step_s"));
  const double rate = 2097152 / step * 1e6;  // bytes/s a job reads at 1 MB per token
  auto with = [&](double read_bandwidth, int count) {
    return run(dir, scenario,
               "--set data.bytes_per_token=1MB --set storage.read_bandwidth=" + std::to_string(read_bandwidth / 1e9) +
                   "GB/s --set storage.write_bandwidth=100GB/s --set workload.jobs.pretrain.count=" +
                   std::to_string(count));
  };
  const FleetRun ample = with(4 * rate, 1);
  ASSERT_EQ(ample.code, 0) << ample.text;
  EXPECT_EQ(ample.jobs.at("pretrain").at("slowdown"), "1.000000");
  const double b = 1.2 * rate;  // two jobs ask for 2 x rate
  const FleetRun scarce = with(b, 2);
  ASSERT_EQ(scarce.code, 0) << scarce.text;
  for (const char* id : {"pretrain-1", "pretrain-2"}) {
    EXPECT_NEAR(std::stod(scarce.jobs.at(id).at("slowdown")), 2 * rate / b, 1e-3) << id;
    EXPECT_NEAR(std::stod(scarce.jobs.at(id).at("mean_step_s")), step * 2 * rate / b, 1e-2) << id;
  }
  EXPECT_GT(scarce.summary["gpu_hours"]["lost_by_cause"]["data_stall"].get<double>(), 0);
  const FleetRun refused = run(dir, kData + "book_gang.yaml", "--set data.bytes_per_token=1MB");
  EXPECT_EQ(refused.code, 2) << refused.text;
  EXPECT_NE(refused.text.find("'data.bytes_per_token' needs a job that trains tokens"), std::string::npos)
      << refused.text;
}

TEST(FleetCli, ASharedFleetFabricOnATorusIsABadScenario)
{
  TempDir dir;
  const FleetRun r = run(dir, kData + "key_walk.yaml",
                         "--set network.fleet_fabric=shared --set network.topology=torus --set network.torus_dims=4x4x4");
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("'network.fleet_fabric: shared' needs 'network.topology: clos'"), std::string::npos) << r.text;
}

TEST(FleetCli, AJobWithBothWorkAndTokensIsABadScenario)
{
  TempDir dir;
  const auto r = run(dir, kData + "llama3_one_job_fleet.yaml", "--set workload.jobs.llama3.tokens=1e12");
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("give work (a duration) or tokens, not both"), std::string::npos) << r.text;
}
