// Docs that are generated from code must match the code.
#include "fleetsim_process.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace {

TEST(Docs, ScenarioReferenceMatchesDescribe)
{
  std::ifstream in(std::string(FLEETSIM_SOURCE_DIR) + "/docs/scenario-reference.md");
  ASSERT_TRUE(in) << "docs/scenario-reference.md is missing";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const std::string begin = "<!-- BEGIN GENERATED: build/fleetsim describe --markdown -->\n";
  const std::string end = "<!-- END GENERATED -->";
  const auto b = doc.find(begin);
  const auto e = doc.find(end);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  const std::string table = doc.substr(b + begin.size(), e - b - begin.size());
  const std::string generated =
      fleetsim::testing::run_command(std::string(FLEETSIM_BINARY) + " describe --markdown").text;
  ASSERT_FALSE(generated.empty());
  EXPECT_EQ(table, generated) << "regenerate the table with: build/fleetsim describe --markdown";
}

}  // namespace
