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
#include "mpi_world.hpp"
#include "replica_runner.hpp"

#include "models/statistics.hpp"
#include "simulator/scenario/scenario_loader.hpp"
#include "simulator/trace/output_writers.hpp"

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
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
  std::vector<std::string> metrics;  // names; empty = the defaults
  bool traces = true;                // keep: all (default) | summary
};

// A metric of summary.json: its column name and its path (seconds are reported in hours).
struct Metric {
  std::string name;
  std::vector<std::string> path;
  double scale = 1;
};

// Every metric a sweep can aggregate, in the order of the result columns.
const std::vector<Metric>& all_metrics()
{
  static const std::vector<Metric> m = [] {
    std::vector<Metric> v = {{"ettr", {"ettr"}, 1},
                             {"goodput_ratio", {"goodput_ratio"}, 1},
                             {"tokens_trained", {"tokens_trained"}, 1},
                             {"time_to_target_h", {"token_target", "time_to_target_s"}, 1.0 / 3600},
                             {"target_reached", {"token_target", "reached"}, 1},
                             {"unexpected_interruptions", {"interruptions", "unexpected"}, 1}};
    for (const char* phase : {"productive", "checkpoint", "detection", "restart", "reload", "warmup", "lost_work",
                              "planned", "waiting"})
      v.push_back({std::string(phase) + "_h", {"time_breakdown_s", phase}, 1.0 / 3600});
    return v;
  }();
  return m;
}

const Metric* find_metric(const std::string& name)
{
  for (const auto& m : all_metrics())
    if (m.name == name)
      return &m;
  return nullptr;
}

std::string metric_names()
{
  std::string names;
  for (const auto& m : all_metrics())
    names += (names.empty() ? "" : ", ") + m.name;
  return names;
}

// The metric's value in a summary.json; NaN when the run has none (a token target not reached).
double metric_value(const nlohmann::json& j, const Metric& m)
{
  const nlohmann::json* at = &j;
  for (const auto& k : m.path) {
    if (!at->is_object() || !at->contains(k))
      return std::nan("");
    at = &(*at)[k];
  }
  if (at->is_boolean())
    return at->get<bool>() ? 1 : 0;
  return at->is_number() ? at->get<double>() * m.scale : std::nan("");
}

// A located error, as the scenario loader prints them.
std::string located(const std::string& file, const YAML::Node& n, const std::string& msg)
{
  const auto mark = n.Mark();
  return file + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1) + ": error: " + msg;
}

std::string scalar_text(const YAML::Node& n) { return n.IsScalar() ? n.Scalar() : std::string(); }

// A number with an optional unit suffix: "5min" -> (5, "min"); nullopt if it does not start with one.
std::optional<std::pair<double, std::string>> number_and_unit(const std::string& text)
{
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || !std::isfinite(v))
    return std::nullopt;
  return std::make_pair(v, std::string(p, text.data() + text.size()));
}

