#include "report_inputs.hpp"

#include "simulator/metrics/metric_registry.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

namespace fleetsim::report {
namespace {

std::vector<std::string> split(const std::string& line)
{
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    out.push_back(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos)
      return out;
    start = comma + 1;
  }
}

// The value at a dotted path, or nullptr when a step is missing.
const nlohmann::ordered_json* find_path(const nlohmann::ordered_json& j, const std::string& path)
{
  const nlohmann::ordered_json* at = &j;
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = path.find('.', start);
    const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!at->is_object() || !at->contains(key))
      return nullptr;
    at = &(*at)[key];
    if (dot == std::string::npos)
      return at;
    start = dot + 1;
  }
}

}  // namespace

std::string read_text(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError(path + ": error: cannot read the file");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

CsvTable CsvTable::read(const std::string& path) { return parse(read_text(path), path); }

CsvTable CsvTable::parse(const std::string& text, const std::string& name)
{
  CsvTable t;
  t.name_ = name;
  std::stringstream ss(text);
  std::string line;
  std::size_t line_no = 0;
  while (std::getline(ss, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (line_no == 1) {
      t.header_ = split(line);
      if (line.empty())
        throw InputError(name + ":1: error: the header line is empty");
      continue;
    }
    if (line.empty())
      continue;
    auto cells = split(line);
    if (cells.size() != t.header_.size())
      throw InputError(name + ":" + std::to_string(line_no) + ": error: " + std::to_string(cells.size()) +
                       " cells where the header has " + std::to_string(t.header_.size()));
    t.rows_.push_back(std::move(cells));
  }
  if (line_no == 0)
    throw InputError(name + ": error: the file is empty (a header line was expected)");
  return t;
}

bool CsvTable::has_column(const std::string& name) const
{
  for (const auto& h : header_)
    if (h == name)
      return true;
  return false;
}

std::size_t CsvTable::column(const std::string& name) const
{
  for (std::size_t i = 0; i < header_.size(); ++i)
    if (header_[i] == name)
      return i;
  throw InputError(name_ + ":1: error: no column '" + name + "' in the header");
}

double CsvTable::number(std::size_t row, std::size_t col) const
{
  const std::string& s = rows_.at(row).at(col);
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v))
    throw InputError(name_ + ":" + std::to_string(row + 2) + ": error: column '" + header_[col] +
                     "' is not a number: '" + s + "'");
  return v;
}

nlohmann::ordered_json read_json(const std::string& path)
{
  const std::string text = read_text(path);
  try {
    return nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path + ": error: not valid JSON: " + e.what());
  }
}

double json_number(const nlohmann::ordered_json& j, const std::string& key, const std::string& what)
{
  if (!j.is_object() || !j.contains(key) || !j[key].is_number())
    throw InputError(what + ": error: '" + key + "' is missing or not a number");
  return j[key].get<double>();
}

double json_number_at(const nlohmann::ordered_json& j, const std::string& path, const std::string& what)
{
  const nlohmann::ordered_json* v = find_path(j, path);
  if (v == nullptr || !v->is_number())
    throw InputError(what + ": error: '" + path + "' is missing or not a number");
  return v->get<double>();
}

double metric_at(const nlohmann::ordered_json& j, std::string_view metric, const std::string& what)
{
  const metrics::MetricField f = metrics::metric_field(metric);
  return json_number_at(j, f.path, what) * f.scale;
}

std::string json_string_at(const nlohmann::ordered_json& j, const std::string& path, const std::string& fallback)
{
  const nlohmann::ordered_json* v = find_path(j, path);
  return v != nullptr && v->is_string() ? v->get<std::string>() : fallback;
}

std::vector<std::pair<std::string, double>> json_numbers(const nlohmann::ordered_json& j, const std::string& key,
                                                         const std::string& what)
{
  if (!j.is_object() || !j.contains(key) || !j[key].is_object())
    throw InputError(what + ": error: '" + key + "' is missing or not an object");
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [k, v] : j[key].items()) {
    if (!v.is_number())
      throw InputError(what + ": error: '" + key + "." + k + "' is not a number");
    out.emplace_back(k, v.get<double>());
  }
  return out;
}

}  // namespace fleetsim::report
