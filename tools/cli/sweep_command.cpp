// fleetsim sweep: Monte Carlo replicas over a grid of scenario values, with confidence intervals.
//
// Sweep file (YAML):
//   base: ../llama3_405b_16k.yaml   # the scenario, relative to the sweep file (or absolute)
//   replicas: 20                    # seeds per point: seed, seed + 1, ... at every point (common
//                                   # random numbers: differences between points are not noise)
//   seed: 1                         # first seed (default: the scenario's run.seed)
//   set: {run.duration: 30d}        # overrides applied at every point
//   vary:                           # the grid of all combinations, first key slowest
//     spares.nodes: [0, 8, 16]
//     recovery.policy: [restart, elastic]
//   zip:                            # axes whose keys vary together (axes in file order)
//     - {cluster.gpus: [1024, 2048], parallelism.dp: [8, 16]}
#include "commands.hpp"
#include "replica_runner.hpp"

#include "models/statistics.hpp"
#include "simulator/scenario/scenario_loader.hpp"
#include "simulator/trace/output_writers.hpp"

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

namespace fleetsim::cli {
namespace {

namespace fs = std::filesystem;

struct SweepFile {
  std::string base;  // resolved path
  int replicas = 1;
  std::optional<std::uint64_t> seed;
  std::vector<std::string> sets;
  std::vector<Axis> axes;
};

// A metric of summary.json: its column name and its path (seconds are reported in hours).
struct Metric {
  std::string name;
  std::vector<std::string> path;
  double scale = 1;
};

const std::vector<Metric>& metrics()
{
  static const std::vector<Metric> m = [] {
    std::vector<Metric> v = {{"ettr", {"ettr"}, 1},
                             {"goodput_ratio", {"goodput_ratio"}, 1},
                             {"tokens_trained", {"tokens_trained"}, 1},
                             {"unexpected_interruptions", {"interruptions", "unexpected"}, 1}};
    for (const char* phase : {"productive", "checkpoint", "detection", "restart", "reload", "warmup", "lost_work",
                              "planned", "waiting"})
      v.push_back({std::string(phase) + "_h", {"time_breakdown_s", phase}, 1.0 / 3600});
    return v;
  }();
  return m;
}

double metric_value(const nlohmann::json& j, const Metric& m)
{
  const nlohmann::json* at = &j;
  for (const auto& k : m.path) {
    if (!at->contains(k))
      return 0;
    at = &(*at)[k];
  }
  return at->is_number() ? at->get<double>() * m.scale : 0;
}

// A located error, as the scenario loader prints them.
std::string located(const std::string& file, const YAML::Node& n, const std::string& msg)
{
  const auto mark = n.Mark();
  return file + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1) + ": error: " + msg;
}

std::string scalar_text(const YAML::Node& n) { return n.IsScalar() ? n.Scalar() : std::string(); }

// Parses the sweep file; prints every problem and returns nullopt when there is one.
std::optional<SweepFile> read_sweep(const std::string& path)
{
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    std::cerr << path << ": error: cannot open the sweep file\n";
    return std::nullopt;
  } catch (const YAML::Exception& e) {
    std::cerr << path << ":" << e.mark.line + 1 << ":" << e.mark.column + 1 << ": error: " << e.msg << "\n";
    return std::nullopt;
  }
  std::vector<std::string> errors;
  SweepFile s;
  if (!root.IsMap()) {
    std::cerr << path << ": error: a sweep file is a map with base, replicas and vary\n";
    return std::nullopt;
  }
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    const YAML::Node& v = kv.second;
    if (key == "base") {
      const fs::path base = scalar_text(v);
      if (base.empty())
        errors.push_back(located(path, v, "base: the scenario file, relative to the sweep file or absolute"));
      else
        s.base = (base.is_absolute() ? base : fs::path(path).parent_path() / base).lexically_normal().string();
    } else if (key == "replicas") {
      int n = 0;
      if (!v.IsScalar() || !YAML::convert<int>::decode(v, n) || n < 1 || n > 1000000)
        errors.push_back(located(path, v, "replicas: a positive number of seeds per point"));
      s.replicas = n;
    } else if (key == "seed") {
      unsigned long long n = 0;
      if (!v.IsScalar() || !YAML::convert<unsigned long long>::decode(v, n))
        errors.push_back(located(path, v, "seed: the first seed, a non-negative integer"));
      s.seed = n;
    } else if (key == "zip") {
      // A list of maps; in each, the keys' lists have one length and vary together as one axis.
      if (!v.IsSequence()) {
        errors.push_back(located(path, v, "zip: a list of maps of equally long lists, e.g. - {cluster.gpus: [1024, 2048], parallelism.dp: [8, 16]}"));
        continue;
      }
      for (const auto& group : v) {
        Axis axis;
        bool ok = group.IsMap() && group.size() >= 1;
        for (const auto& e : group) {
          std::vector<std::string> values;
          if (e.second.IsSequence())
            for (const auto& x : e.second)
              if (x.IsScalar())
                values.push_back(x.Scalar());
          const std::string k = e.first.as<std::string>();
          if (values.empty() || values.size() != e.second.size() ||
              (!axis.key.empty() && values.size() != axis.values.size())) {
            errors.push_back(located(path, e.second, "zip: " + k + " needs a list as long as the others in its group"));
            ok = false;
            break;
          }
          if (axis.key.empty()) {
            axis.key = k;
            axis.values = std::move(values);
          } else {
            axis.zipped.emplace_back(k, std::move(values));
          }
        }
        if (ok)
          s.axes.push_back(std::move(axis));
        else if (!group.IsMap())
          errors.push_back(located(path, group, "zip: each entry is a map of keys to lists"));
      }
    } else if (key == "set" || key == "vary") {
      if (!v.IsMap()) {
        errors.push_back(located(path, v, key + ": a map from dotted scenario keys to " +
                                              (key == "set" ? "values" : "lists of values")));
        continue;
      }
      for (const auto& e : v) {
        const std::string k = e.first.as<std::string>();
        if (key == "set") {
          if (!e.second.IsScalar())
            errors.push_back(located(path, e.second, "set: " + k + " needs one value"));
          else
            s.sets.push_back(k + "=" + e.second.Scalar());
          continue;
        }
        Axis axis{k, {}, {}};
        if (e.second.IsSequence())
          for (const auto& x : e.second)
            if (x.IsScalar())
              axis.values.push_back(x.Scalar());
        if (axis.values.empty() || (e.second.IsSequence() && axis.values.size() != e.second.size()))
          errors.push_back(located(path, e.second, "vary: " + k + " needs a list of values, e.g. [8, 16]"));
        else
          s.axes.push_back(std::move(axis));
      }
    } else {
      errors.push_back(located(path, kv.first, "unknown key '" + key + "' (a sweep file has base, replicas, seed, set, vary, zip)"));
    }
  }
  if (s.base.empty() && errors.empty())
    errors.push_back(path + ": error: the sweep file needs base: (the scenario)");
  for (const auto& e : errors)
    std::cerr << e << "\n";
  if (!errors.empty())
    return std::nullopt;
  return s;
}