// The values of a range {from, to, step} (arithmetic) or {from, to, times} (geometric), both ends
// included, with the unit of `from`: {from: 5min, to: 40min, times: 2} is 5min, 10min, 20min, 40min.
std::vector<std::string> range_values(const YAML::Node& n, std::string& error)
{
  auto field = [&](const char* name) -> std::optional<std::pair<double, std::string>> {
    if (!n[name])
      return std::nullopt;
    return number_and_unit(scalar_text(n[name]));
  };
  for (const auto& kv : n) {
    const std::string key = kv.first.as<std::string>();
    if (key != "from" && key != "to" && key != "step" && key != "times") {
      error = "a range has from, to, and step or times, not '" + key + "'";
      return {};
    }
  }
  const auto from = field("from"), to = field("to"), step = field("step"), times = field("times");
  if (!from || !to || (!step == !times)) {
    error = "a range needs numbers from, to, and one of step (added) or times (multiplied), e.g. "
            "{from: 1024, to: 65536, times: 2}";
    return {};
  }
  if (to->second != from->second || (step && !step->second.empty() && step->second != from->second) ||
      (times && !times->second.empty())) {
    error = "from, to and step take the same unit; times is a plain factor";
    return {};
  }
  const double a = from->first, b = to->first;
  const bool ok = step ? step->first > 0 && b >= a : times->first > 1 && a > 0 && b >= a;
  if (!ok) {
    error = step ? "a range needs step > 0 and to >= from" : "a range needs times > 1 and 0 < from <= to";
    return {};
  }
  std::vector<std::string> values;
  for (int i = 0; values.size() < 10000; ++i) {
    const double v = step ? a + i * step->first : a * std::pow(times->first, i);
    if (v > b * (1 + 1e-12))
      break;
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.12g", v);
    values.push_back(buf + from->second);
  }
  if (values.size() >= 10000)
    error = "a range of more than 10,000 values";
  return values;
}

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
    } else if (key == "keep") {
      if (scalar_text(v) != "all" && scalar_text(v) != "summary")
        errors.push_back(located(path, v, "keep: all (every replica's summary.json, timeline.csv and events.csv) or summary (summary.json only)"));
      s.traces = scalar_text(v) != "summary";
    } else if (key == "metrics") {
      if (!v.IsSequence() || v.size() == 0) {
        errors.push_back(located(path, v, "metrics: a list of metric names (" + metric_names() + ")"));
        continue;
      }
      for (const auto& x : v) {
        if (!x.IsScalar() || find_metric(x.Scalar()) == nullptr)
          errors.push_back(located(path, x, "metrics: unknown metric '" + scalar_text(x) + "' (known: " + metric_names() + ")"));
        else
          s.metrics.push_back(x.Scalar());
      }
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
        if (e.second.IsMap()) {
          std::string error;
          axis.values = range_values(e.second, error);
          if (!error.empty()) {
            errors.push_back(located(path, e.second, "vary: " + k + ": " + error));
            continue;
          }
        }
        if (e.second.IsSequence())
          for (const auto& x : e.second)
            if (x.IsScalar())
              axis.values.push_back(x.Scalar());
        if (axis.values.empty() || (e.second.IsSequence() && axis.values.size() != e.second.size()))
          errors.push_back(located(path, e.second, "vary: " + k + " needs a list of values, e.g. [8, 16], or a range, "
                                                   "e.g. {from: 1024, to: 65536, times: 2}"));
        else
          s.axes.push_back(std::move(axis));
      }
    } else {
      errors.push_back(located(path, kv.first, "unknown key '" + key + "' (a sweep file has base, replicas, seed, set, vary, zip, metrics, keep)"));
    }
  }
  // Axis values name directories (runs/<key>=<value>,...) and fill CSV cells unquoted.
  for (const auto& a : s.axes) {
    std::vector<std::pair<std::string, const std::vector<std::string>*>> keys = {{a.key, &a.values}};
    for (const auto& [k, v] : a.zipped)
      keys.emplace_back(k, &v);
    for (const auto& [k, values] : keys)
      for (const auto& v : *values)
        if (v.find_first_of(",\"/=\n\r") != std::string::npos)
          errors.push_back(path + ": error: " + k + ": the value '" + v +
                           "' holds one of , \" / = or a line break, which would break run directory names and CSV cells");
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
  if (std::isnan(v))
    return "";  // no value: an empty cell
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

// Everything the results need, whether the replicas ran here, on MPI ranks or in shards: the grid,
// the seeds and where each replica's files are. Written to DIR/sweep.json when the sweep claims DIR,
// so that `sweep --merge DIR` (and `report DIR`) can rebuild it without the sweep file.
struct Plan {
  std::string sweep_file;
  std::string base;
  std::vector<std::string> sets;
  std::vector<Axis> axes;
  std::vector<Point> points;
  int replicas = 1;
  std::uint64_t first_seed = 1;
  std::string out;
  std::vector<const Metric*> metrics;

  [[nodiscard]] size_t tasks() const { return points.size() * static_cast<size_t>(replicas); }
  [[nodiscard]] size_t point_of(size_t task) const { return task / static_cast<size_t>(replicas); }
  [[nodiscard]] std::uint64_t seed_of(size_t task) const
  {
    return first_seed + static_cast<std::uint64_t>(task % static_cast<size_t>(replicas));
  }
  [[nodiscard]] std::string dir_of(size_t task) const
  {
    const std::string& label = points[point_of(task)].label;
    return out + "/runs/" + (label.empty() ? "base" : label) + "/seed-" + std::to_string(seed_of(task));
  }
};

nlohmann::ordered_json plan_json(const Plan& p)
{
  nlohmann::ordered_json axes = nlohmann::ordered_json::array();
  for (const auto& a : p.axes) {
    nlohmann::ordered_json keys = nlohmann::ordered_json::array();
    nlohmann::ordered_json values = nlohmann::ordered_json::array();
    keys.push_back(a.key);
    values.push_back(a.values);
    for (const auto& [k, v] : a.zipped) {
      keys.push_back(k);
      values.push_back(v);
    }
    axes.push_back({{"keys", keys}, {"values", values}});
  }
  nlohmann::ordered_json names = nlohmann::ordered_json::array();
  for (const Metric* m : p.metrics)
    names.push_back(m->name);
  return {{"sweep_file", p.sweep_file}, {"base", p.base},      {"set", p.sets},
          {"axes", axes},               {"replicas", p.replicas}, {"first_seed", p.first_seed},
          {"metrics", names}};
}

std::optional<Plan> plan_from_json(const std::string& dir, std::string& error)
{
  const fs::path file = fs::path(dir) / "sweep.json";
  try {
    std::ifstream in(file);
    if (!in) {
      error = "'" + dir + "' holds no sweep (no sweep.json): --merge takes the --out directory of a sweep";
      return std::nullopt;
    }
    const auto j = nlohmann::json::parse(in);
    Plan p;
    p.sweep_file = j.at("sweep_file").get<std::string>();
    p.base = j.at("base").get<std::string>();
    p.sets = j.at("set").get<std::vector<std::string>>();
    p.replicas = j.at("replicas").get<int>();
    p.first_seed = j.at("first_seed").get<std::uint64_t>();
    for (const auto& a : j.at("axes")) {
      const auto keys = a.at("keys").get<std::vector<std::string>>();
      const auto values = a.at("values").get<std::vector<std::vector<std::string>>>();
      if (keys.empty() || keys.size() != values.size())
        throw std::runtime_error("an axis needs as many value lists as keys");
      Axis axis{keys[0], values[0], {}};
      for (size_t k = 1; k < keys.size(); ++k)
        axis.zipped.emplace_back(keys[k], values[k]);
      p.axes.push_back(std::move(axis));
    }
    if (p.replicas < 1)
      throw std::runtime_error("replicas must be positive");
    for (const auto& name : j.at("metrics").get<std::vector<std::string>>()) {
      const Metric* m = find_metric(name);
      if (m == nullptr)
        throw std::runtime_error("unknown metric '" + name + "'");
      p.metrics.push_back(m);
    }
    p.points = grid(p.axes);
    p.out = dir;
    return p;
  } catch (const std::exception& e) {
    error = file.string() + ": " + e.what();
    return std::nullopt;
  }
}

// The figures of one replica, read from its summary.json.
std::optional<std::vector<double>> replica_figures(const Plan& p, const std::string& dir, std::string& error)
{
  nlohmann::json sum;
  try {
    std::ifstream f(fs::path(dir) / "summary.json");
    if (!f) {
      error = "the replica in " + dir + " has not run";
      return std::nullopt;
    }
    sum = nlohmann::json::parse(f);
  } catch (const std::exception& e) {
    error = "cannot read " + dir + "/summary.json: " + e.what();
    return std::nullopt;
  }
  std::vector<double> v;
  for (const Metric* m : p.metrics)
    v.push_back(metric_value(sum, *m));
  return v;
}

void parameter_header(std::ostream& o, const Plan& p)
{
  for (const auto& a : p.axes) {
    o << a.key << ',';
    for (const auto& z : a.zipped)
      o << z.first << ',';
  }
}

// results.csv, replicas.csv and the console table from every replica's figures (in task order):
// the files do not depend on -j, on resuming, on shards or on MPI ranks.
int write_results(const Plan& p, const std::vector<std::vector<double>>& figures, bool quiet)
{
  const auto& ms = p.metrics;
  std::vector<std::vector<std::vector<double>>> values(p.points.size(), std::vector<std::vector<double>>(ms.size()));
  for (size_t t = 0; t < figures.size(); ++t)
    for (size_t k = 0; k < ms.size(); ++k)
      values[p.point_of(t)][k].push_back(figures[t][k]);
  auto replicas = [&](std::ostream& o) {
    parameter_header(o, p);
    o << "seed";
    for (const Metric* m : ms)
      o << ',' << m->name;
    o << '\n';
    for (size_t t = 0; t < figures.size(); ++t) {
      for (const auto& set : p.points[p.point_of(t)].sets)
        o << set.substr(set.find('=') + 1) << ',';
      o << p.seed_of(t);
      for (double v : figures[t])
        o << ',' << number(v);
      o << '\n';
    }
  };
  auto results = [&](std::ostream& o) {
    parameter_header(o, p);
    o << "replicas";
    for (const Metric* m : ms)
      for (const char* stat : {"mean", "sd", "ci95", "p5", "p95"})
        o << ',' << m->name << '_' << stat;
    o << '\n';
    for (size_t i = 0; i < p.points.size(); ++i) {
      for (const auto& set : p.points[i].sets)
        o << set.substr(set.find('=') + 1) << ',';
      o << p.replicas;
      for (size_t k = 0; k < ms.size(); ++k) {
        // A point where some replica has no value (a token target not reached) has no statistics.
        if (std::any_of(values[i][k].begin(), values[i][k].end(), [](double v) { return std::isnan(v); })) {
          o << ",,,,,";
          continue;
        }
        const models::SampleSummary s = models::summarize(values[i][k]);
        o << ',' << number(s.mean) << ',' << number(s.sd) << ',' << number(s.ci95) << ',' << number(s.p5) << ','
          << number(s.p95);
      }
      o << '\n';
    }
  };
  std::string err = sim::write_file_atomically(p.out, "replicas.csv", replicas);
  if (err.empty())
    err = sim::write_file_atomically(p.out, "results.csv", results);
  if (!err.empty()) {
    std::cerr << "fleetsim: error: " << err << "\n";
    return kExitFailure;
  }
  if (!quiet) {
    std::printf("%s: %zu points x %d replicas (seeds %llu..%llu)\n", p.sweep_file.c_str(), p.points.size(), p.replicas,
                static_cast<unsigned long long>(p.first_seed),
                static_cast<unsigned long long>(p.first_seed + static_cast<std::uint64_t>(p.replicas) - 1));
    const size_t shown = static_cast<size_t>(std::find(ms.begin(), ms.end(), find_metric("ettr")) - ms.begin());
    std::printf("  %-44s %8s %9s %8s %8s\n", "point", shown < ms.size() ? "ETTR" : ms[0]->name.c_str(), "95% CI", "p5", "p95");
    for (size_t i = 0; i < p.points.size(); ++i) {
      const auto& v = values[i][shown < ms.size() ? shown : 0];
      if (std::any_of(v.begin(), v.end(), [](double x) { return std::isnan(x); })) {
        std::printf("  %-44s %8s\n", p.points[i].label.empty() ? "(base)" : p.points[i].label.c_str(), "(no value)");
        continue;
      }
      const models::SampleSummary s = models::summarize(v);
      std::printf("  %-44s %8.4f %9.4f %8.4f %8.4f\n", p.points[i].label.empty() ? "(base)" : p.points[i].label.c_str(),
                  s.mean, s.ci95, s.p5, s.p95);
    }
    std::printf("  outputs in %s/ (results.csv, replicas.csv, runs/)\n", p.out.c_str());
  }
  return kExitOk;
}

// Figures of the given tasks, or nullopt with every missing replica counted in `error`.
std::optional<std::vector<std::vector<double>>> collect(const Plan& p, const std::vector<size_t>& tasks,
                                                        std::string& error)
{
  std::vector<std::vector<double>> figures;
  size_t missing = 0;
  for (size_t t : tasks) {
    std::string e;
    if (auto f = replica_figures(p, p.dir_of(t), e)) {
      figures.push_back(std::move(*f));
    } else {
      if (missing++ == 0)
        error = e;
      figures.emplace_back();
    }
  }
  if (missing > 1)
    error += " (and " + std::to_string(missing - 1) + " more)";
  if (missing > 0)
    return std::nullopt;
  return figures;
}

std::vector<size_t> all_tasks(const Plan& p)
{
  std::vector<size_t> v(p.tasks());
  for (size_t t = 0; t < v.size(); ++t)
    v[t] = t;
  return v;
}

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
  std::unique_ptr<MpiWorld> mpi;
  if (launched_by_mpi()) {
    std::string error;
    mpi = join_mpi(error);
    if (!mpi) {
      std::cerr << "fleetsim: error: " << error << "\n";
      return kExitBadInput;
    }
    if (shard) {
      std::cerr << "fleetsim: error: --shard splits a sweep without MPI; under mpirun the ranks share it\n";
      return kExitBadInput;
    }
  }
  const bool speaker = !mpi || mpi->rank() == 0;
  // Under MPI every rank loads and checks the sweep itself (its files may differ from rank 0's).
  // Rank 0 prints its problems; another rank prints its own only where rank 0 saw none, so a bad
  // file gives one message, not K. Every rank reaches the same collectives, failing or not.
  std::ostringstream held;
  std::streambuf* cerr_buf = speaker ? nullptr : std::cerr.rdbuf(held.rdbuf());
  auto agreed = [&](bool mine_ok) {
    if (cerr_buf != nullptr)
      std::cerr.rdbuf(cerr_buf);
    cerr_buf = nullptr;
    if (!mpi)
      return mine_ok;
    const bool all_ok = mpi->all(mine_ok);
    const bool rank0_ok = mpi->broadcast(mine_ok ? "ok" : "") == "ok";
    if (!speaker && !mine_ok && rank0_ok)
      std::cerr << "rank " << mpi->rank() << ": " << held.str();
    held.str("");
    return all_ok;
  };

  Plan plan;
  std::vector<scenario::Scenario> scenarios;
  std::vector<std::string> varies;
  bool traces = true;
  auto load = [&]() -> bool {
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
    // Every point is loaded and checked before anything runs: bad input writes nothing.
    for (const auto& p : plan.points) {
      std::vector<std::string> sets = plan.sets;
      sets.insert(sets.end(), p.sets.begin(), p.sets.end());
      auto loaded = scenario::load_scenario_file(sweep->base, sets);
      if (!loaded.diagnostics.empty()) {
        std::cerr << "point " << (p.label.empty() ? "(base)" : p.label) << " of " << opts.scenario << ":\n"
                  << loaded.diagnostics.to_string();
        return false;
      }
      scenarios.push_back(std::move(*loaded.scenario));
    }
    plan.first_seed = opts.has_seed ? opts.seed : sweep->seed.value_or(scenarios.front().seed);
    traces = sweep->traces;
    // The metrics asked for, in the file's order, or all of them (the token-target ones when some
    // point has a target).
    const bool target = std::any_of(scenarios.begin(), scenarios.end(), [](const auto& sc) { return sc.token_target > 0; });
    if (sweep->metrics.empty()) {
      for (const auto& m : all_metrics())
        if (target || m.path.front() != "token_target")
          plan.metrics.push_back(&m);
    } else {
      for (const auto& name : sweep->metrics)
        if (std::find(plan.metrics.begin(), plan.metrics.end(), find_metric(name)) == plan.metrics.end())
          plan.metrics.push_back(find_metric(name));
    }
    plan.out = opts.out.empty() ? "out/sweep-" + fs::path(opts.scenario).stem().string() : opts.out;
    for (const auto& a : plan.axes) {
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
    return true;
  };
  if (!agreed(load()))
    return kExitBadInput;

  // Every process claims DIR on its own filesystem: shards and ranks sharing one write the same
  // bytes (each through its own temporary file); a rank with a filesystem of its own checks that its
  // DIR holds no other sweep's runs.
  std::string claim_error =
      claim_output_dir(plan.out, manifest_text(plan.base, plan.sets, varies, plan.first_seed, plan.replicas));
  if (claim_error.empty())
    claim_error = sim::write_file_atomically(plan.out, "sweep.json",
                                             [&](std::ostream& o) { o << plan_json(plan).dump(2) << '\n'; });
  if (!claim_error.empty())
    std::cerr << "fleetsim: error: " << (mpi && !speaker ? "rank " + std::to_string(mpi->rank()) + ": " : "")
              << claim_error << "\n";
  if ((mpi && !mpi->all(claim_error.empty())) || !claim_error.empty())
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
  std::string error = run_replicas(tasks, run_opts);
  std::optional<std::vector<std::vector<double>>> figures;
  if (error.empty())
    figures = collect(plan, mine, error);

  if (shard) {
    if (!error.empty()) {
      std::cerr << "fleetsim: error: " << error << "\n";
      return kExitFailure;
    }
    if (!opts.quiet)
      std::printf("%s: shard %d/%d ran its %zu of %zu replicas into %s/runs/; when every shard is done: "
                  "fleetsim sweep --merge %s\n",
                  opts.scenario.c_str(), shard->first, shard->second, mine.size(), plan.tasks(), plan.out.c_str(),
                  plan.out.c_str());
    return kExitOk;
  }
  if (!mpi) {
    if (!error.empty()) {
      std::cerr << "fleetsim: error: " << error << "\n";
      return kExitFailure;
    }
    return write_results(plan, *figures, opts.quiet);
  }

  // MPI: every rank's figures travel to rank 0 as [task, figures...] records, bit for bit.
  const bool ok = mpi->all(error.empty());
  if (!ok) {
    if (!error.empty())
      std::cerr << "fleetsim: error: rank " << mpi->rank() << ": " << error << "\n";
    return kExitFailure;
  }
  std::vector<double> packed;
  for (size_t i = 0; i < mine.size(); ++i) {
    packed.push_back(static_cast<double>(mine[i]));
    packed.insert(packed.end(), (*figures)[i].begin(), (*figures)[i].end());
  }
  const auto gathered = mpi->gather(packed);
  if (!speaker)
    return kExitOk;
  const size_t width = plan.metrics.size() + 1;
  std::vector<std::vector<double>> all(plan.tasks());
  for (const auto& from_rank : gathered)
    for (size_t at = 0; at + width <= from_rank.size(); at += width)
      all.at(static_cast<size_t>(from_rank[at])).assign(from_rank.begin() + static_cast<long>(at) + 1,
                                                       from_rank.begin() + static_cast<long>(at + width));
  return write_results(plan, all, opts.quiet);
}

}  // namespace fleetsim::cli
