// Failure domains: every failure takes down the GPUs of its scope, as events.csv reports.
#include "run_in_child.hpp"

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

}  // namespace
}  // namespace fleetsim::testing
