// fleetsim sweep: Monte Carlo replicas over a grid of scenario values, with confidence intervals,
// run here (-j N), over MPI ranks, or in job-array shards merged afterwards. The sweep file and the
// results are in sweep_plan.hpp.
#include "commands.hpp"
#include "mpi_world.hpp"
#include "replica_runner.hpp"
#include "sweep_plan.hpp"
#include "unused_keys.hpp"

#include "simulator/output/run_outputs.hpp"
#include "simulator/run/run.hpp"
#include "simulator/scenario/scenario_loader.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

namespace fleetsim::cli {
namespace {

namespace fs = std::filesystem;

int merge(const Options& opts)
{
  std::string error;
  const auto plan = plan_from_json(opts.merge, error);
  if (!plan) {
    std::cerr << "fleetsim: error: " << error << "\n";
    return kExitBadInput;
  }
  const auto figures = collect(*plan, all_tasks(*plan), error);
  if (!figures) {
    std::cerr << "fleetsim: error: cannot merge " << opts.merge << ": " << error
              << "; run the missing shards (or the sweep itself) again, then merge\n";
    return kExitFailure;
  }
  return write_results(*plan, *figures, opts.quiet);
}

// "i/n" -> (i, n) with 0 <= i < n.
std::optional<std::pair<int, int>> parse_shard(const std::string& s)
{
  const auto slash = s.find('/');
  if (slash == std::string::npos)
    return std::nullopt;
  int i = -1, n = 0;
  const char* b = s.data();
  auto [p1, e1] = std::from_chars(b, b + slash, i);
  auto [p2, e2] = std::from_chars(b + slash + 1, b + s.size(), n);
  if (e1 != std::errc() || e2 != std::errc() || p1 != b + slash || p2 != b + s.size() || n < 1 || i < 0 || i >= n)
    return std::nullopt;
  return std::make_pair(i, n);
}

// The metrics asked for, in the file's order, or all of them (the token-target ones only when some
// point has a target).
std::vector<const Metric*> plan_metrics(const SweepFile& sweep, const std::vector<scenario::Scenario>& scenarios)
{
  std::vector<const Metric*> out;
  const bool target = std::any_of(scenarios.begin(), scenarios.end(),
                                  [](const auto& sc) { return sc.token_target > 0; });
  if (sweep.metrics.empty()) {
    const std::vector<std::string>& builtins =
        scenarios.empty() ? metrics::sweep_defaults() : sim::presentation(scenarios.front()).sweep_metrics;
    for (const Metric* m : metrics::default_metrics(builtins))
      if (target || (m->name != "time_to_target_h" && m->name != "target_reached"))
        out.push_back(m);
    return out;
  }
  for (const auto& name : sweep.metrics)
    if (std::find(out.begin(), out.end(), find_metric(name)) == out.end())
      out.push_back(find_metric(name));
  return out;
}

// The axes as the manifest records them: "key=v1,v2 zip other=w1,w2".
std::vector<std::string> axis_texts(const std::vector<Axis>& axes)
{
  std::vector<std::string> varies;
  for (const auto& a : axes) {
    std::string v = a.key + "=";
    for (size_t i = 0; i < a.values.size(); ++i)
      v += (i ? "," : "") + a.values[i];
    for (const auto& [k, values] : a.zipped) {
      v += " zip " + k + "=";
      for (size_t i = 0; i < values.size(); ++i)
        v += (i ? "," : "") + values[i];
    }
    varies.push_back(v);
  }
  return varies;
}

// The sweep file and every point's scenario, loaded and checked before anything runs (bad input
// writes nothing); false after printing the problems.
bool load_plan(const Options& opts, Plan& plan, std::vector<scenario::Scenario>& scenarios, bool& traces)
{
  const auto sweep = read_sweep(opts.scenario);
  if (!sweep)
    return false;
  plan.sweep_file = opts.scenario;
  plan.base = sweep->base;
  plan.axes = sweep->axes;
  plan.points = grid(sweep->axes);
  plan.replicas = opts.replicas > 0 ? opts.replicas : sweep->replicas;
  plan.sets = sweep->sets;
  plan.sets.insert(plan.sets.end(), opts.sets.begin(), opts.sets.end());
  for (const auto& p : plan.points) {
    std::vector<std::string> sets = plan.sets;
    sets.insert(sets.end(), p.sets.begin(), p.sets.end());
    auto loaded = scenario::load_scenario_file(sweep->base, sets, scenario::UnusedKeys::List);
    if (!loaded.diagnostics.empty()) {
      scenario::report(loaded.diagnostics, std::cerr,
                       "point " + (p.label.empty() ? std::string("(base)") : p.label) + " of " + opts.scenario);
      return false;
    }
    scenarios.push_back(std::move(*loaded.scenario));
  }
  std::vector<std::string> labels;
  for (const auto& p : plan.points)
    labels.push_back(p.label);
  if (!report_unused_across_points(labels, scenarios, std::cerr))
    return false;
  plan.first_seed = opts.has_seed ? opts.seed : sweep->seed.value_or(scenarios.front().seed);
  traces = sweep->traces;
  plan.metrics = plan_metrics(*sweep, scenarios);
  plan.out = opts.out.empty() ? "out/sweep-" + fs::path(opts.scenario).stem().string() : opts.out;
  return true;
}

// Under MPI every rank loads and checks the sweep itself (its files may differ from rank 0's).
// Rank 0 prints its problems; another rank prints its own only where rank 0 saw none, so a bad file
// gives one message, not K. Every rank reaches the same collectives, failing or not.
class Agreement {
public:
  Agreement(MpiWorld* mpi, bool speaker) : mpi_(mpi), speaker_(speaker)
  {
    if (!speaker_)
      cerr_buf_ = std::cerr.rdbuf(held_.rdbuf());
  }
  ~Agreement() { restore(); }
  Agreement(const Agreement&) = delete;
  Agreement& operator=(const Agreement&) = delete;
  /// True when every rank's `mine_ok` is.
  bool agreed(bool mine_ok)
  {
    restore();
    if (mpi_ == nullptr)
      return mine_ok;
    const bool all_ok = mpi_->all(mine_ok);
    const bool rank0_ok = mpi_->broadcast(mine_ok ? "ok" : "") == "ok";
    if (!speaker_ && !mine_ok && rank0_ok)
      std::cerr << "rank " << mpi_->rank() << ": " << held_.str();
    held_.str("");
    return all_ok;
  }

private:
  void restore()
  {
    if (cerr_buf_ != nullptr)
      std::cerr.rdbuf(cerr_buf_);
    cerr_buf_ = nullptr;
  }
  MpiWorld* mpi_;
  bool speaker_;
  std::ostringstream held_;
  std::streambuf* cerr_buf_ = nullptr;
};

// Every process claims DIR on its own filesystem: shards and ranks sharing one write the same bytes
// (each through its own temporary file); a rank with a filesystem of its own checks that its DIR
// holds no other sweep's runs. False when any process could not.
bool claim(const Plan& plan, MpiWorld* mpi, bool speaker)
{
  std::string error = claim_output_dir(
      plan.out, manifest_text(plan.base, plan.sets, axis_texts(plan.axes), plan.first_seed, plan.replicas));
  if (error.empty())
    error = sim::write_file_atomically(plan.out, "sweep.json",
                                       [&](std::ostream& o) { o << plan_json(plan).dump(2) << '\n'; });
  if (!error.empty())
    std::cerr << "fleetsim: error: " << (mpi != nullptr && !speaker ? "rank " + std::to_string(mpi->rank()) + ": " : "")
              << error << "\n";
  return !((mpi != nullptr && !mpi->all(error.empty())) || !error.empty());
}

// MPI: every rank's figures travel to rank 0 as [task, figures...] records, bit for bit; rank 0 writes.
int gather_and_write(const Plan& plan, const std::vector<size_t>& mine, const std::vector<std::vector<double>>& figures,
                     MpiWorld& mpi, bool quiet)
{
  std::vector<double> packed;
  for (size_t i = 0; i < mine.size(); ++i) {
    packed.push_back(static_cast<double>(mine[i]));
    packed.insert(packed.end(), figures[i].begin(), figures[i].end());
  }
  const auto gathered = mpi.gather(packed);
  if (mpi.rank() != 0)
    return kExitOk;
  const size_t width = plan.metrics.size() + 1;
  std::vector<std::vector<double>> all(plan.tasks());
  for (const auto& from_rank : gathered)
    for (size_t at = 0; at + width <= from_rank.size(); at += width)
      all.at(static_cast<size_t>(from_rank[at]))
          .assign(from_rank.begin() + static_cast<long>(at) + 1, from_rank.begin() + static_cast<long>(at + width));
  return write_results(plan, all, quiet);
}

// Under mpirun, this process's MPI world (nullptr otherwise); sets `failed` after printing why not.
std::unique_ptr<MpiWorld> join_if_launched(bool sharded, bool& failed)
{
  failed = false;
  if (!launched_by_mpi())
    return nullptr;
  std::string error;
  auto mpi = join_mpi(error);
  if (!mpi)
    std::cerr << "fleetsim: error: " << error << "\n";
  else if (sharded)
    std::cerr << "fleetsim: error: --shard splits a sweep without MPI; under mpirun the ranks share it\n";
  failed = !mpi || sharded;
  return mpi;
}

}  // namespace

int cmd_sweep(const Options& opts)
{
  if (!opts.merge.empty())
    return merge(opts);
  if (opts.scenario.empty()) {
    std::cerr << "fleetsim: error: sweep needs a sweep file (see 'fleetsim help')\n";
    return kExitBadInput;
  }
  std::optional<std::pair<int, int>> shard;
  if (!opts.shard.empty() && !(shard = parse_shard(opts.shard))) {
    std::cerr << "fleetsim: error: --shard expects i/n with 0 <= i < n, e.g. --shard 0/4, got '" << opts.shard << "'\n";
    return kExitBadInput;
  }
  // Under mpirun every rank reads and checks the sweep; rank 0 speaks for all of them.
  bool failed = false;
  const std::unique_ptr<MpiWorld> mpi = join_if_launched(shard.has_value(), failed);
  if (failed)
    return kExitBadInput;
  const bool speaker = !mpi || mpi->rank() == 0;
  Plan plan;
  std::vector<scenario::Scenario> scenarios;
  bool traces = true;
  {
    Agreement agreement(mpi.get(), speaker);
    if (!agreement.agreed(load_plan(opts, plan, scenarios, traces)))
      return kExitBadInput;
  }
  if (!claim(plan, mpi.get(), speaker))
    return kExitBadInput;

  // This process's share: task t goes to rank (or shard) t mod n, which spreads every point's
  // replicas, and so its cost, over all of them.
  const int part = mpi ? mpi->rank() : shard ? shard->first : 0;
  const int parts = mpi ? mpi->size() : shard ? shard->second : 1;
  std::vector<size_t> mine;
  std::vector<ReplicaTask> tasks;
  for (size_t t = 0; t < plan.tasks(); ++t)
    if (static_cast<int>(t % static_cast<size_t>(parts)) == part) {
      mine.push_back(t);
      tasks.push_back({&scenarios[plan.point_of(t)], plan.seed_of(t), plan.dir_of(t), plan.point_of(t)});
    }
  RunnerOptions run_opts;
  run_opts.jobs = opts.jobs;
  run_opts.progress = speaker && !opts.quiet;
  run_opts.traces = traces;
  bool internal = false;
  run_opts.internal_error = &internal;
  std::string error = run_replicas(tasks, run_opts);
  const int failure_code = internal ? kExitInternal : kExitFailure;
  std::optional<std::vector<std::vector<double>>> figures;
  if (error.empty())
    figures = collect(plan, mine, error);
  if (mpi) {
    if (!mpi->all(error.empty())) {
      if (!error.empty())
        std::cerr << "fleetsim: error: rank " << mpi->rank() << ": " << error << "\n";
      return failure_code;
    }
    return gather_and_write(plan, mine, *figures, *mpi, opts.quiet);
  }
  if (!error.empty()) {
    std::cerr << "fleetsim: error: " << error << "\n";
    return failure_code;
  }
  if (!shard)
    return write_results(plan, *figures, opts.quiet);
  if (!opts.quiet)
    std::printf(
        "%s: shard %d/%d ran its %zu of %zu replicas into %s/runs/; when every shard is done: "
        "fleetsim sweep --merge %s\n",
        opts.scenario.c_str(), shard->first, shard->second, mine.size(), plan.tasks(), plan.out.c_str(),
        plan.out.c_str());
  return kExitOk;
}

}  // namespace fleetsim::cli
