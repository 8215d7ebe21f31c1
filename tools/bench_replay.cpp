// fleetsim_bench: wall time and peak memory of whole replays, as a user runs them.
//
//   build/fleetsim_bench [--runs N] [--target-wall S] [--target-rss MB] [SCENARIO] [-- extra fleetsim args]
//   build/fleetsim_bench --exec [--runs N] [--target-wall S] [--target-rss MB] -- FLEETSIM ARGS
//   build/fleetsim_bench --sweep REPLICAS [-j J] [--summary-only] [--runs N] [--target-wall S] [SCENARIO] [-- args]
//
// --sweep times `fleetsim sweep` of REPLICAS replicas of SCENARIO (seeds 1..REPLICAS, -j J
// processes at once, every replica's files kept) into a fresh directory, N times, e.g. the issue's
// 1,000 Llama 3 replicas in <= 60 s on 2 cores:
//   build/fleetsim_bench --sweep 1000 -j 2 --runs 3 --target-wall 60
//
// --versus OTHER runs another fleetsim binary (another build: a baseline, logging compiled out)
// alternately with this one on the same seeds and prints the ratio of the medians:
//   build/fleetsim_bench --runs 31 --versus build-nolog/fleetsim
//
// --with "ARGS" runs this binary alternately without and with ARGS (more fleetsim arguments) on the
// same seeds and prints the ratio of the medians, e.g. what data loading and async checkpoints cost:
//   build/fleetsim_bench --runs 21 --with "--set checkpoint.strategy=async --set data.bytes_per_token=4B"
//
// --exec times any fleetsim command line as given, e.g. a 16,384-rank collective:
//   build/fleetsim_bench --exec --runs 3 --target-wall 30 --target-rss 2000 -- collective --ranks 16384
//
// Runs `fleetsim run SCENARIO --seed i --quiet --out <tmp>` N times (seeds 1..N), each as its own
// process, and reports per run the process wall time (fork to exit), the simulator's own
// wall_time_s from summary.json, and the peak resident set size from wait4(). Prints medians and
// compares them with the targets (issue: 54-day 16,384-GPU Llama 3 replay in <= 0.3 s, <= 150 MB).
// Machines are noisy: trust the median, and compare ratios measured in the same invocation.
//
// A scenario with run.step_model: simulated first simulates its training iteration (seconds at
// 16k GPUs) and caches it. The benchmark points FLEETSIM_CACHE_DIR at a fresh directory, reports
// one cold run (step simulated, then the replay) and then the N warm runs the targets apply to.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "models/summary/fleet_summary_fields.hpp"
#include "models/summary/run_summary_fields.hpp"
#include "simulator/metrics/metric_registry.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Sample {
  double wall_s = 0;
  double sim_wall_s = 0;
  double rss_mb = 0;
  nlohmann::ordered_json summary;
};

// Mean and sample standard deviation of what the replicas simulated (the benchmark measures real
// work, and these are the figures docs/llama3-replay.md quotes), read from each summary.json through
// the metric registry (simulator/metrics/metric_registry.hpp), as compare and sweeps read them.
void print_outcomes(const std::vector<Sample>& samples)
{
  if (samples.empty())
    return;
  namespace sf = fleetsim::models::summary::fleet;
  const bool fleet = samples.front().summary.value(sf::kKind.key, "") == sf::kKind.value;
  std::vector<std::string> names;
  if (fleet) {
    names = {"jobs_finished", "allocated_utilisation", "productive_utilisation", "wait_p99_h", "job_interruptions"};
  } else {
    namespace sr = fleetsim::models::summary::run;
    names = {sr::kEttr.key, "unexpected_interruptions", "planned_interruptions", sr::kTokensTrained.key};
    for (const auto& term : fleetsim::models::kBreakdownTerms)
      names.push_back(std::string(term.name) + "_h");
  }
  std::printf("outcomes over %zu replicas: mean, standard deviation%s\n", samples.size(),
              fleet ? "" : ", share of the window");
  std::vector<std::pair<const fleetsim::metrics::Metric*, std::pair<double, double>>> rows;
  double window_h = 0;  // the breakdown's terms fill the window
  for (const auto& name : names) {
    const fleetsim::metrics::Metric* m = fleetsim::metrics::find_metric(name);
    std::vector<double> v;
    for (const auto& s : samples)
      v.push_back(m->read(nlohmann::json::parse(s.summary.dump())));
    double mean = 0, var = 0;
    for (double x : v)
      mean += x / static_cast<double>(v.size());
    for (double x : v)
      var += (x - mean) * (x - mean);
    const double sd = v.size() > 1 ? std::sqrt(var / static_cast<double>(v.size() - 1)) : 0;
    if (!fleet && m->unit == "h")
      window_h += mean;
    rows.push_back({m, {mean, sd}});
  }
  for (const auto& [m, figures] : rows) {
    const bool unit_named = m->unit.empty() || (m->name.size() > m->unit.size() &&
                                                m->name.compare(m->name.size() - m->unit.size(), std::string::npos,
                                                                m->unit) == 0);
    const std::string label = m->name + (unit_named ? "" : " (" + m->unit + ")");
    const char* format = std::fabs(figures.first) < 1e9 ? "  %-28s %14.4f  sd %12.4f" : "  %-28s %14.4e  sd %12.4e";
    std::printf(format, label.c_str(), figures.first, figures.second);
    if (!fleet && m->unit == "h" && window_h > 0)
      std::printf("  %6.2f%%", 100 * figures.first / window_h);
    std::printf("\n");
  }
}

