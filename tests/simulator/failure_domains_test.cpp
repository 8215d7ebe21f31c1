// Failure domains: every failure takes down the GPUs of its scope, as events.csv reports.
#include "replay_outputs.hpp"

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace fleetsim::testing {
namespace {

TEST(FailureDomains, ASwitchFailureTakesDownAllGpusBehindIt)
{
  // The Llama 3 replay: 35 rack (switch or cable) failures per 54 days among 419; racks of 16 GPUs.
  auto r = run_child({scenario_path("scenarios/llama3_405b_16k.yaml"), {}, 1, true});
  ASSERT_TRUE(r.ok) << r.error;
  std::istringstream in(r.events);
  std::string line;
  std::getline(in, line);
  ASSERT_EQ(line, "time_s,event,cause,component,during,duration_s,outcome,gpus_down");
  std::map<std::string, std::vector<long>> down_by_scope;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');)
      f.push_back(cell);
    if (f.size() < 8 || f[1] != "failure")
      continue;
    down_by_scope[f[3].substr(0, f[3].find(':'))].push_back(std::stol(f[7]));
  }
  ASSERT_FALSE(down_by_scope["rack"].empty());
  for (long n : down_by_scope["rack"])
    EXPECT_EQ(n, 16);
  for (long n : down_by_scope["node"])
    EXPECT_EQ(n, 8);
  for (long n : down_by_scope["gpu"])
    EXPECT_EQ(n, 1);
  for (long n : down_by_scope["job"])
    EXPECT_EQ(n, 16384);
  EXPECT_GT(down_by_scope["gpu"].size(), down_by_scope["rack"].size());
}

TEST(FailureDomains, AStorageOutageHoldsTheReloadUntilStorageIsBackButNotAnInMemoryRestore)
{
  // Only storage outages (fixed 1 h), and no other failure: every outage interrupts the job; a
  // restart from storage waits, after detection (2 min) and restart (6 min), for the remaining 52 min.
  std::vector<std::string> sets = llama3_without_failures();
  for (const char* extra :
       {"planned.count=0", "failures.causes.outage.count=10", "failures.causes.outage.scope=storage",
        "failures.causes.outage.repair=1h"})
    sets.emplace_back(extra);
  std::vector<std::string> memory = sets;
  memory.push_back("recovery.policy=in_memory");
  auto runs = run_children({{scenario_path("scenarios/llama3_405b_16k.yaml"), sets, 1, true},
                            {scenario_path("scenarios/llama3_405b_16k.yaml"), memory, 1, true}});
  for (const auto& r : runs)
    ASSERT_TRUE(r.ok) << r.error;
  const auto& from_storage = runs[0].summary;
  const auto& from_memory = runs[1].summary;
  const long outages = from_storage["interruptions"]["unexpected"].get<long>();
  ASSERT_GT(outages, 3);
  EXPECT_EQ(from_memory["interruptions"]["unexpected"].get<long>(), outages);
  // Outages 54 days apart on average / 10 never overlap here: each one waits 52 min exactly.
  EXPECT_NEAR(from_storage["time_breakdown_s"]["waiting"].get<double>(), outages * 52 * 60.0, 1e-3);
  EXPECT_NEAR(from_storage["lost_time_by_cause_s"]["outage"].get<double>(),
              from_storage["time_breakdown_s"]["waiting"].get<double>() +
                  from_storage["time_breakdown_s"]["detection"].get<double>() +
                  from_storage["time_breakdown_s"]["restart"].get<double>() +
                  from_storage["time_breakdown_s"]["reload"].get<double>() +
                  from_storage["time_breakdown_s"]["warmup"].get<double>() +
                  from_storage["time_breakdown_s"]["lost_work"].get<double>(),
              1e-3);
  EXPECT_EQ(from_memory["time_breakdown_s"]["waiting"].get<double>(), 0.0);
  // Every outage took the whole job down, and is labelled as the storage service.
  std::istringstream in(runs[0].events);
  std::string line;
  long rows = 0;
  while (std::getline(in, line))
    if (line.find(",failure,outage,") != std::string::npos) {
      ++rows;
      EXPECT_NE(line.find(",outage,storage,"), std::string::npos) << line;
      EXPECT_EQ(line.substr(line.rfind(',') + 1), "16384") << line;
    }
  EXPECT_EQ(rows, outages);
}

}  // namespace
}  // namespace fleetsim::testing
