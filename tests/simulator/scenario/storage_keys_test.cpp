// The storage, checkpoint-strategy and data-loading keys: what they load to, and the combinations
// the loader refuses with the file, line and key.
#include "simulator/scenario/scenario_loader.hpp"

#include <gtest/gtest.h>

#include <string>

namespace fleetsim::scenario {
namespace {

LoadResult load(std::string_view yaml) { return load_scenario_text(yaml, "test.yaml", {}); }

Diagnostic only_error(const LoadResult& r)
{
  EXPECT_EQ(r.diagnostics.items().size(), 1u) << r.diagnostics.to_string();
  EXPECT_FALSE(r.scenario.has_value());
  return r.diagnostics.items().empty() ? Diagnostic{} : r.diagnostics.items().front();
}

constexpr const char* kBase =
    "name: t\ncluster: {gpus: 64}\nparallelism: {tp: 8, pp: 1, dp: 8}\nrun: {step_model: analytic}\n";

TEST(StorageKeys, LoadStrategyPolicyStorageAndDataLoading)
{
  const auto r = load(std::string(kBase) +
                      "storage: {bandwidth: 2TB/s, burst_bandwidth: 7TB/s, burst_bytes: 50TB, client_bandwidth: "
                      "50GB/s, metadata_rate: 20000}\n"
                      "checkpoint: {strategy: async, snapshot_bandwidth: 50GB/s, host_buffers: 2, policy: adaptive, "
                      "prior_mtbf: 6h, files: per_node, corrupt_probability: 0.01}\n"
                      "data: {bytes_per_token: 4B, prefetch_steps: 3}\n"
                      // A failure to restore after: the corruption of a checkpoint is found when it is read.
                      "failures: {causes: {node: {mtbf: 100d, scope: node}}}\n");
  ASSERT_TRUE(r.scenario) << r.diagnostics.to_string();
  const Scenario& s = *r.scenario;
  EXPECT_EQ(s.checkpoint.strategy, CheckpointStrategy::Async);
  EXPECT_EQ(s.checkpoint.policy, "adaptive");
  EXPECT_DOUBLE_EQ(s.checkpoint.prior_mtbf.si(), 6 * 3600);
  EXPECT_EQ(s.checkpoint.host_buffers, 2);
  EXPECT_EQ(s.checkpoint.files, CheckpointFiles::PerNode);
  EXPECT_DOUBLE_EQ(s.checkpoint.corrupt_probability, 0.01);
  EXPECT_DOUBLE_EQ(s.storage.burst_bandwidth.si(), 7e12);
  EXPECT_DOUBLE_EQ(s.storage.burst_bytes.si(), 50e12);
  EXPECT_DOUBLE_EQ(s.storage.client_bandwidth.si(), 50e9);
  EXPECT_DOUBLE_EQ(s.storage.metadata_rate, 20000);
  EXPECT_DOUBLE_EQ(s.data.bytes_per_token.si(), 4);
  EXPECT_EQ(s.data.prefetch_steps, 3);
}

TEST(StorageKeys, ABurstNeedsItsCreditAndASustainedRateBelowIt)
{
  auto d = only_error(load(std::string(kBase) + "storage:\n  bandwidth: 2TB/s\n  burst_bandwidth: 7TB/s\n"));
  EXPECT_EQ(d.where.line, 7);
  EXPECT_NE(d.message.find("storage.burst_bytes"), std::string::npos) << d.message;
  d = only_error(
      load(std::string(kBase) + "storage:\n  bandwidth: 8TB/s\n  burst_bandwidth: 7TB/s\n  burst_bytes: 1TB\n"));
  EXPECT_NE(d.message.find("must exceed 'storage.bandwidth'"), std::string::npos) << d.message;
}

TEST(StorageKeys, MultiLevelNeedsTheInMemoryRecoveryPolicy)
{
  const auto d = only_error(load(std::string(kBase) + "checkpoint:\n  strategy: multi_level\n"));
  EXPECT_EQ(d.where.line, 6);
  EXPECT_NE(d.message.find("recovery.policy: in_memory"), std::string::npos) << d.message;
  EXPECT_TRUE(
      load(std::string(kBase) + "checkpoint: {strategy: multi_level}\nrecovery: {policy: in_memory}\n" +
           "failures: {causes: {node: {mtbf: 100d, scope: node}}}\n")  // (a recovery policy acts on failures)
          .scenario);
}

TEST(StorageKeys, AFleetRefusesWhatItDoesNotModelYet)
{
  const std::string fleet =
      "name: f\ncluster: {gpus: 64}\n"
      "workload:\n  jobs:\n    a: {gpus: 8, work: 1h, checkpoint_interval: 30min, checkpoint_size: 1TB}\n";
  EXPECT_TRUE(load(fleet).scenario);
  for (const char* extra : {"checkpoint: {strategy: async}\n", "checkpoint: {policy: daly}\n",
                            "checkpoint: {corrupt_probability: 0.1}\n"}) {
    const auto d = only_error(load(fleet + extra));
    EXPECT_EQ(d.where.line, 6) << extra;
    EXPECT_NE(d.message.find("applies to a single job's replay; a fleet (workload.*) reads it only for"),
              std::string::npos)
        << d.message;
  }
  // Data loading needs a token rate: a fleet loads data only for its jobs declared by tokens.
  const auto d = only_error(load(fleet + "data: {bytes_per_token: 4B}\n"));
  EXPECT_EQ(d.where.line, 6);
  EXPECT_NE(d.message.find("'data.bytes_per_token' needs a job that trains tokens"), std::string::npos) << d.message;
}

TEST(StorageKeys, APrefetchBufferHoldsAtLeastOneBatch)
{
  const auto d = only_error(load(std::string(kBase) + "data:\n  bytes_per_token: 4B\n  prefetch_steps: 0\n"));
  EXPECT_EQ(d.where.line, 7);
  EXPECT_NE(d.message.find("data.prefetch_steps"), std::string::npos) << d.message;
}

}  // namespace
}  // namespace fleetsim::scenario