double median(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double read_sim_wall(const std::filesystem::path& summary)
{
  std::ifstream in(summary);
  std::string line;
  while (std::getline(in, line)) {
    const std::string key = std::string("\"") + fleetsim::models::summary::kWallTimeS.key + "\":";
    auto pos = line.find(key);
    if (pos != std::string::npos)
      return std::atof(line.c_str() + pos + key.size());
  }
  return -1;
}

bool run_once(const std::string& fleetsim, const std::vector<std::string>& args, Sample& s)
{
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(fleetsim.c_str()));
  for (const auto& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    execv(fleetsim.c_str(), argv.data());
    std::_Exit(127);
  }
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  s.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s.rss_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Times `fleetsim ARGS` as given, `runs` times.
int bench_exec(const std::string& fleetsim, const std::vector<std::string>& args, int runs, double target_wall,
               double target_rss)
{
  std::string line = "fleetsim";
  for (const auto& a : args)
    line += " " + a;
  std::printf("fleetsim_bench --exec: %s, %d runs\n", line.c_str(), runs);
  std::vector<double> walls, rsss;
  for (int i = 1; i <= runs; ++i) {
    Sample s;
    if (!run_once(fleetsim, args, s)) {
      std::fprintf(stderr, "fleetsim_bench: run %d failed\n", i);
      return 1;
    }
    std::printf("  run %2d   wall %8.3f s   peak RSS %7.1f MB\n", i, s.wall_s, s.rss_mb);
    walls.push_back(s.wall_s);
    rsss.push_back(s.rss_mb);
  }
  const double mw = median(walls), mr = *std::max_element(rsss.begin(), rsss.end());
  std::printf("median wall %.3f s; peak RSS %.1f MB\n", mw, mr);
  std::printf("target: wall <= %.2f s: %s; peak RSS <= %.0f MB: %s\n", target_wall,
              mw <= target_wall ? "met" : "MISSED", target_rss, mr <= target_rss ? "met" : "MISSED");
  return 0;
}

// Times `fleetsim sweep` of `replicas` seeds of the scenario, `runs` times, each into a new directory.
int bench_sweep(const std::string& fleetsim, const std::string& scenario, int replicas, int jobs, bool summary_only,
                const std::vector<std::string>& extra, int runs, double target_wall, double target_rss)
{
  std::string pattern = (std::filesystem::temp_directory_path() / "fleetsim-bench-XXXXXX").string();
  const char* tmp = mkdtemp(pattern.data());
  if (tmp == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  const std::string sweep = std::string(tmp) + "/sweep.yaml";
  std::ofstream(sweep) << "base: " << std::filesystem::absolute(scenario).string() << "\nreplicas: " << replicas
                       << "\nseed: 1\n"
                       << (summary_only ? "keep: summary\n" : "");
  setenv("FLEETSIM_CACHE_DIR", (std::string(tmp) + "/step-cache").c_str(), 1);
  std::printf("fleetsim_bench --sweep: %d replicas of %s, -j %d, keep %s, %d runs, %u hardware threads\n", replicas,
              scenario.c_str(), jobs, summary_only ? "summary" : "all", runs,
              std::max(1u, static_cast<unsigned>(sysconf(_SC_NPROCESSORS_ONLN))));
  {
    // Fill the step cache first: the figures are for the replicas, not for simulating one iteration.
    Sample cold;
    std::vector<std::string> args = {"run", scenario, "--quiet", "--out", std::string(tmp) + "/cold"};
    args.insert(args.end(), extra.begin(), extra.end());
    if (!run_once(fleetsim, args, cold)) {
      std::fprintf(stderr, "fleetsim_bench: the cold run failed\n");
      std::filesystem::remove_all(tmp);
      return 1;
    }
  }
  std::vector<double> walls, rsss;
  for (int i = 1; i <= runs; ++i) {
    const std::string out = std::string(tmp) + "/sweep" + std::to_string(i);
    std::vector<std::string> args = {"sweep", sweep, "--out", out, "-j", std::to_string(jobs), "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    Sample s;
    if (!run_once(fleetsim, args, s)) {
      std::fprintf(stderr, "fleetsim_bench: sweep %d failed\n", i);
      std::filesystem::remove_all(tmp);
      return 1;
    }
    std::uintmax_t bytes = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(out))
      if (e.is_regular_file())
        bytes += e.file_size();
    std::printf("  sweep %2d   wall %8.2f s   %7.1f replicas/s   peak RSS %6.1f MB   outputs %7.1f MB\n", i, s.wall_s,
                replicas / s.wall_s, s.rss_mb, static_cast<double>(bytes) / 1e6);
    walls.push_back(s.wall_s);
    rsss.push_back(s.rss_mb);
    std::filesystem::remove_all(out);
  }
  std::filesystem::remove_all(tmp);
  const double mw = median(walls), mr = *std::max_element(rsss.begin(), rsss.end());
  std::printf("median wall %.2f s (min %.2f, max %.2f), %.1f replicas/s; peak RSS of any process %.1f MB\n", mw,
              *std::min_element(walls.begin(), walls.end()), *std::max_element(walls.begin(), walls.end()),
              replicas / mw, mr);
  std::printf("target: wall <= %.2f s: %s; peak RSS <= %.0f MB: %s\n", target_wall,
              mw <= target_wall ? "met" : "MISSED", target_rss, mr <= target_rss ? "met" : "MISSED");
  return 0;
}

struct BenchOptions {
  int runs = 11;
  double target_wall = 0.3;
  double target_rss = 150;
  std::string scenario = "scenarios/llama3_405b_16k.yaml";
  std::vector<std::string> extra;
  bool exec_mode = false;
  int sweep_replicas = 0;
  int jobs = 2;
  bool summary_only = false;
  std::string versus;             // another fleetsim binary, run alternately with this one
  std::vector<std::string> with;  // or this binary with these arguments more, alternately without
};

bool parse(int argc, char** argv, BenchOptions& o)
{
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--exec")
      o.exec_mode = true;
    else if (a == "--sweep" && i + 1 < argc)
      o.sweep_replicas = std::max(1, std::atoi(argv[++i]));
    else if (a == "--summary-only")
      o.summary_only = true;
    else if ((a == "-j" || a == "--jobs") && i + 1 < argc)
      o.jobs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--runs" && i + 1 < argc)
      o.runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--target-wall" && i + 1 < argc)
      o.target_wall = std::atof(argv[++i]);
    else if (a == "--target-rss" && i + 1 < argc)
      o.target_rss = std::atof(argv[++i]);
    else if (a == "--versus" && i + 1 < argc)
      o.versus = argv[++i];
    else if (a == "--with" && i + 1 < argc) {
      std::istringstream words(argv[++i]);
      for (std::string w; words >> w;)
        o.with.push_back(w);
    } else if (a == "--") {
      for (++i; i < argc; ++i)
        o.extra.emplace_back(argv[i]);
    } else if (!a.empty() && a[0] != '-')
      o.scenario = a;
    else
      return false;
  }
  return true;
}

// One replay of seed `seed` into `out` (with `more` arguments); false when it failed.
bool replay(const std::string& fleetsim, const BenchOptions& o, int seed, const std::string& out, Sample& s,
            const std::vector<std::string>& more = {})
{
  std::vector<std::string> args = {"run", o.scenario, "--seed", std::to_string(seed), "--quiet", "--out", out};
  args.insert(args.end(), o.extra.begin(), o.extra.end());
  args.insert(args.end(), more.begin(), more.end());
  if (!run_once(fleetsim, args, s))
    return false;
  s.sim_wall_s = read_sim_wall(std::filesystem::path(out) / "summary.json");
  std::ifstream in(std::filesystem::path(out) / "summary.json");
  s.summary = nlohmann::ordered_json::parse(in, nullptr, false);
  return true;
}

// --versus / --with: this binary and the other one (or this one with more arguments) alternately on
// the same seeds, and the ratio of their medians.
int bench_versus(const std::string& fleetsim, const BenchOptions& o, const std::string& tmp)
{
  std::vector<double> mine, theirs, mine_sim, theirs_sim;
  const std::string other = o.versus.empty() ? fleetsim : o.versus;
  if (Sample cold; !replay(other, o, 1, tmp + "/other-cold", cold, o.with)) {  // its own step cache entry
    std::fprintf(stderr, "fleetsim_bench: the other side's cold run failed\n");
    return 1;
  }
  if (!o.with.empty())
    std::printf("  \"this\": as given; \"other\": with the --with arguments\n");
  for (int i = 1; i <= o.runs; ++i) {
    Sample a, b;
    if (!replay(fleetsim, o, i, tmp + "/a" + std::to_string(i), a) ||
        !replay(other, o, i, tmp + "/b" + std::to_string(i), b, o.with)) {
      std::fprintf(stderr, "fleetsim_bench: run %d failed\n", i);
      return 1;
    }
    mine.push_back(a.wall_s);
    theirs.push_back(b.wall_s);
    mine_sim.push_back(a.sim_wall_s);
    theirs_sim.push_back(b.sim_wall_s);
    std::printf("  %3d   this %.3f s (simulator %.3f s)   other %.3f s (simulator %.3f s)\n", i, a.wall_s, a.sim_wall_s,
                b.wall_s, b.sim_wall_s);
  }
  std::printf(
      "median process wall: this %.4f s, other %.4f s, ratio %.3f; simulator wall: %.4f s vs %.4f s, ratio %.3f\n",
      median(mine), median(theirs), median(mine) / median(theirs), median(mine_sim), median(theirs_sim),
      median(mine_sim) / median(theirs_sim));
  return 0;
}

int bench_replays(const std::string& fleetsim, const BenchOptions& o, const std::string& tmp)
{
  {
    Sample cold;
    if (!replay(fleetsim, o, 1, tmp + "/cold", cold)) {
      std::fprintf(stderr, "fleetsim_bench: the cold run failed\n");
      return 1;
    }
    std::printf("  cold run (empty step cache; a simulated step is computed and cached): %.3f s, peak RSS %.1f MB\n",
                cold.wall_s, cold.rss_mb);
  }
  if (!o.versus.empty() || !o.with.empty())
    return bench_versus(fleetsim, o, tmp);
  std::printf("  run  seed   process wall   simulator wall   peak RSS\n");
  std::vector<double> walls, sims, rsss;
  std::vector<Sample> samples;
  for (int i = 1; i <= o.runs; ++i) {
    Sample s;
    if (!replay(fleetsim, o, i, tmp + "/run" + std::to_string(i), s)) {
      std::fprintf(stderr, "fleetsim_bench: run %d failed\n", i);
      return 1;
    }
    std::printf("  %3d  %4d   %10.3f s   %12.3f s   %6.1f MB\n", i, i, s.wall_s, s.sim_wall_s, s.rss_mb);
    walls.push_back(s.wall_s);
    sims.push_back(s.sim_wall_s);
    rsss.push_back(s.rss_mb);
    samples.push_back(std::move(s));
  }
  const double mw = median(walls), mr = *std::max_element(rsss.begin(), rsss.end());
  std::printf("median process wall %.3f s (min %.3f, max %.3f); median simulator wall %.3f s\n", mw,
              *std::min_element(walls.begin(), walls.end()), *std::max_element(walls.begin(), walls.end()),
              median(sims));
  std::printf("peak RSS %.1f MB (max over runs)\n", mr);
  print_outcomes(samples);
  std::printf("target: wall <= %.2f s: %s; peak RSS <= %.0f MB: %s\n", o.target_wall,
              mw <= o.target_wall ? "met" : "MISSED", o.target_rss, mr <= o.target_rss ? "met" : "MISSED");
  return 0;
}

}  // namespace

