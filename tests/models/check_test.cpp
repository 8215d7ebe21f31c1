// FLEETSIM_CHECK (models/core/check.hpp) is on in every build: in the Release build that CI tests, where
// NDEBUG removes assert(), a broken precondition still stops the process with the file, the line,
// the condition and exit code 3, and runs the hook that removes a half-written output.
#include "models/core/check.hpp"
#include "models/checkpoint/checkpoint_interval.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace {

using fleetsim::units::Seconds;

TEST(Check, AFailedCheckExitsWithCode3NamingFileLineAndConditionEvenWhenNdebugRemovesAssert)
{
#ifdef NDEBUG
  RecordProperty("ndebug", "defined: assert() is compiled out in this build");
#endif
  EXPECT_EXIT(static_cast<void>(fleetsim::models::young_interval(Seconds(-1), Seconds(3600))),
              ::testing::ExitedWithCode(3),
              "fleetsim: internal error: models/checkpoint/checkpoint_interval\\.cpp:[0-9]+: check 'delta\\.si\\(\\) >= 0\\.0' "
              "failed: checkpoint time must be non-negative\nfleetsim: this is a bug in fleetsim");
}

TEST(Check, AHoldingCheckLetsTheFunctionReturnItsValue)
{
  // A check that holds neither exits nor changes the result: Young's sqrt(2 delta M) for delta 300 s and
  // M 7,200 s is sqrt(4,320,000) = 2,078.46 s.
  EXPECT_NEAR(fleetsim::models::young_interval(Seconds(300), Seconds(7200)).si(), 2078.4609690826528, 1e-9);
}

std::string g_marker;  // the file the hook removes

void remove_marker() noexcept { std::remove(g_marker.c_str()); }

TEST(Check, TheHookRunsBeforeTheProcessEnds)
{
  g_marker = (std::filesystem::temp_directory_path() / ("fleetsim-check-" + std::to_string(::getpid()))).string();
  std::ofstream(g_marker) << "half-written\n";
  ASSERT_TRUE(std::filesystem::exists(g_marker));
  EXPECT_EXIT(
      {
        fleetsim::models::set_check_failure_hook(&remove_marker);
        FLEETSIM_CHECK(1 + 1 == 3, "arithmetic");
      },
      ::testing::ExitedWithCode(3), "check '1 \\+ 1 == 3' failed: arithmetic");
  EXPECT_FALSE(std::filesystem::exists(g_marker)) << "the hook runs in the child, which shares the file system";
}

}  // namespace