std::string number(double v)
{
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

}  // namespace

int cmd_sweep(const Options& opts)
{
  if (opts.scenario.empty()) {
    std::cerr << "fleetsim: error: sweep needs a sweep file (see 'fleetsim help')\n";
    return kExitBadInput;
  }
  const auto sweep = read_sweep(opts.scenario);
  if (!sweep)
    return kExitBadInput;
  const std::vector<Point> points = grid(sweep->axes);
  // Every point is loaded and checked before anything runs: bad input writes nothing.
  std::vector<scenario::Scenario> scenarios;
  for (const auto& p : points) {
    std::vector<std::string> sets = sweep->sets;
    sets.insert(sets.end(), opts.sets.begin(), opts.sets.end());
    sets.insert(sets.end(), p.sets.begin(), p.sets.end());
    auto loaded = scenario::load_scenario_file(sweep->base, sets);
    if (!loaded.diagnostics.empty()) {
      std::cerr << "point " << (p.label.empty() ? "(base)" : p.label) << " of " << opts.scenario << ":\n"
                << loaded.diagnostics.to_string();
      return kExitBadInput;
    }
    scenarios.push_back(std::move(*loaded.scenario));
  }
  const std::uint64_t first_seed = opts.has_seed ? opts.seed : sweep->seed.value_or(scenarios.front().seed);
  const std::string out = opts.out.empty() ? "out/sweep-" + fs::path(opts.scenario).stem().string() : opts.out;
  std::vector<std::string> varies;
  for (const auto& a : sweep->axes) {
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
  std::vector<std::string> all_sets = sweep->sets;
  all_sets.insert(all_sets.end(), opts.sets.begin(), opts.sets.end());
  if (std::string err = claim_output_dir(out, manifest_text(sweep->base, all_sets, varies, first_seed, sweep->replicas));
      !err.empty()) {
    std::cerr << "fleetsim: error: " << err << "\n";
    return kExitBadInput;
  }

  std::vector<ReplicaTask> tasks;
  for (size_t i = 0; i < points.size(); ++i)
    for (int r = 0; r < sweep->replicas; ++r) {
      const std::uint64_t seed = first_seed + static_cast<std::uint64_t>(r);
      const std::string label = points[i].label.empty() ? "base" : points[i].label;
      tasks.push_back({&scenarios[i], seed, out + "/runs/" + label + "/seed-" + std::to_string(seed)});
    }
  if (std::string err = run_replicas(tasks, opts.jobs); !err.empty()) {
    std::cerr << "fleetsim: error: " << err << "\n";
    return kExitFailure;
  }

  // Every replica's figures, in grid then seed order: the files do not depend on -j or on resuming.
  const auto& ms = metrics();
  std::vector<std::vector<std::vector<double>>> values(points.size(), std::vector<std::vector<double>>(ms.size()));
  std::ostringstream replicas_csv;
  for (const auto& a : sweep->axes) {
    replicas_csv << a.key << ',';
    for (const auto& z : a.zipped)
      replicas_csv << z.first << ',';
  }
  replicas_csv << "seed";
  for (const auto& m : ms)
    replicas_csv << ',' << m.name;
  replicas_csv << '\n';
  for (size_t t = 0; t < tasks.size(); ++t) {
    const size_t i = t / static_cast<size_t>(sweep->replicas);
    nlohmann::json sum;
    try {
      std::ifstream f(fs::path(tasks[t].dir) / "summary.json");
      sum = nlohmann::json::parse(f);
    } catch (const std::exception& e) {
      std::cerr << "fleetsim: error: cannot read " << tasks[t].dir << "/summary.json: " << e.what() << "\n";
      return kExitFailure;
    }
    for (const auto& set : points[i].sets)
      replicas_csv << set.substr(set.find('=') + 1) << ',';
    replicas_csv << tasks[t].seed;
    for (size_t k = 0; k < ms.size(); ++k) {
      const double v = metric_value(sum, ms[k]);
      values[i][k].push_back(v);
      replicas_csv << ',' << number(v);
    }
    replicas_csv << '\n';
  }
  auto results = [&](std::ostream& o) {
    for (const auto& a : sweep->axes) {
      o << a.key << ',';
      for (const auto& z : a.zipped)
        o << z.first << ',';
    }
    o << "replicas";
    for (const auto& m : ms)
      for (const char* stat : {"mean", "sd", "ci95", "p5", "p95"})
        o << ',' << m.name << '_' << stat;
    o << '\n';
    for (size_t i = 0; i < points.size(); ++i) {
      for (const auto& set : points[i].sets)
        o << set.substr(set.find('=') + 1) << ',';
      o << sweep->replicas;
      for (size_t k = 0; k < ms.size(); ++k) {
        const models::SampleSummary s = models::summarize(values[i][k]);
        o << ',' << number(s.mean) << ',' << number(s.sd) << ',' << number(s.ci95) << ',' << number(s.p5) << ','
          << number(s.p95);
      }
      o << '\n';
    }
  };
  std::string err = sim::write_file_atomically(out, "replicas.csv", [&](std::ostream& o) { o << replicas_csv.str(); });
  if (err.empty())
    err = sim::write_file_atomically(out, "results.csv", results);
  if (!err.empty()) {
    std::cerr << "fleetsim: error: " << err << "\n";
    return kExitFailure;
  }
  if (!opts.quiet) {
    std::printf("%s: %zu points x %d replicas (seeds %llu..%llu)\n", opts.scenario.c_str(), points.size(),
                sweep->replicas, static_cast<unsigned long long>(first_seed),
                static_cast<unsigned long long>(first_seed + static_cast<std::uint64_t>(sweep->replicas) - 1));
    std::printf("  %-44s %8s %9s %8s %8s\n", "point", "ETTR", "95% CI", "p5", "p95");
    for (size_t i = 0; i < points.size(); ++i) {
      const models::SampleSummary s = models::summarize(values[i][0]);
      std::printf("  %-44s %8.4f %9.4f %8.4f %8.4f\n", points[i].label.empty() ? "(base)" : points[i].label.c_str(),
                  s.mean, s.ci95, s.p5, s.p95);
    }
    std::printf("  outputs in %s/ (results.csv, replicas.csv, runs/)\n", out.c_str());
  }
  return kExitOk;
}

}  // namespace fleetsim::cli
