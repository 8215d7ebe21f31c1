// Unit tests of the sweep file reader (read_sweep), linked directly: what fuzzing it found
// (docs/hardening.md). Bad input gives file:line:col diagnostics on stderr, never an exception.
#include "cli/sweep_plan.hpp"
#include "fleetsim_process.hpp"

#include <gtest/gtest.h>

#include <iostream>
#include <sstream>
#include <string>

namespace {

using fleetsim::testing::TempDir;

struct Read {
  std::optional<fleetsim::cli::SweepFile> sweep;
  std::string err;
};

// read_sweep on `text`, with what it prints to std::cerr.
Read read(const TempDir& tmp, const std::string& text)
{
  const std::string path = tmp.write("sweep.yaml", text);
  std::stringstream err;
  std::streambuf* old = std::cerr.rdbuf(err.rdbuf());
  Read r{fleetsim::cli::read_sweep(path), ""};
  std::cerr.rdbuf(old);
  r.err = err.str();
  const std::string prefix = path + ":";
  for (size_t p; (p = r.err.find(prefix)) != std::string::npos;)
    r.err.replace(p, prefix.size(), "S:");
  return r;
}

TEST(SweepFile, ReadsEveryKeyOfAValidFile)
{
  TempDir tmp;
  const Read r = read(tmp,
                      "base: s.yaml\nreplicas: 3\nseed: 7\nset: {run.duration: 2d}\nkeep: summary\n"
                      "vary:\n  spares.nodes: [0, 8]\n  checkpoint.interval: {from: 5min, to: 20min, times: 2}\n"
                      "zip:\n  - {cluster.gpus: [1024, 2048], parallelism.dp: [8, 16]}\nmetrics: [ettr]\n");
  ASSERT_TRUE(r.sweep.has_value()) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.sweep->replicas, 3);
  ASSERT_EQ(r.sweep->axes.size(), 3u);
  EXPECT_EQ(r.sweep->axes[1].values, (std::vector<std::string>{"5min", "10min", "20min"}));
  EXPECT_EQ(r.sweep->axes[2].zipped.size(), 1u);
  EXPECT_FALSE(r.sweep->traces);
}

// A key that is a list or a map was converted with as<std::string>(): an uncaught YAML exception.
TEST(SweepFile, ReportsAKeyThatIsNotANameInsteadOfThrowing)
{
  TempDir tmp;
  Read r = read(tmp, "base: s.yaml\nvary:\n  ? [a]\n  : [1]\n");
  EXPECT_FALSE(r.sweep.has_value());
  EXPECT_EQ(r.err, "S:3:5: error: vary: keys must be dotted scenario keys\n");
  r = read(tmp, "base: s.yaml\n[a]: 1\n");
  EXPECT_EQ(r.err, "S:2:1: error: keys must be plain names\n");
  r = read(tmp, "base: s.yaml\nzip:\n  - {[a]: [1]}\n");
  EXPECT_EQ(r.err, "S:3:6: error: zip: keys must be dotted scenario keys\n");
  r = read(tmp, "base: s.yaml\nvary:\n  a: {from: 1, {x: 1}: 2}\n");
  EXPECT_EQ(r.err.rfind("S:3:6: error: vary: a: a range has from, to, and step or times, not ''", 0), 0u) << r.err;
}

// An empty map in zip: was dropped without a word.
TEST(SweepFile, ReportsAnEmptyZipGroupInsteadOfDroppingIt)
{
  TempDir tmp;
  const Read r = read(tmp, "base: s.yaml\nzip:\n  - {}\n  - [1]\n");
  EXPECT_FALSE(r.sweep.has_value());
  EXPECT_EQ(r.err,
            "S:3:5: error: zip: each entry is a map of keys to lists\n"
            "S:4:5: error: zip: each entry is a map of keys to lists\n");
}

}  // namespace
