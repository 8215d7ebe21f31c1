// fleetsim compare: one scenario at a few values of one or more keys (the grid of all combinations),
// every point on the same seeds, side by side. Each run is its own process (SimGrid allows one
// simulation per process) and keeps its outputs under DIR/<point>/[seed-N/].
#include "commands.hpp"
#include "replica_runner.hpp"

#include "simulator/metrics/metric_registry.hpp"
#include "simulator/run/simulation.hpp"
#include "simulator/scenario/scenario_loader.hpp"
#include "simulator/output/run_outputs.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

namespace fleetsim::cli {
namespace {

// The figures of one point, averaged over its seeds.
struct Row {
  std::map<std::string, double> mean;
  void add(const std::string& k, double v, int n) { mean[k] += v / n; }
};

// compare.csv's columns (simulator/metrics/metric_registry.hpp): compare's built-ins, then every
// registered metric.
const std::vector<const metrics::Metric*>& columns()
{
  static const std::vector<const metrics::Metric*> c = metrics::default_metrics(metrics::compare_defaults());
  return c;
}

void accumulate(Row& row, const nlohmann::json& sum, int n)
{
  for (const metrics::Metric* m : columns())
    row.add(m->name, m->read(sum), n);
}

}  // namespace

int cmd_compare(const Options& opts)
{
  if (opts.varies.empty()) {
    std::cerr << "fleetsim: error: compare needs at least one --vary KEY=V1,V2,...\n";
    return kExitBadInput;
  }
  std::vector<Axis> axes;
  for (const auto& v : opts.varies) {
    const auto eq = v.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == v.size()) {
      std::cerr << "fleetsim: error: --vary expects KEY=V1,V2,... (got '" << v << "')\n";
      return kExitBadInput;
    }
    axes.push_back({v.substr(0, eq), split(v.substr(eq + 1), ','), {}});
  }
  const std::string path = opts.scenario.empty() ? default_scenario_path() : opts.scenario;
  // Every point is loaded and checked before anything runs: bad input writes nothing.
  const std::vector<Point> points = grid(axes);
  std::vector<scenario::Scenario> scenarios;
  for (const auto& p : points) {
    std::vector<std::string> sets = opts.sets;
    sets.insert(sets.end(), p.sets.begin(), p.sets.end());
    auto loaded = scenario::load_scenario_file(path, sets);
    if (!loaded.diagnostics.empty()) {
      std::cerr << "point " << p.label << ":\n" << loaded.diagnostics.to_string();
      return kExitBadInput;
    }
    scenarios.push_back(std::move(*loaded.scenario));
  }
  const std::uint64_t first_seed = opts.has_seed ? opts.seed : scenarios.front().seed;
  const int seeds = std::max(1, opts.seeds);
  const std::string out = opts.out.empty() ? "out/compare-" + scenarios.front().name : opts.out;

  if (std::string err = claim_output_dir(out, manifest_text(path, opts.sets, opts.varies, first_seed, seeds));
      !err.empty()) {
    std::cerr << "fleetsim: error: " << err << "\n";
    return kExitBadInput;
  }
  std::vector<ReplicaTask> tasks;
  for (size_t i = 0; i < points.size(); ++i)
    for (int k = 0; k < seeds; ++k) {
      const std::uint64_t seed = first_seed + static_cast<std::uint64_t>(k);
      std::string dir = out + "/" + points[i].label;
      if (seeds > 1)
        dir += "/seed-" + std::to_string(seed);
      tasks.push_back({&scenarios[i], seed, dir});
    }
  if (std::string err = run_replicas(tasks, RunnerOptions{opts.jobs, false}); !err.empty()) {
    std::cerr << "fleetsim: error: " << err << "\n";
    return kExitFailure;
  }
  std::vector<Row> rows(points.size());
  for (size_t t = 0; t < tasks.size(); ++t) {
    std::ifstream f(std::filesystem::path(tasks[t].dir) / "summary.json");
    nlohmann::json sum;
    try {
      sum = nlohmann::json::parse(f);
    } catch (const std::exception& e) {
      std::cerr << "fleetsim: error: cannot read " << tasks[t].dir << "/summary.json: " << e.what() << "\n";
      return kExitFailure;
    }
    const size_t i = t / static_cast<size_t>(seeds);
    accumulate(rows[i], sum, seeds);
  }

  auto body = [&](std::ostream& o) {
    for (const auto& a : axes)
      o << a.key << ',';
    o << "seeds";
    for (const metrics::Metric* c : columns())
      o << ',' << c->name;
    o << '\n';
    for (size_t i = 0; i < points.size(); ++i) {
      for (const auto& set : points[i].sets)
        o << set.substr(set.find('=') + 1) << ',';
      o << seeds;
      for (const metrics::Metric* c : columns()) {
        char buf[64];
        std::snprintf(buf, sizeof buf, ",%.10g", rows[i].mean[c->name]);
        o << buf;
      }
      o << '\n';
    }
  };
  if (std::string err = sim::write_file_atomically(out, "compare.csv", body); !err.empty()) {
    std::cerr << "fleetsim: error: " << err << "\n";
    return kExitFailure;
  }
  if (!opts.quiet) {
    std::printf("%s: %zu points x %d seed%s from seed %llu\n", scenarios.front().name.c_str(), points.size(), seeds,
                seeds > 1 ? "s" : "", static_cast<unsigned long long>(first_seed));
    std::printf("  %-44s %7s %7s %6s | hours: %7s %7s %7s %7s %7s %7s %7s\n", "point", "ETTR", "goodput", "unexp",
                "detect", "restart", "reload", "warmup", "waiting", "lost", "ckpt");
    for (size_t i = 0; i < points.size(); ++i) {
      auto& m = rows[i].mean;
      std::printf("  %-44s %7.4f %7.4f %6.1f | %14.1f %7.1f %7.1f %7.1f %7.1f %7.1f %7.1f\n", points[i].label.c_str(),
                  m["ettr"], m["goodput_ratio"], m["unexpected_interruptions"], m["detection_h"], m["restart_h"], m["reload_h"],
                  m["warmup_h"], m["waiting_h"], m["lost_work_h"], m["checkpoint_h"]);
    }
    std::printf("  outputs in %s/ (compare.csv, and each run's own files under <point>/)\n", out.c_str());
  }
  return kExitOk;
}

}  // namespace fleetsim::cli
