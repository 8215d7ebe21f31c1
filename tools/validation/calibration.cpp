#include "calibration.hpp"

#include "simulator/scenario/parameter_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fleetsim::validation {
namespace {

bool parse_value(const std::string& text, const std::optional<units::Dimension>& dim, double& out, std::string& error)
{
  if (dim) {
    const auto r = units::parse_quantity(text, *dim);
    if (!r.ok()) {
      error = r.error;
      return false;
    }
    out = r.value;
    return true;
  }
  try {
    size_t used = 0;
    out = std::stod(text, &used);
    if (used == text.size() && std::isfinite(out))
      return true;
  } catch (const std::exception&) {
  }
  error = "'" + text + "' is not a number";
  return false;
}

std::vector<std::string> split_lines(const std::string& text)
{
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

}  // namespace

std::optional<FreeParameter> parse_free_parameter(const std::string& text, std::string& error)
{
  const size_t eq = text.find('=');
  const size_t colon = text.find(':', eq == std::string::npos ? 0 : eq);
  if (eq == std::string::npos || colon == std::string::npos) {
    error = "--fit expects KEY=LOW:HIGH, got '" + text + "'";
    return std::nullopt;
  }
  FreeParameter p;
  p.key = text.substr(0, eq);
  const scenario::ParamSpec* spec = scenario::find_param(p.key);
  if (spec == nullptr || (spec->kind != scenario::Kind::Float && spec->kind != scenario::Kind::Quantity)) {
    error = "--fit " + p.key + ": not a numeric scenario key";
    return std::nullopt;
  }
  if (spec->kind == scenario::Kind::Quantity)
    p.dimension = spec->dimension;
  std::string why;
  if (!parse_value(text.substr(eq + 1, colon - eq - 1), p.dimension, p.low, why) ||
      !parse_value(text.substr(colon + 1), p.dimension, p.high, why)) {
    error = "--fit " + p.key + ": " + why;
    return std::nullopt;
  }
  if (!(p.low < p.high) || (spec->min && p.low < *spec->min) || (spec->max && p.high > *spec->max)) {
    error = "--fit " + p.key + ": the bounds must be increasing and inside the key's range";
    return std::nullopt;
  }
  return p;
}

std::string parameter_text(const FreeParameter& p, double si)
{
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", si);
  return p.dimension ? units::format_quantity(std::stod(buf), *p.dimension) : std::string(buf);
}

double rounded(const FreeParameter& p, double si)
{
  double v = 0;
  std::string error;
  return parse_value(parameter_text(p, si), p.dimension, v, error) ? v : si;
}

std::vector<double> fit_parameters(const std::vector<FreeParameter>& params, std::vector<double> start,
                                   const std::function<double(const std::vector<double>&)>& objective, int sweeps,
                                   int steps)
{
  const double phi = (std::sqrt(5.0) - 1) / 2;
  std::vector<double> x = std::move(start);
  x.resize(params.size());
  for (size_t i = 0; i < params.size(); ++i)
    x[i] = std::clamp(x[i], params[i].low, params[i].high);
  std::vector<double> best = x;
  double best_f = objective(x);
  for (int sweep = 0; sweep < sweeps; ++sweep)
    for (size_t i = 0; i < params.size(); ++i) {
      double a = params[i].low;
      double b = params[i].high;
      auto at = [&](double v) {
        std::vector<double> y = best;
        y[i] = v;
        const double f = objective(y);
        if (f < best_f) {
          best_f = f;
          best = y;
        }
        return f;
      };
      double c = b - phi * (b - a);
      double d = a + phi * (b - a);
      double fc = at(c);
      double fd = at(d);
      for (int k = 0; k < steps; ++k) {
        if (fc <= fd) {
          b = d;
          d = c;
          fd = fc;
          c = b - phi * (b - a);
          fc = at(c);
        } else {
          a = c;
          c = d;
          fc = fd;
          d = a + phi * (b - a);
          fd = at(d);
        }
      }
    }
  return best;
}

std::string rewrite_hardware_text(const std::string& text, const std::vector<LineUpdate>& updates,
                                  const std::vector<std::string>& provenance, std::string& error)
{
  std::vector<std::string> lines = split_lines(text);
  for (const LineUpdate& u : updates) {
    if (u.line < 1 || static_cast<size_t>(u.line) > lines.size()) {
      error = "line " + std::to_string(u.line) + " is not in the file";
      return "";
    }
    std::string& line = lines[static_cast<size_t>(u.line - 1)];
    const size_t colon = line.find(':');
    if (colon == std::string::npos || line.find_first_not_of(' ') == colon) {
      error = "line " + std::to_string(u.line) + " does not hold a key: value";
      return "";
    }
    line = line.substr(0, colon) + ": " + u.value + (u.comment.empty() ? "" : "  # " + u.comment);
  }
  auto is_marker = [](const std::string& l, const char* m) { return l.rfind(m, 0) == 0; };
  const auto begin = std::find_if(lines.begin(), lines.end(), [&](const auto& l) { return is_marker(l, "# --- calibration"); });
  std::vector<std::string> block{"# --- calibration (written by `fleetsim calibrate`; do not edit by hand)"};
  for (const std::string& p : provenance)
    block.push_back("# " + p);
  block.emplace_back("# --- end calibration");
  if (begin != lines.end()) {
    const auto end = std::find_if(begin, lines.end(), [&](const auto& l) { return is_marker(l, "# --- end calibration"); });
    const auto at = lines.erase(begin, end == lines.end() ? end : end + 1);
    lines.insert(at, block.begin(), block.end());
  } else {
    const auto first = std::find_if(lines.begin(), lines.end(), [](const auto& l) { return !l.empty() && l[0] != '#'; });
    const auto at = lines.insert(first, "");
    lines.insert(at, block.begin(), block.end());
  }
  std::string out;
  for (const std::string& l : lines)
    out += l + "\n";
  return out;
}

std::vector<std::string> fitted_cases(const std::string& hardware_text)
{
  std::vector<std::string> ids;
  bool in_block = false;
  for (const std::string& line : split_lines(hardware_text)) {
    if (line.rfind("# --- calibration", 0) == 0)
      in_block = true;
    else if (line.rfind("# --- end calibration", 0) == 0)
      in_block = false;
    else if (in_block && line.rfind("#   ", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos)
        ids.push_back(line.substr(4, colon - 4));
    }
  }
  return ids;
}

std::vector<std::string> calibration_problems(const CaseList& list, const std::string& hardware_dir)
{
  namespace fs = std::filesystem;
  std::vector<std::string> problems;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(hardware_dir))
    if (entry.path().extension() == ".yaml")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    const std::vector<std::string> ids = fitted_cases(text.str());
    if (ids.empty() && text.str().find("# FITTED") != std::string::npos)
      problems.push_back(file.filename().string() + " marks a value FITTED but names no calibration case");
    for (const std::string& id : ids) {
      const auto c = std::find_if(list.cases.begin(), list.cases.end(), [&](const auto& k) { return k.id == id; });
      if (c == list.cases.end())
        problems.push_back(file.filename().string() + " was fitted on '" + id + "', which is not a case of " + list.file);
      else if (c->role != Role::Calibration)
        problems.push_back(file.filename().string() + " was fitted on '" + id +
                           "', a validation case: only 'role: calibration' cases may be fitted to");
    }
  }
  return problems;
}

}  // namespace fleetsim::validation
