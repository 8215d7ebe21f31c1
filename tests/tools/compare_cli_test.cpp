// Black-box tests of `fleetsim compare`: the grid of points, the same seeds at every point, the
// table and compare.csv, and bad input refused before anything runs.
#include "fleetsim_process.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using fleetsim::testing::ProcessOutput;
using fleetsim::testing::run_command;
using fleetsim::testing::TempDir;

const std::string kLemons = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/lemon_retirement.yaml";
const std::string kBinary = FLEETSIM_BINARY;

using fleetsim::testing::lines_of;
using fleetsim::testing::read_file;

ProcessOutput compare(const std::string& args) { return run_command(kBinary + " compare " + args + " 2>&1"); }

TEST(CliCompare, RunsEveryPointOfTheGridOnTheSameSeedsAndWritesCompareCsv)
{
  TempDir tmp;
  const std::string out = tmp / "cmp";
  const auto r = compare(kLemons +
                         " --set run.duration=20d --vary lemons.retire_after=0,3 --vary spares.nodes=0,4 "
                         "--seeds 2 --out " +
                         out);
  ASSERT_EQ(r.code, 0) << r.text;
  // 2 x 2 points, each with two seeds' outputs.
  for (const char* point : {"lemons.retire_after=0,spares.nodes=0", "lemons.retire_after=0,spares.nodes=4",
                            "lemons.retire_after=3,spares.nodes=0", "lemons.retire_after=3,spares.nodes=4"})
    for (const char* seed : {"seed-1", "seed-2"})
      EXPECT_TRUE(fs::exists(fs::path(out) / point / seed / "summary.json")) << point << "/" << seed;
  const auto rows = lines_of(read_file(fs::path(out) / "compare.csv"));
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].rfind("lemons.retire_after,spares.nodes,seeds,ettr,goodput_ratio,", 0), 0u) << rows[0];
  EXPECT_EQ(rows[1].rfind("0,0,2,", 0), 0u);
  EXPECT_EQ(rows[4].rfind("3,4,2,", 0), 0u);

  // The means are those of the runs' own summaries.
  double ettr = 0;
  for (const char* seed : {"seed-1", "seed-2"})
    ettr += nlohmann::json::parse(
                read_file(fs::path(out) / "lemons.retire_after=3,spares.nodes=0" / seed / "summary.json"))["ettr"]
                .get<double>() /
            2;
  std::stringstream row(rows[3]);
  std::vector<std::string> cells;
  for (std::string c; std::getline(row, c, ',');)
    cells.push_back(c);
  ASSERT_GT(cells.size(), 3u);
  EXPECT_NEAR(std::stod(cells[3]), ettr, 1e-9);

  // Same seeds at every point: the failure draws of the software cause (not touched by lemons or
  // spares) are identical, so its interruption count is the same at every point.
  std::vector<long> software;
  for (const char* point : {"lemons.retire_after=0,spares.nodes=0", "lemons.retire_after=3,spares.nodes=4"})
    software.push_back(nlohmann::json::parse(read_file(fs::path(out) / point / "seed-1" /
                                                       "summary.json"))["interruptions"]["by_cause"]["software"]
                           .get<long>());
  EXPECT_EQ(software[0], software[1]);
}

TEST(CliCompare, ExitsTwoAndWritesNothingWhenAPointIsInvalid)
{
  TempDir tmp;
  const std::string out = tmp / "cmp";
  const auto r = compare(kLemons + " --vary recovery.policy=restart,bogus --out " + out);
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("recovery.policy=bogus"), std::string::npos) << r.text;
  EXPECT_FALSE(fs::exists(out));
}

TEST(CliCompare, AKeyThatSomePointsLeaveUnusedRunsAndThePointsAreNamed)
{
  // A base (here the command line) giving hot_spare's swap time, compared over the recovery policies:
  // `run` would refuse it under restart; the compare runs both points and says where it is not read,
  // and each point's summary.json lists it where it is not.
  TempDir tmp;
  const std::string out = tmp / "cmp";
  const auto r = compare(kLemons + " --vary recovery.policy=restart,hot_spare --set recovery.spare_swap=3min " +
                         "--set run.duration=5d --quiet --out " + out);
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_NE(r.text.find("note: 'recovery.spare_swap' (command line) is not used at 1 of 2 points: "
                        "recovery.policy=restart (there recovery.policy is restart; it is read when "
                        "recovery.policy is hot_spare"),
            std::string::npos)
      << r.text;
  // The scenario's own restart time is not read at the hot_spare point.
  EXPECT_NE(r.text.find("note: 'recovery.restart' (" + kLemons), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("is not used at 1 of 2 points: recovery.policy=hot_spare"), std::string::npos) << r.text;
  int listed = 0;
  for (const auto& e : fs::recursive_directory_iterator(out)) {
    if (e.path().filename() != "summary.json")
      continue;
    const auto j = nlohmann::json::parse(read_file(e.path().string()));
    const bool restart = j["recovery"]["policy"] == "restart";
    EXPECT_EQ(j["unused_keys"].contains("recovery.spare_swap"), restart) << e.path();
    EXPECT_EQ(j["unused_keys"].contains("recovery.restart"), !restart) << e.path();
    ++listed;
  }
  EXPECT_EQ(listed, 2);
  // A key no point reads is refused, as `run` refuses it.
  const auto none = compare(kLemons + " --vary spares.nodes=0,4 --set recovery.spare_swap=3min --out " + (tmp / "x"));
  EXPECT_EQ(none.code, 2) << none.text;
  EXPECT_NE(none.text.find("'recovery.spare_swap' is not used: recovery.policy is restart"), std::string::npos)
      << none.text;
  EXPECT_NE(none.text.find("(at every point)"), std::string::npos) << none.text;
  EXPECT_FALSE(fs::exists(tmp / "x"));
}

TEST(CliCompare, ExitsTwoWhenVaryIsMissingOrMalformed)
{
  TempDir tmp;
  EXPECT_EQ(compare(kLemons + " --out " + (tmp / "a")).code, 2);
  const auto r = compare(kLemons + " --vary recovery.policy --out " + (tmp / "b"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("KEY=V1,V2"), std::string::npos) << r.text;
  EXPECT_EQ(compare(kLemons + " --vary spares.nodes=1 --seeds 0").code, 2);
  EXPECT_FALSE(fs::exists(tmp / "a"));
  EXPECT_FALSE(fs::exists(tmp / "b"));
}

}  // namespace
