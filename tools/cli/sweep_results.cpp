#include "sweep_plan.hpp"

#include "commands.hpp"

#include "simulator/logging/logging.hpp"

#include "models/core/statistics.hpp"
#include "models/summary/run_summary_fields.hpp"
#include "simulator/output/run_outputs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace fleetsim::cli {

namespace {

namespace fs = std::filesystem;

std::string number(double v)
{
  if (std::isnan(v))
    return "";  // no value: an empty cell
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

}  // namespace

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
  return {{"sweep_file", p.sweep_file}, {"base", p.base},  {"set", p.sets}, {"axes", axes}, {"replicas", p.replicas},
          {"first_seed", p.first_seed}, {"metrics", names}};
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

namespace {

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

}  // namespace

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
  FLEETSIM_LOG(Sweep, info, "{}: {} points x {} replicas, {} metrics -> {}/results.csv", p.sweep_file, p.points.size(),
               p.replicas, p.metrics.size(), p.out);
  if (!quiet) {
    std::printf("%s: %zu points x %d replicas (seeds %llu..%llu)\n", p.sweep_file.c_str(), p.points.size(), p.replicas,
                static_cast<unsigned long long>(p.first_seed),
                static_cast<unsigned long long>(p.first_seed + static_cast<std::uint64_t>(p.replicas) - 1));
    const size_t shown = static_cast<size_t>(
        std::find(ms.begin(), ms.end(), find_metric(models::summary::run::kEttr.key)) - ms.begin());
    std::printf("  %-44s %8s %9s %8s %8s\n", "point", shown < ms.size() ? "ETTR" : ms[0]->name.c_str(), "95% CI", "p5",
                "p95");
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

}  // namespace fleetsim::cli
