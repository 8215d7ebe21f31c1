// `fleetsim sweep` spread over processes the user does not manage one by one: MPI ranks, job-array
// shards merged afterwards, a sweep killed and started again, and the progress line.
#include "fleetsim_process.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <thread>

namespace {

namespace fs = std::filesystem;
using fleetsim::testing::read_file;
using fleetsim::testing::run_command;
using fleetsim::testing::TempDir;

const std::string kLemons = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/lemon_retirement.yaml";

fleetsim::testing::ProcessOutput fleetsim(const std::string& args) { return fleetsim::testing::fleetsim_command(args); }

std::string sweep_file(const TempDir& tmp, int replicas, const std::string& duration = "20d")
{
  return tmp.write("sweep.yaml", "base: " + kLemons + "\nreplicas: " + std::to_string(replicas) +
                                     "\nset: {run.duration: " + duration + "}\nvary:\n  spares.nodes: [0, 2, 4]\n");
}

// Finished replicas (directories named seed-N) under DIR/runs, with their directory's inode: a
// replica run again is a new directory renamed into place, with a new inode.
std::map<std::string, ino_t> finished(const fs::path& out)
{
  // Replicas are renamed into place while this looks: iterate without exceptions, and read again
  // when a directory vanished under the iterator.
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::map<std::string, ino_t> done;
    std::error_code ec;
    if (!fs::exists(out / "runs", ec))
      return done;
    for (auto point = fs::directory_iterator(out / "runs", ec); !ec && point != fs::directory_iterator();
         point.increment(ec))
      for (auto e = fs::directory_iterator(point->path(), ec); !ec && e != fs::directory_iterator(); e.increment(ec)) {
        const std::string name = e->path().filename().string();
        struct stat st {};
        if (name.rfind("seed-", 0) == 0 && name.find(".partial") == std::string::npos &&
            stat(e->path().c_str(), &st) == 0 && S_ISDIR(st.st_mode))
          done[fs::relative(e->path(), out).string()] = st.st_ino;
      }
    if (!ec)
      return done;
  }
  ADD_FAILURE() << "cannot list " << out;
  return {};
}

#ifdef FLEETSIM_MPIEXEC
TEST(CliSweepMpi, TwoRanksWriteByteIdenticalResultsToOneProcess)
{
  TempDir tmp;
  const std::string file = sweep_file(tmp, 4);
  ASSERT_EQ(fleetsim("sweep " + file + " --out " + (tmp / "local") + " -j 2").code, 0);
  // Open MPI refuses root unless told; --oversubscribe lets 2 ranks share a small CI machine.
  const auto r = run_command("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " +
                             std::string(FLEETSIM_MPIEXEC) + " --oversubscribe -np 2 " + FLEETSIM_BINARY + " sweep " +
                             file + " --out " + (tmp / "mpi") + " 2>&1");
  ASSERT_EQ(r.code, 0) << r.text;
  for (const char* f : {"results.csv", "replicas.csv"}) {
    const std::string local = read_file(fs::path(tmp / "local") / f);
    ASSERT_FALSE(local.empty()) << f;
    EXPECT_EQ(read_file(fs::path(tmp / "mpi") / f), local) << f;
  }
  // Both ranks ran replicas: the table was printed once, by rank 0.
  EXPECT_EQ(finished(tmp / "mpi").size(), 12u);
  size_t tables = 0;
  for (size_t at = r.text.find("3 points x 4 replicas"); at != std::string::npos;
       at = r.text.find("3 points x 4 replicas", at + 1))
    ++tables;
  EXPECT_EQ(tables, 1u) << r.text;
}

TEST(CliSweepMpi, ARankThatCannotReadTheSweepStopsEveryRankWithItsOwnMessage)
{
  TempDir tmp;
  const std::string good = sweep_file(tmp, 2);
  const std::string missing = tmp / "missing.yaml";
  // Rank 1 sees another file than rank 0 (no shared filesystem, or a file that changed): every rank
  // must stop, none may wait forever in a collective.
  const std::string script = tmp.write("ranks.sh", "if [ \"$OMPI_COMM_WORLD_RANK\" = 0 ]; then f=" + good +
                                                       "; else f=" + missing + "; fi\nexec " + FLEETSIM_BINARY +
                                                       " sweep $f --out " + (tmp / "out") + "\n");
  const auto r = run_command("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 " +
                             std::string(FLEETSIM_MPIEXEC) + " --oversubscribe -np 2 sh " + script + " 2>&1");
  EXPECT_NE(r.code, 0) << r.text;
  EXPECT_NE(r.code, 124) << "timed out: a rank waited forever\n" << r.text;
  EXPECT_NE(r.text.find("rank 1: "), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("missing.yaml"), std::string::npos) << r.text;
  EXPECT_FALSE(fs::exists(fs::path(tmp / "out") / "results.csv"));
}
#endif

