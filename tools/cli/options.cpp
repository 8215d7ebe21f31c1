#include "commands.hpp"

#include <charconv>
#include <filesystem>
#include <iostream>
#include <string_view>

namespace fleetsim::cli {
namespace {

bool is_command(std::string_view s)
{
  return s == "run" || s == "validate" || s == "step" || s == "describe" || s == "collective" || s == "compare" || s == "sweep" ||
         s == "report" || s == "help";
}

bool bad(const std::string& msg)
{
  std::cerr << "fleetsim: error: " << msg << "\n(see 'fleetsim help')\n";
  return false;
}

}  // namespace

void print_usage()
{
  std::cout <<
      R"(usage: fleetsim <command> [SCENARIO] [options]

commands:
  run [SCENARIO]       replay a training run; writes summary.json, timeline.csv, events.csv
  validate SCENARIO    check a scenario and exit (0 = valid, 2 = errors)
  step [SCENARIO]      one training iteration simulated on the scenario's fabric (or the analytic
                       fleet law with --set run.step_model=analytic): the fleet-law breakdown,
                       MFU and binding C3 term; with --out DIR, DIR/step.json and
                       DIR/step_trace.json (Chrome trace events: open in Perfetto)
  collective [SCENARIO] --op OP --algo ALGO --ranks N --size BYTES [--groups G] [--chunks C]
                       [--mode full|reduced]
                       time one collective on the scenario's simulated fabric (NVLink nodes,
                       racks, pods), beside its alpha-beta prediction and the bytes it puts on
                       each link class; --groups runs G copies at once, member i of group g on
                       GPU i*G+g (data-parallel groups); --chunks pipelines trees and chains
                       OP: allreduce reducescatter allgather broadcast alltoall sendrecv
                       ALGO: ring tree doubletree hierarchical direct
  compare [SCENARIO] --vary KEY=V1,V2,... [--vary ...] [--seeds K]
                       run the scenario at every combination of the values (same seeds at every
                       point) and print them side by side: ETTR, goodput, interruptions and where
                       the time went; writes DIR/compare.csv and each run's files under DIR/<point>/
                       e.g. --vary recovery.policy=restart,hot_spare,elastic,in_memory
  sweep SWEEP.yaml [--out DIR] [-j N] [--replicas R] [--shard i/n]
                       Monte Carlo sweep: every point of the sweep file's grid, `replicas` seeds
                       each (or R), the same seeds at every point, N processes at once; DIR/results.csv
                       (mean, sd, 95% CI, p5, p95 per metric and point), DIR/replicas.csv, and each
                       run's files under DIR/runs/; a rerun finishes the missing replicas only.
                       Under mpirun -np K the ranks share the replicas and rank 0 writes the
                       results; --shard i/n runs every n-th replica (job arrays), then
  sweep --merge DIR    writes DIR's results once every shard is done
  report DIR [--out FILE]
                       one self-contained HTML page (inline SVG charts, no network access) from
                       the output directory of 'run' (goodput over time, state timeline,
                       interruptions by cause against the reference rates, time breakdown) or of
                       'sweep' (each metric against the swept parameter, with 95% CI bands);
                       writes DIR/report.html unless --out FILE
  describe             print every scenario parameter: unit, default, range, description
  help                 this text

SCENARIO defaults to scenarios/llama3_405b_16k.yaml (the Llama 3 405B replay).

options:
  --seed N             root random seed (overrides run.seed)
  --out DIR            output directory of 'run' (default: out/<scenario name>), 'compare'
                       (default: out/compare-<scenario name>) or 'sweep' (default: out/sweep-<file>);
                       for 'report', the HTML file (default: DIR/report.html)
  -j, --jobs N         'compare' and 'sweep': replicas run at once, each its own process
  --set KEY=VALUE      override any scenario key by its dotted path, e.g.
                       --set checkpoint.interval=10min --set failures.causes.nic.count=14
  --dump-resolved      print the fully defaulted scenario as YAML and exit
  --markdown           'describe' as a Markdown table
  --quiet              'run' prints nothing on success; 'sweep' prints no table; no progress line
                       (shown on a terminal only, for runs longer than half a second and sweeps)
)";
}