int main(int argc, char** argv)
{
  BenchOptions o;
  if (!parse(argc, argv, o)) {
    std::fprintf(
        stderr,
        "usage: fleetsim_bench [--exec | --sweep REPLICAS [-j J] [--summary-only]] [--runs N] [--target-wall S] "
        "[--target-rss MB] [--versus OTHER_FLEETSIM | --with \"ARGS\"] [SCENARIO] [-- args]\n");
    return 2;
  }
  const auto self = std::filesystem::read_symlink("/proc/self/exe");
  const std::string fleetsim = (self.parent_path() / "fleetsim").string();
  if (o.exec_mode)
    return bench_exec(fleetsim, o.extra, o.runs, o.target_wall, o.target_rss);
  if (o.sweep_replicas > 0)
    return bench_sweep(fleetsim, o.scenario, o.sweep_replicas, o.jobs, o.summary_only, o.extra, o.runs, o.target_wall,
                       o.target_rss);
  std::string pattern = (std::filesystem::temp_directory_path() / "fleetsim-bench-XXXXXX").string();
  const char* tmp = mkdtemp(pattern.data());
  if (tmp == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  std::printf("fleetsim_bench: %s, %d runs (seeds 1..%d), %u hardware threads\n", o.scenario.c_str(), o.runs, o.runs,
              std::max(1u, static_cast<unsigned>(sysconf(_SC_NPROCESSORS_ONLN))));
  const std::string cache = std::string(tmp) + "/step-cache";
  setenv("FLEETSIM_CACHE_DIR", cache.c_str(), 1);
  const int code = bench_replays(fleetsim, o, tmp);
  std::filesystem::remove_all(tmp);
  return code;
}