// The runner may be PID 1 (a container's entry point): its replicas still run.
TEST(CliSweepPid1, ReplicasRunWhenTheSweepIsPidOne)
{
  if (run_command("unshare -pf --mount-proc true 2>&1").code != 0)
    GTEST_SKIP() << "cannot create a PID namespace here (unshare -pf needs root or user namespaces)";
  TempDir tmp;
  const auto r = run_command("unshare -pf --mount-proc " + std::string(FLEETSIM_BINARY) + " sweep " +
                             sweep_file(tmp, 1, "5d") + " --out " + (tmp / "out") + " 2>&1");
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_EQ(finished(tmp / "out").size(), 3u);
}

TEST(CliSweepShards, ShardsMergedGiveTheSameResultsAsOneRun)
{
  TempDir tmp;
  const std::string file = sweep_file(tmp, 3);
  const std::string out = tmp / "sharded";
  ASSERT_EQ(fleetsim("sweep " + file + " --out " + (tmp / "whole") + " -j 2").code, 0);
  const auto first = fleetsim("sweep " + file + " --out " + out + " --shard 0/2");
  ASSERT_EQ(first.code, 0) << first.text;
  EXPECT_EQ(finished(out).size(), 5u);  // tasks 0, 2, 4, 6, 8 of 9
  EXPECT_FALSE(fs::exists(fs::path(out) / "results.csv"));
  // Merging before the last shard has run names what is missing and writes nothing.
  const auto early = fleetsim("sweep --merge " + out);
  EXPECT_EQ(early.code, 1) << early.text;
  EXPECT_NE(early.text.find("has not run (and 3 more)"), std::string::npos) << early.text;
  EXPECT_FALSE(fs::exists(fs::path(out) / "results.csv"));
  ASSERT_EQ(fleetsim("sweep " + file + " --out " + out + " --shard 1/2").code, 0);
  EXPECT_EQ(finished(out).size(), 9u);
  const auto merged = fleetsim("sweep --merge " + out);
  ASSERT_EQ(merged.code, 0) << merged.text;
  for (const char* f : {"results.csv", "replicas.csv"})
    EXPECT_EQ(read_file(fs::path(out) / f), read_file(fs::path(tmp / "whole") / f)) << f;
  EXPECT_EQ(fleetsim("sweep " + file + " --out " + out + " --shard 2/2").code, 2);
  // Shards started together into one DIR leave each other's replicas alone.
  const std::string together = tmp / "together";
  const std::string shard = std::string(FLEETSIM_BINARY) + " sweep " + file + " --out " + together + " --shard ";
  const auto both = run_command("(" + shard + "0/3 & a=$!; " + shard + "1/3 & b=$!; " + shard +
                                "2/3; c=$?; wait $a; a=$?; wait $b; b=$?; exit $((a | b | c))) 2>&1");
  ASSERT_EQ(both.code, 0) << both.text;
  ASSERT_EQ(fleetsim("sweep --merge " + together).code, 0);
  EXPECT_EQ(read_file(fs::path(together) / "results.csv"), read_file(fs::path(tmp / "whole") / "results.csv"));
  EXPECT_EQ(fleetsim("sweep --merge " + (tmp / "nothing")).code, 2);
}

