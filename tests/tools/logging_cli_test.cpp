// Logging as a user meets it: --log-level debug prints each failure, checkpoint and recovery phase
// as it happens, stamped with the simulated time; --log-file writes the same lines to a file; with
// logging off the terminal output and the outputs are exactly as without the options.
#include "fleetsim_process.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

namespace {

using fleetsim::testing::lines_of;
using fleetsim::testing::read_file;
using fleetsim::testing::run_command;
using fleetsim::testing::TempDir;

// One failure cause, 1,024 GPUs, 7 days, an analytic step: dozens of failures in a fraction of a second.
const std::string kScenario = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/young_daly_single_cause.yaml";
const std::string kShort = " --set run.duration=2d";

std::string fleetsim(const std::string& args, const std::string& stderr_to)
{
  return std::string(FLEETSIM_BINARY) + " " + args + " 2>" + stderr_to;
}

// "[t=  1d 02:03:04.567] [component] [level] text" -> seconds, or -1 when the line is not one.
double stamp_seconds(const std::string& line, std::string& component, std::string& level)
{
  static const std::regex re(R"(^\[t=\s*(\d+)d (\d\d):(\d\d):(\d\d\.\d{3})\] \[(\w+)\] \[(\w+)\] .+$)");
  std::smatch m;
  if (!std::regex_match(line, m, re))
    return -1;
  component = m[5];
  level = m[6];
  return std::stod(m[1]) * 86400 + std::stod(m[2]) * 3600 + std::stod(m[3]) * 60 + std::stod(m[4]);
}

TEST(CliLogging, DebugPrintsFailuresCheckpointsAndRecoveryPhasesStampedWithSimulatedTime)
{
  TempDir dir;
  const auto r = run_command(
      fleetsim("run " + kScenario + kShort + " --quiet --log-level debug --out " + (dir / "out"), dir / "err.txt"));
  ASSERT_EQ(r.code, 0) << read_file(dir / "err.txt");
  const auto lines = lines_of(read_file(dir / "err.txt"));
  ASSERT_GT(lines.size(), 50u);
  double last = 0;
  double first_failure = -1;
  int failures = 0, committed = 0, detections = 0, interruptions = 0;
  for (const auto& line : lines) {
    if (line.rfind("[t=-]", 0) == 0)
      continue;  // before the simulation: the scenario and its step
    std::string component, level;
    const double t = stamp_seconds(line, component, level);
    ASSERT_GE(t, 0) << "not a stamped log line: " << line;
    EXPECT_GE(t, last - 1e-3) << "simulated time runs backwards at: " << line;
    last = t;
    if (component == "failures") {
      ++failures;
      if (first_failure < 0)
        first_failure = t;
    }
    committed += line.find("[checkpoint] [debug] checkpoint committed") != std::string::npos;
    detections += line.find("[scheduler] [debug] detection begins") != std::string::npos;
    interruptions += line.find("[scheduler] [debug] interruption: ") != std::string::npos;
  }
  EXPECT_GT(failures, 5);
  EXPECT_EQ(interruptions, failures) << "every failure of this scenario strikes the job";
  EXPECT_EQ(detections, failures);
  EXPECT_GT(committed, 5);
  EXPECT_GT(last, 86400.0) << "the last line is past the first simulated day";
  // The first failure is logged at the time events.csv gives it.
  for (const auto& row : lines_of(read_file(dir / "out/events.csv")))
    if (row.find(",failure,") != std::string::npos) {
      EXPECT_NEAR(std::stod(row.substr(0, row.find(','))), first_failure, 1e-3) << row;
      break;
    }
}

TEST(CliLogging, LogFileGetsTheLinesAndTheTerminalNone)
{
  TempDir dir;
  const std::string log = dir.write("run.log", "an earlier line\n");
  const auto r = run_command(
      fleetsim("run " + kScenario + kShort + " --log-level debug --log-file " + log + " --out " + (dir / "out"),
               dir / "err.txt"));
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(read_file(dir / "err.txt"), "");
  const auto lines = lines_of(read_file(log));
  ASSERT_GT(lines.size(), 50u);
  EXPECT_EQ(lines.front(), "an earlier line") << "a log file is appended to, never truncated";
  int stamped = 0;
  for (const auto& line : lines) {
    std::string component, level;
    stamped += stamp_seconds(line, component, level) >= 0;
  }
  EXPECT_GT(stamped, 50);
  EXPECT_NE(r.text.find("ETTR"), std::string::npos) << "the run table is still printed:\n" << r.text;
  // A log file under a regular file cannot be created: bad input, and no run.
  const auto no_dir = run_command(
      fleetsim("run " + kScenario + " --log-file " + log + "/x.log --out " + (dir / "never"), "&1"));
  EXPECT_EQ(no_dir.code, 2);
  EXPECT_NE(no_dir.text.find("cannot open log file"), std::string::npos) << no_dir.text;
  EXPECT_FALSE(std::filesystem::exists(dir / "never"));
}

// Everything but the wall-time line (the only value that is not a function of scenario and seed).
std::string without_wall_time(const std::string& text)
{
  std::string out;
  for (const auto& line : lines_of(text))
    if (line.find("wall time") == std::string::npos && line.find("\"wall_time_s\"") == std::string::npos)
      out += line + "\n";
  return out;
}

TEST(CliLogging, OffLeavesTheTerminalAndTheOutputsUnchanged)
{
  TempDir dir;
  const auto plain = run_command(fleetsim("run " + kScenario + kShort + " --out " + (dir / "plain"), dir / "e1"));
  const auto off = run_command(
      fleetsim("run " + kScenario + kShort + " --log-level off --out " + (dir / "off"), dir / "e2"));
  const auto debug = run_command(
      fleetsim("run " + kScenario + kShort + " --log-level trace --out " + (dir / "debug"), dir / "e3"));
  ASSERT_EQ(plain.code, 0);
  ASSERT_EQ(off.code, 0);
  ASSERT_EQ(debug.code, 0);
  EXPECT_EQ(read_file(dir / "e1"), "");
  EXPECT_EQ(read_file(dir / "e2"), "");
  EXPECT_NE(read_file(dir / "e3"), "");
  auto table = [&](const std::string& text, const std::string& sub) {
    std::string t = without_wall_time(text);
    const auto at = t.find(sub);
    return at == std::string::npos ? t : t.substr(0, at);  // the "outputs in DIR" line names the directory
  };
  EXPECT_EQ(table(plain.text, "outputs in"), table(off.text, "outputs in"));
  EXPECT_EQ(table(plain.text, "outputs in"), table(debug.text, "outputs in"));
  for (const char* f : {"timeline.csv", "events.csv"}) {
    EXPECT_EQ(read_file(dir / ("plain/" + std::string(f))), read_file(dir / ("off/" + std::string(f)))) << f;
    EXPECT_EQ(read_file(dir / ("plain/" + std::string(f))), read_file(dir / ("debug/" + std::string(f)))) << f;
  }
  EXPECT_EQ(without_wall_time(read_file(dir / "plain/summary.json")),
            without_wall_time(read_file(dir / "debug/summary.json")));
}

TEST(CliLogging, SimgridLogSettingReachesSimGridsOwnLog)
{
  TempDir dir;
  const auto quiet = run_command(fleetsim("run " + kScenario + kShort + " --quiet --out " + (dir / "a"), "&1"));
  const auto loud = run_command(
      fleetsim("run " + kScenario + kShort + " --quiet --simgrid-log root.thresh:verbose --out " + (dir / "b"), "&1"));
  ASSERT_EQ(quiet.code, 0);
  ASSERT_EQ(loud.code, 0) << loud.text;
  EXPECT_EQ(quiet.text, "");
  EXPECT_NE(loud.text, "") << "SimGrid's verbose log should say something about the engine";
}

}  // namespace