bool parse_options(int argc, char** argv, Options& opts)
{
  int i = 1;
  if (argc < 2) {
    opts.command = "help";
    return true;
  }
  std::string first = argv[1];
  if (first == "--help" || first == "-h") {
    opts.command = "help";
    return true;
  }
  if (!is_command(first))
    return bad("unknown command '" + first + "'");
  opts.command = first;
  ++i;
  auto value = [&](const std::string& flag) -> const char* {
    if (i + 1 >= argc)
      return nullptr;
    (void)flag;
    return argv[++i];
  };
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--seed") {
      const char* v = value(a);
      if (v == nullptr)
        return bad("--seed needs a value");
      std::string_view sv(v);
      auto [p, ec] = std::from_chars(sv.data(), sv.data() + sv.size(), opts.seed);
      if (ec != std::errc() || p != sv.data() + sv.size())
        return bad("--seed expects a non-negative integer, got '" + std::string(sv) + "'");
      opts.has_seed = true;
    } else if (a == "--out") {
      const char* v = value(a);
      if (v == nullptr)
        return bad("--out needs a directory");
      opts.out = v;
    } else if (a == "--merge" || a == "--shard") {
      const char* v = value(a);
      if (v == nullptr)
        return bad(a == "--merge" ? "--merge needs the sweep's output directory" : "--shard needs i/n, e.g. 0/4");
      (a == "--merge" ? opts.merge : opts.shard) = v;
    } else if (a == "--vary") {
      const char* v = value(a);
      if (v == nullptr)
        return bad("--vary needs KEY=V1,V2,...");
      opts.varies.emplace_back(v);
    } else if (a == "--seeds") {
      const char* v = value(a);
      std::string_view sv(v == nullptr ? "" : v);
      auto [p, ec] = std::from_chars(sv.data(), sv.data() + sv.size(), opts.seeds);
      if (v == nullptr || ec != std::errc() || p != sv.data() + sv.size() || opts.seeds < 1 || opts.seeds > 100000)
        return bad("--seeds expects a positive integer, got '" + std::string(sv) + "'");
    } else if (a == "--replicas") {
      const char* v = value(a);
      std::string_view sv(v == nullptr ? "" : v);
      auto [p, ec] = std::from_chars(sv.data(), sv.data() + sv.size(), opts.replicas);
      if (v == nullptr || ec != std::errc() || p != sv.data() + sv.size() || opts.replicas < 1 || opts.replicas > 1000000)
        return bad("--replicas expects a positive number of seeds per point, got '" + std::string(sv) + "'");
    } else if (a == "-j" || a == "--jobs") {
      const char* v = value(a);
      std::string_view sv(v == nullptr ? "" : v);
      auto [p, ec] = std::from_chars(sv.data(), sv.data() + sv.size(), opts.jobs);
      if (v == nullptr || ec != std::errc() || p != sv.data() + sv.size() || opts.jobs < 1 || opts.jobs > 1024)
        return bad(a + " expects a number of processes, got '" + std::string(sv) + "'");
    } else if (a == "--set") {
      const char* v = value(a);
      if (v == nullptr)
        return bad("--set needs key=value");
      opts.sets.emplace_back(v);
    } else if (a.rfind("--set=", 0) == 0) {
      opts.sets.push_back(a.substr(6));
    } else if (a == "--op" || a == "--algo" || a == "--ranks" || a == "--size" || a == "--mode" ||
               a == "--groups" || a == "--chunks") {
      const char* v = value(a);
      if (v == nullptr)
        return bad(a + " needs a value");
      std::string* field = a == "--op"     ? &opts.op
                           : a == "--algo"  ? &opts.algo
                           : a == "--ranks" ? &opts.ranks
                           : a == "--size"  ? &opts.size
                           : a == "--mode"  ? &opts.mode
                           : a == "--chunks" ? &opts.chunks
                                            : &opts.groups;
      *field = v;
    } else if (a == "--dump-resolved") {
      opts.dump_resolved = true;
    } else if (a == "--markdown") {
      opts.markdown = true;
    } else if (a == "--quiet" || a == "-q") {
      opts.quiet = true;
    } else if (a == "--help" || a == "-h") {
      opts.command = "help";
    } else if (!a.empty() && a[0] == '-') {
      return bad("unknown option '" + a + "'");
    } else if (opts.scenario.empty()) {
      opts.scenario = a;
    } else {
      return bad("unexpected argument '" + a + "' (one scenario per run)");
    }
  }
  return true;
}

std::string default_scenario_path()
{
  const std::string rel = "scenarios/llama3_405b_16k.yaml";
  if (std::filesystem::exists(rel))
    return rel;
#ifdef FLEETSIM_SOURCE_DIR
  const std::string in_tree = std::string(FLEETSIM_SOURCE_DIR) + "/" + rel;
  if (std::filesystem::exists(in_tree))
    return in_tree;
#endif
  return rel;
}

}  // namespace fleetsim::cli
