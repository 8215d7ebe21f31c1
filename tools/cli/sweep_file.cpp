#include "sweep_plan.hpp"

#include "simulator/scenario/diagnostics.hpp"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>

namespace fleetsim::cli {

namespace fs = std::filesystem;

namespace {

// Where a node of the file is, as the scenario loader locates its diagnostics.
scenario::SourceLocation located(const std::string& file, const YAML::Mark& mark)
{
  return {file, mark.line + 1, mark.column + 1};
}

// One problem that stops the sweep before it starts, reported like the loader's (scenario::report).
std::nullopt_t bad_file(const std::string& path, const YAML::Mark* mark, const std::string& msg)
{
  scenario::Diagnostics d;
  d.error(mark != nullptr ? located(path, *mark) : scenario::SourceLocation{path, 0, 0}, msg);
  scenario::report(d, std::cerr);
  return std::nullopt;
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
    const std::string key = scalar_text(kv.first);
    if (key != "from" && key != "to" && key != "step" && key != "times") {
      error = "a range has from, to, and step or times, not '" + key + "'";
      return {};
    }
  }
  const auto from = field("from"), to = field("to"), step = field("step"), times = field("times");
  if (!from || !to || (!step == !times)) {
    error =
        "a range needs numbers from, to, and one of step (added) or times (multiplied), e.g. "
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

}  // namespace

namespace {

// The sweep file being read, and the problems found so far (each file:line:col).
struct Reading {
  const std::string& path;
  SweepFile s;
  scenario::Diagnostics errors;
  void error(const YAML::Node& at, const std::string& msg) { errors.error(located(path, at.Mark()), msg); }
};

// base, replicas, seed, keep.
void read_scalar_key(Reading& in, const std::string& key, const YAML::Node& v)
{
  SweepFile& s = in.s;
  if (key == "base") {
    const fs::path base = scalar_text(v);
    if (base.empty())
      in.error(v, "base: the scenario file, relative to the sweep file or absolute");
    else
      s.base = (base.is_absolute() ? base : fs::path(in.path).parent_path() / base).lexically_normal().string();
  } else if (key == "replicas") {
    int n = 0;
    if (!v.IsScalar() || !YAML::convert<int>::decode(v, n) || n < 1 || n > 1000000)
      in.error(v, "replicas: a positive number of seeds per point");
    s.replicas = n;
  } else if (key == "seed") {
    unsigned long long n = 0;
    if (!v.IsScalar() || !YAML::convert<unsigned long long>::decode(v, n))
      in.error(v, "seed: the first seed, a non-negative integer");
    s.seed = n;
  } else {  // keep
    if (scalar_text(v) != "all" && scalar_text(v) != "summary")
      in.error(v,
               "keep: all (every replica's summary.json, timeline.csv and events.csv) or summary (summary.json only)");
    s.traces = scalar_text(v) != "summary";
  }
}

void read_metrics(Reading& in, const YAML::Node& v)
{
  if (!v.IsSequence() || v.size() == 0) {
    in.error(v, "metrics: a list of metric names (" + metrics::metric_names() + ")");
    return;
  }
  for (const auto& x : v) {
    if (!x.IsScalar() || find_metric(x.Scalar()) == nullptr)
      in.error(x, "metrics: unknown metric '" + scalar_text(x) + "' (known: " + metrics::metric_names() + ")");
    else
      in.s.metrics.push_back(x.Scalar());
  }
}

// One zip group: a map whose keys' lists have one length and vary together as one axis.
void read_zip_group(Reading& in, const YAML::Node& group)
{
  Axis axis;
  if (!group.IsMap() || group.size() < 1) {
    in.error(group, "zip: each entry is a map of keys to lists");
    return;
  }
  for (const auto& e : group) {
    if (!e.first.IsScalar()) {
      in.error(e.first, "zip: keys must be dotted scenario keys");
      return;
    }
    std::vector<std::string> values;
    if (e.second.IsSequence())
      for (const auto& x : e.second)
        if (x.IsScalar())
          values.push_back(x.Scalar());
    const std::string k = e.first.Scalar();
    if (values.empty() || values.size() != e.second.size() ||
        (!axis.key.empty() && values.size() != axis.values.size())) {
      in.error(e.second, "zip: " + k + " needs a list as long as the others in its group");
      return;
    }
    if (axis.key.empty()) {
      axis.key = k;
      axis.values = std::move(values);
    } else {
      axis.zipped.emplace_back(k, std::move(values));
    }
  }
  in.s.axes.push_back(std::move(axis));
}

void read_zip(Reading& in, const YAML::Node& v)
{
  if (!v.IsSequence()) {
    in.error(v,
             "zip: a list of maps of equally long lists, e.g. - {cluster.gpus: [1024, 2048], parallelism.dp: [8, 16]}");
    return;
  }
  for (const auto& group : v)
    read_zip_group(in, group);
}

// One axis of vary: a list of values, or a range.
void read_vary_axis(Reading& in, const std::string& k, const YAML::Node& v)
{
  Axis axis{k, {}, {}};
  if (v.IsMap()) {
    std::string error;
    axis.values = range_values(v, error);
    if (!error.empty()) {
      in.error(v, "vary: " + k + ": " + error);
      return;
    }
  }
  if (v.IsSequence())
    for (const auto& x : v)
      if (x.IsScalar())
        axis.values.push_back(x.Scalar());
  if (axis.values.empty() || (v.IsSequence() && axis.values.size() != v.size()))
    in.error(
        v, "vary: " + k + " needs a list of values, e.g. [8, 16], or a range, e.g. {from: 1024, to: 65536, times: 2}");
  else
    in.s.axes.push_back(std::move(axis));
}

void read_set_or_vary(Reading& in, const std::string& key, const YAML::Node& v)
{
  if (!v.IsMap()) {
    in.error(v, key + ": a map from dotted scenario keys to " + (key == "set" ? "values" : "lists of values"));
    return;
  }
  for (const auto& e : v) {
    if (!e.first.IsScalar()) {
      in.error(e.first, key + ": keys must be dotted scenario keys");
      continue;
    }
    const std::string k = e.first.Scalar();
    if (key == "vary")
      read_vary_axis(in, k, e.second);
    else if (!e.second.IsScalar())
      in.error(e.second, "set: " + k + " needs one value");
    else
      in.s.sets.push_back(k + "=" + e.second.Scalar());
  }
}

// Axis values name directories (runs/<key>=<value>,...) and fill CSV cells unquoted.
void check_axis_values(Reading& in)
{
  for (const auto& a : in.s.axes) {
    std::vector<std::pair<std::string, const std::vector<std::string>*>> keys = {{a.key, &a.values}};
    for (const auto& [k, v] : a.zipped)
      keys.emplace_back(k, &v);
    for (const auto& [k, values] : keys)
      for (const auto& v : *values)
        if (v.find_first_of(",\"/=\n\r") != std::string::npos)
          in.errors.error({in.path, 0, 0}, k + ": the value '" + v +
                                               "' holds one of , \" / = or a line break, which would break run "
                                               "directory names and CSV cells");
  }
}

std::optional<SweepFile> read_sweep_unguarded(const std::string& path)
{
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    return bad_file(path, nullptr, "cannot open the sweep file");
  } catch (const YAML::Exception& e) {
    return bad_file(path, &e.mark, e.msg);
  }
  if (!root.IsMap())
    return bad_file(path, nullptr, "a sweep file is a map with base, replicas and vary");
  Reading in{path, {}, {}};
  for (const auto& kv : root) {
    if (!kv.first.IsScalar()) {
      in.error(kv.first, "keys must be plain names");
      continue;
    }
    const std::string key = kv.first.Scalar();
    if (key == "base" || key == "replicas" || key == "seed" || key == "keep")
      read_scalar_key(in, key, kv.second);
    else if (key == "metrics")
      read_metrics(in, kv.second);
    else if (key == "zip")
      read_zip(in, kv.second);
    else if (key == "set" || key == "vary")
      read_set_or_vary(in, key, kv.second);
    else
      in.error(kv.first,
               "unknown key '" + key + "' (a sweep file has base, replicas, seed, set, vary, zip, metrics, keep)");
  }
  check_axis_values(in);
  if (in.s.base.empty() && in.errors.empty())
    in.errors.error({path, 0, 0}, "the sweep file needs base: (the scenario)");
  scenario::report(in.errors, std::cerr);
  if (!in.errors.empty())
    return std::nullopt;
  return std::move(in.s);
}

}  // namespace

std::optional<SweepFile> read_sweep(const std::string& path)
{
  // Every node is checked before it is converted; this only keeps a missed case a diagnostic.
  try {
    return read_sweep_unguarded(path);
  } catch (const YAML::Exception& e) {
    return bad_file(path, &e.mark, e.msg);
  }
}

}  // namespace fleetsim::cli