TEST(CliSweepKill, AKilledSweepRerunCompletesWithNoReplicaRunTwiceOrLost)
{
  TempDir tmp;
  const std::string file = sweep_file(tmp, 12, "40d");  // 36 replicas of ~0.1 s
  const fs::path out = tmp / "out";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string out_dir = out.string();
    execl(FLEETSIM_BINARY, FLEETSIM_BINARY, "sweep", file.c_str(), "--out", out_dir.c_str(), "-j", "2", "--quiet",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (finished(out).size() < 4 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  kill(pid, SIGKILL);  // no chance to clean up
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the sweep finished before it could be killed";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto before = finished(out);
  ASSERT_GE(before.size(), 4u);
  ASSERT_LT(before.size(), 36u);
  EXPECT_EQ(finished(out), before) << "replicas kept running after their sweep was killed";
  EXPECT_FALSE(fs::exists(out / "results.csv"));

  const auto rerun = fleetsim("sweep " + file + " --out " + out.string() + " -j 2");
  ASSERT_EQ(rerun.code, 0) << rerun.text;
  const auto after = finished(out);
  EXPECT_EQ(after.size(), 36u) << "a replica was lost";
  for (const auto& [dir, inode] : before)
    EXPECT_EQ(after.at(dir), inode) << dir << " ran twice";
  for (const auto& e : fs::recursive_directory_iterator(out / "runs"))
    EXPECT_EQ(e.path().filename().string().find(".partial"), std::string::npos) << e.path();
  ASSERT_EQ(fleetsim("sweep " + file + " --out " + (tmp / "clean") + " -j 2").code, 0);
  for (const char* f : {"results.csv", "replicas.csv"})
    EXPECT_EQ(read_file(out / f), read_file(fs::path(tmp / "clean") / f)) << f;
}

TEST(CliSweepProgress, ShowsAProgressLineOnATerminalAndNothingOtherwise)
{
  TempDir tmp;
  const std::string file = sweep_file(tmp, 2, "10d");
  const auto piped = fleetsim("sweep " + file + " --out " + (tmp / "piped"));
  ASSERT_EQ(piped.code, 0) << piped.text;
  EXPECT_EQ(piped.text.find('\r'), std::string::npos) << piped.text;
  EXPECT_EQ(piped.text.find("replicas/s"), std::string::npos) << piped.text;
  // script(1) gives the sweep a pseudo-terminal.
  const auto tty = run_command("script -qec '" + std::string(FLEETSIM_BINARY) + " sweep " + file + " --out " +
                               (tmp / "tty") + "' /dev/null");
  ASSERT_EQ(tty.code, 0) << tty.text;
  EXPECT_NE(tty.text.find("6/6 replicas  3/3 points"), std::string::npos) << tty.text;
  EXPECT_NE(tty.text.find("replicas/s  ETA"), std::string::npos) << tty.text;
  EXPECT_EQ(read_file(fs::path(tmp / "tty") / "results.csv"), read_file(fs::path(tmp / "piped") / "results.csv"));
}

TEST(CliSweepPlan, DescribesTheSweepInSweepJson)
{
  TempDir tmp;
  const std::string out = tmp / "out";
  const std::string file = tmp.write(
      "zip.yaml", "base: " + kLemons +
                      "\nreplicas: 2\nseed: 7\nset: {run.duration: 5d}\n"
                      "zip:\n  - {cluster.gpus: [512, 1024], parallelism.dp: [4, 8]}\nvary:\n  spares.nodes: [0, 2]\n");
  ASSERT_EQ(fleetsim("sweep " + file + " --out " + out).code, 0);
  const auto j = nlohmann::json::parse(read_file(fs::path(out) / "sweep.json"));
  EXPECT_EQ(j["replicas"].get<int>(), 2);
  EXPECT_EQ(j["first_seed"].get<int>(), 7);
  ASSERT_EQ(j["axes"].size(), 2u);
  EXPECT_EQ(j["axes"][0]["keys"], nlohmann::json({"cluster.gpus", "parallelism.dp"}));
  EXPECT_EQ(j["axes"][0]["values"][1], nlohmann::json({"4", "8"}));
  EXPECT_EQ(j["axes"][1]["keys"], nlohmann::json({"spares.nodes"}));
  EXPECT_EQ(j["metrics"][0].get<std::string>(), "ettr");
  // --merge rebuilds the same files from sweep.json alone.
  const std::string results = read_file(fs::path(out) / "results.csv");
  fs::remove(fs::path(out) / "results.csv");
  ASSERT_EQ(fleetsim("sweep --merge " + out + " --quiet").code, 0);
  EXPECT_EQ(read_file(fs::path(out) / "results.csv"), results);
}

}  // namespace

namespace {

// A long run on a terminal shows how far the simulated window is; the outputs do not change.
TEST(CliRunProgress, ALongRunShowsItsProgressOnATerminalWithTheSameOutputs)
{
  TempDir tmp;
  const std::string scenario = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/llama3_405b_16k.yaml";
  // Long enough to outlast the half second before the line appears: 1.5-3 s in the Release build (1,000
  // days took 0.54 s on a fast CI machine and finished before the line came), and
  // a tenth of the window in the sanitized one, which runs ~30 times slower.
  const std::string days = fleetsim::testing::kSanitizedBuild ? "100" : "3000";
  const std::string args = scenario + " --set run.step_model=analytic --set run.duration=" + days + "d";
  const auto tty = run_command("script -qec '" + std::string(FLEETSIM_BINARY) + " run " + args + " --out " +
                               (tmp / "tty") + "' /dev/null");
  ASSERT_EQ(tty.code, 0) << tty.text;
  EXPECT_NE(tty.text.find("100% of " + days + ".0 simulated days"), std::string::npos) << tty.text;
  const auto piped = fleetsim("run " + args + " --out " + (tmp / "piped"));
  ASSERT_EQ(piped.code, 0) << piped.text;
  EXPECT_EQ(piped.text.find("simulated days"), std::string::npos) << piped.text;
  for (const char* f : {"timeline.csv", "events.csv"})
    EXPECT_EQ(read_file(fs::path(tmp / "tty") / f), read_file(fs::path(tmp / "piped") / f)) << f;
}

}  // namespace
