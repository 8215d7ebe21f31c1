// fleetsim compare: one scenario at a few values of one or more keys (the grid of all combinations),
// every point on the same seeds, side by side. Each run is its own process (SimGrid allows one
// simulation per process) and keeps its outputs under DIR/<point>/[seed-N/].
#include "commands.hpp"
#include "replica_runner.hpp"
#include "unused_keys.hpp"

#include "simulator/metrics/metric_registry.hpp"
#include "simulator/output/run_outputs.hpp"
#include "simulator/run/run.hpp"
#include "simulator/scenario/scenario_loader.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
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

// compare.csv's columns (simulator/metrics/metric_registry.hpp): the built-ins the scenario's kind
// of run shows (sim::presentation), then every registered metric.
std::vector<const metrics::Metric*> columns(const sim::Presentation& shown)
{
  return metrics::default_metrics(shown.compare_metrics);
}

void accumulate(Row& row, const nlohmann::json& sum, int n, const sim::Presentation& shown)
{
  for (const metrics::Metric* m : columns(shown))
    row.add(m->name, m->read(sum), n);
}

// The --vary axes; prints the error and returns nullopt on a malformed one.
std::optional<std::vector<Axis>> parse_axes(const Options& opts)
{
  std::vector<Axis> axes;
  for (const auto& v : opts.varies) {
    const auto eq = v.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == v.size()) {
      std::cerr << "fleetsim: error: --vary expects KEY=V1,V2,... (got '" << v << "')\n";
      return std::nullopt;
    }
    axes.push_back({v.substr(0, eq), split(v.substr(eq + 1), ','), {}});
  }
  return axes;
}

// Every point loaded and checked before anything runs (bad input writes nothing); empty on an error.
std::vector<scenario::Scenario> load_points(const std::string& path, const Options& opts,
                                            const std::vector<Point>& points)
{
  std::vector<scenario::Scenario> scenarios;
  for (const auto& p : points) {
    std::vector<std::string> sets = opts.sets;
    sets.insert(sets.end(), p.sets.begin(), p.sets.end());
    auto loaded = scenario::load_scenario_file(path, sets, scenario::UnusedKeys::List);
    if (!loaded.diagnostics.empty()) {
      scenario::report(loaded.diagnostics, std::cerr, "point " + p.label);
      return {};
    }
    scenarios.push_back(std::move(*loaded.scenario));
  }
  std::vector<std::string> labels;
  for (const auto& p : points)
    labels.push_back(p.label);
  if (!report_unused_across_points(labels, scenarios, std::cerr))
    return {};
  return scenarios;
}

// Each point's mean over its seeds, from the runs' summaries; nullopt (after saying why) on an unreadable one.
std::optional<std::vector<Row>> read_rows(const std::vector<ReplicaTask>& tasks, size_t points, int seeds,
                                          const sim::Presentation& shown)
{
  std::vector<Row> rows(points);
  for (size_t t = 0; t < tasks.size(); ++t) {
    std::ifstream f(std::filesystem::path(tasks[t].dir) / "summary.json");
    nlohmann::json sum;
    try {
      sum = nlohmann::json::parse(f);
    } catch (const std::exception& e) {
      std::cerr << "fleetsim: error: cannot read " << tasks[t].dir << "/summary.json: " << e.what() << "\n";
      return std::nullopt;
    }
    accumulate(rows[t / static_cast<size_t>(seeds)], sum, seeds, shown);
  }
  return rows;
}

void write_csv(std::ostream& o, const std::vector<Axis>& axes, const std::vector<Point>& points, std::vector<Row>& rows,
               int seeds, const sim::Presentation& shown)
{
  for (const auto& a : axes)
    o << a.key << ',';
  o << "seeds";
  for (const metrics::Metric* c : columns(shown))
    o << ',' << c->name;
  o << '\n';
  for (size_t i = 0; i < points.size(); ++i) {
    for (const auto& set : points[i].sets)
      o << set.substr(set.find('=') + 1) << ',';
    o << seeds;
    for (const metrics::Metric* c : columns(shown)) {
      char buf[64];
      std::snprintf(buf, sizeof buf, ",%.10g", rows[i].mean[c->name]);
      o << buf;
    }
    o << '\n';
  }
}

// The terminal table: a row per point, the columns of the scenario's kind of run (sim::presentation).
void print_table(const std::string& name, const sim::Presentation& shown, const std::vector<Point>& points,
                 std::vector<Row>& rows, int seeds, std::uint64_t first_seed, const std::string& out)
{
  std::printf("%s: %s%zu points x %d seed%s from seed %llu\n", name.c_str(), shown.kind, points.size(), seeds,
              seeds > 1 ? "s" : "", static_cast<unsigned long long>(first_seed));
  // A group's label sits in its first column's header; its values are as wide as label and header.
  const auto lead = [](const sim::TableColumn& c) {
    return c.group == nullptr ? 0 : (c.group[0] != '\0' ? static_cast<int>(std::strlen(c.group)) + 1 : 0);
  };
  std::printf("  %-44s", "point");
  for (const sim::TableColumn& c : shown.table) {
    if (c.group != nullptr)
      std::printf(" |%s%s", c.group[0] != '\0' ? " " : "", c.group);
    std::printf(" %*s", c.width, c.header);
  }
  std::printf("\n");
  for (size_t i = 0; i < points.size(); ++i) {
    std::printf("  %-44s", points[i].label.c_str());
    for (const sim::TableColumn& c : shown.table)
      std::printf("%s %*.*f", c.group != nullptr ? " |" : "", lead(c) + c.width, c.precision, rows[i].mean[c.metric]);
    std::printf("\n");
  }
  std::printf("  outputs in %s/ (compare.csv, and each run's own files under <point>/)\n", out.c_str());
}

}  // namespace

int cmd_compare(const Options& opts)
{
  if (opts.varies.empty()) {
    std::cerr << "fleetsim: error: compare needs at least one --vary KEY=V1,V2,...\n";
    return kExitBadInput;
  }
  const auto axes = parse_axes(opts);
  if (!axes)
    return kExitBadInput;
  const std::string path = opts.scenario.empty() ? default_scenario_path() : opts.scenario;
  const std::vector<Point> points = grid(*axes);
  std::vector<scenario::Scenario> scenarios = load_points(path, opts, points);
  if (scenarios.empty())
    return kExitBadInput;
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
  bool internal = false;
  if (std::string err = run_replicas(tasks, RunnerOptions{opts.jobs, false, true, &internal}); !err.empty()) {
    std::cerr << "fleetsim: error: " << err << "\n";
    return internal ? kExitInternal : kExitFailure;
  }
  const sim::Presentation& shown = sim::presentation(scenarios.front());
  auto rows = read_rows(tasks, points.size(), seeds, shown);
  if (!rows)
    return kExitFailure;
  const auto body = [&](std::ostream& o) { write_csv(o, *axes, points, *rows, seeds, shown); };
  if (std::string err = sim::write_file_atomically(out, "compare.csv", body); !err.empty()) {
    std::cerr << "fleetsim: error: " << err << "\n";
    return kExitFailure;
  }
  if (!opts.quiet)
    print_table(scenarios.front().name, shown, points, *rows, seeds, first_seed, out);
  return kExitOk;
}

}  // namespace fleetsim::cli
