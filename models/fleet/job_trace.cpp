#include "job_trace.hpp"

#include "models/core/csv_reader.hpp"
#include "models/core/date_time.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <unordered_map>

namespace fleetsim::models::fleet {
namespace {

enum Field : size_t { kId, kUser, kSubmit, kStart, kEnd, kDuration, kGpus, kNodes, kState, kPriority, kFieldCount };

constexpr size_t kMaxErrors = 20;
// The largest time or duration a trace may give, in seconds (about 32 million years), so that every
// difference and sum of two of them (end - start, submit - first submit, submit + work) is finite.
// A product number x time_unit, or a huge number in a cell, would otherwise reach infinity.
constexpr double kMaxSeconds = 1e15;

using Columns = std::array<std::string, kFieldCount>;  // column name of each field; "" = not mapped
using Indices = std::array<int, kFieldCount>;          // its cell index in a row; -1 = not mapped

struct Preset {
  std::string_view name;
  std::array<std::string_view, kFieldCount> columns;  // in Field order
};

// Sources in job_trace.hpp.
const std::array<Preset, 3> kPresets = {{
    {"acme",
     {"job_id", "user", "submit_time", "start_time", "end_time", "duration", "gpu_num", "node_num", "state", ""}},
    {"helios",
     {"job_id", "user", "submit_time", "start_time", "end_time", "duration", "gpu_num", "node_num", "state", ""}},
    {"philly", {"", "user", "submit_time", "start_time", "end_time", "duration", "gpu_num", "", "state", ""}},
}};

const Preset* find_preset(std::string_view name)
{
  for (const auto& p : kPresets)
    if (p.name == name)
      return &p;
  return nullptr;
}

std::string join(const std::vector<std::string>& words)
{
  std::string out;
  for (const auto& w : words)
    out += (out.empty() ? "" : ", ") + w;
  return out;
}

bool equal_ignoring_case(std::string_view a, std::string_view b)
{
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [&](char x, char y) { return lower(x) == lower(y); });
}

/// A number written in full (from_chars: no locale), or nullopt.
std::optional<double> parse_number(std::string_view text)
{
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    return std::nullopt;
  return value;
}

// Collects "<name>:<line>: error: ..." messages, keeping the first kMaxErrors.
class ErrorList {
public:
  explicit ErrorList(std::string_view name) : name_(name) {}
  void at(long line, const std::string& message) { add(name_ + ":" + std::to_string(line) + ": error: " + message); }
  void general(const std::string& message) { add(name_ + ": error: " + message); }
  [[nodiscard]] long count() const { return count_; }
  std::vector<std::string> finish()
  {
    if (count_ > static_cast<long>(kMaxErrors))
      messages_.push_back(name_ + ": error: " + std::to_string(count_ - static_cast<long>(kMaxErrors)) +
                          " more errors");
    return std::move(messages_);
  }

private:
  void add(std::string message)
  {
    if (count_++ < static_cast<long>(kMaxErrors))
      messages_.push_back(std::move(message));
  }
  std::string name_;
  std::vector<std::string> messages_;
  long count_ = 0;
};

std::optional<Columns> resolve_mapping(const TraceOptions& options, ErrorList& errors)
{
  Columns columns;
  if (!options.preset.empty()) {
    const Preset* preset = find_preset(options.preset);
    if (!preset) {
      errors.general("unknown trace preset '" + options.preset + "' (presets: " + join(trace_preset_names()) + ")");
      return std::nullopt;
    }
    for (size_t f = 0; f < kFieldCount; ++f)
      columns[f] = preset->columns[f];
  }
  const auto& fields = trace_field_names();
  bool ok = true;
  for (const auto& [field, column] : options.columns) {
    const auto it = std::find(fields.begin(), fields.end(), field);
    if (it == fields.end()) {
      errors.general("unknown trace field '" + field + "' in the column mapping (fields: " + join(fields) + ")");
      ok = false;
      continue;
    }
    columns[static_cast<size_t>(it - fields.begin())] = column;
  }
  return ok ? std::optional(columns) : std::nullopt;
}

bool check_requirements(const Columns& c, const TraceOptions& options, ErrorList& errors)
{
  const long before = errors.count();
  if (c[kSubmit].empty())
    errors.general("the column mapping has no column for field 'submit'");
  if (c[kGpus].empty() && c[kNodes].empty())
    errors.general("the column mapping has no column for field 'gpus' (nor 'nodes')");
  else if (c[kGpus].empty() && options.gpus_per_node <= 0)
    errors.general("field 'nodes' without 'gpus' needs gpus_per_node > 0");
  if (c[kDuration].empty() && (c[kStart].empty() || c[kEnd].empty()))
    errors.general("the column mapping needs a column for field 'duration', or for both 'start' and 'end'");
  if (!options.keep_states.empty() && c[kState].empty())
    errors.general("keep_states needs a column for field 'state'");
  if (!(options.time_unit.si() > 0) || !std::isfinite(options.time_unit.si()))
    errors.general("time_unit must be a positive number of seconds");
  return errors.count() == before;
}

bool locate_columns(const CsvRecord& header, const Columns& columns, ErrorList& errors, Indices& index)
{
  bool ok = true;
  for (size_t f = 0; f < kFieldCount; ++f) {
    index[f] = -1;
    if (columns[f].empty())
      continue;
    const auto it = std::find(header.cells.begin(), header.cells.end(), columns[f]);
    if (it != header.cells.end()) {
      index[f] = static_cast<int>(it - header.cells.begin());
      continue;
    }
    errors.at(header.line, "column '" + columns[f] + "' (field '" + trace_field_names()[f] +
                               "') is not in the header; its columns are: " + join(header.cells));
    ok = false;
  }
  return ok;
}

// One data row and the means to read its mapped cells, each failure reported against its line.
class Row {
public:
  Row(const CsvRecord& record, const Columns& columns, const Indices& index, ErrorList& errors)
      : record_(record), columns_(columns), index_(index), errors_(errors)
  {}

  [[nodiscard]] long line() const { return record_.line; }
  [[nodiscard]] bool mapped(size_t f) const { return index_[f] >= 0; }
  [[nodiscard]] std::string_view cell(size_t f) const
  {
    return mapped(f) ? std::string_view(record_.cells[static_cast<size_t>(index_[f])]) : std::string_view();
  }
  void error(const std::string& message) const { errors_.at(record_.line, message); }
  [[nodiscard]] std::string where(size_t f) const
  {
    return "'" + std::string(cell(f)) + "' in column '" + columns_[f] + "'";
  }

  /// False (reported, naming the first missing column) when the row is too short for the mapping.
  [[nodiscard]] bool complete() const
  {
    const int cells = static_cast<int>(record_.cells.size());
    size_t missing = kFieldCount;
    for (size_t f = 0; f < kFieldCount; ++f)
      if (index_[f] >= cells && (missing == kFieldCount || index_[f] < index_[missing]))
        missing = f;
    if (missing == kFieldCount)
      return true;
    error("the row has " + std::to_string(cells) + " cells but column '" + columns_[missing] + "' is cell " +
          std::to_string(index_[missing] + 1));
    return false;
  }

  bool nonempty(size_t f) const
  {
    if (!cell(f).empty())
      return true;
    error("empty cell in column '" + columns_[f] + "'");
    return false;
  }

  /// A whole number.
  bool count(size_t f, long& out) const
  {
    if (!nonempty(f))
      return false;
    const auto v = parse_number(cell(f));
    if (!v || !std::isfinite(*v) || std::abs(*v) > 1e15) {
      error("bad number " + where(f));
      return false;
    }
    if (*v != std::floor(*v)) {
      error("not a whole number: " + where(f));
      return false;
    }
    out = static_cast<long>(*v);
    return true;
  }

  /// Seconds: a number times `unit`, or an ISO 8601 date-time.
  bool time(size_t f, double unit, double& out) const
  {
    if (!nonempty(f))
      return false;
    if (const auto v = parse_number(cell(f))) {
      if (!std::isfinite(*v)) {
        error("time is not a finite number: " + where(f));
        return false;
      }
      out = *v * unit;
      return in_range(f, out);
    }
    if (const auto t = parse_date_time(cell(f))) {
      out = *t;
      return in_range(f, out);
    }
    error("bad time " + where(f) + " (expected a number or an ISO 8601 date-time such as 2023-05-01T08:00:00Z)");
    return false;
  }

  bool duration(double unit, double& out) const
  {
    if (!nonempty(kDuration))
      return false;
    const auto v = parse_number(cell(kDuration));
    if (!v) {
      error("bad duration " + where(kDuration) + " (expected a number)");
      return false;
    }
    if (!std::isfinite(*v) || *v < 0) {
      error("duration must be finite and >= 0: " + where(kDuration));
      return false;
    }
    out = *v * unit;
    return in_range(kDuration, out);
  }

  /// Seconds within +-kMaxSeconds (reported otherwise).
  bool in_range(size_t f, double seconds) const
  {
    if (std::fabs(seconds) <= kMaxSeconds)
      return true;
    char text[32];
    std::snprintf(text, sizeof text, "%g", seconds);
    error("time out of range: " + where(f) + " is " + text + " s; a trace's times and durations lie within +-1e15 s");
    return false;
  }

private:
  const CsvRecord& record_;
  const Columns& columns_;
  const Indices& index_;
  ErrorList& errors_;
};

bool read_gpus(const Row& row, long gpus_per_node, long& gpus)
{
  const size_t f = row.mapped(kGpus) ? kGpus : kNodes;
  if (!row.count(f, gpus))
    return false;
  if (gpus < 0) {
    row.error(std::string(f == kGpus ? "negative GPU count " : "negative node count ") + row.where(f));
    return false;
  }
  if (f == kNodes)
    gpus *= gpus_per_node;
  return true;
}

// work = duration (with end >= start checked when both are there) or end - start.
bool read_work(const Row& row, double unit, double& work)
{
  const bool from_times = !row.mapped(kDuration);
  bool ok = true;
  if (!from_times) {
    ok = row.duration(unit, work);
    if (row.cell(kStart).empty() || row.cell(kEnd).empty())
      return ok;
  }
  double start = 0;
  double end = 0;
  ok = row.time(kStart, unit, start) && ok;
  ok = row.time(kEnd, unit, end) && ok;
  if (!ok)
    return false;
  if (end < start) {
    row.error("end is before start: " + row.where(kEnd) + ", " + row.where(kStart));
    return false;
  }
  if (from_times)
    work = end - start;
  return true;
}

enum class RowResult { Job, NoGpu, OtherState, Error };

RowResult convert_row(const Row& row, std::string_view name, const TraceOptions& options, JobSpec& job)
{
  if (!row.complete())
    return RowResult::Error;
  long gpus = 0;
  if (!read_gpus(row, options.gpus_per_node, gpus))
    return RowResult::Error;
  if (gpus == 0)
    return RowResult::NoGpu;
  if (!options.keep_states.empty() &&
      std::none_of(options.keep_states.begin(), options.keep_states.end(),
                   [&](const std::string& s) { return equal_ignoring_case(s, row.cell(kState)); }))
    return RowResult::OtherState;

  job = options.defaults;
  job.gpus = gpus;
  const double unit = options.time_unit.si();
  bool ok = row.time(kSubmit, unit, job.submit);
  ok = read_work(row, unit, job.work) && ok;
  if (row.mapped(kPriority) && !row.cell(kPriority).empty()) {
    long priority = 0;
    if (!row.count(kPriority, priority)) {
      ok = false;
    } else if (std::abs(priority) > std::numeric_limits<int>::max()) {
      row.error("priority out of range: " + row.where(kPriority));
      ok = false;
    } else {
      job.priority = static_cast<int>(priority);
    }
  }
  if (row.mapped(kId))
    ok = row.nonempty(kId) && ok;
  job.id = row.mapped(kId) ? std::string(row.cell(kId)) : "line-" + std::to_string(row.line());
  job.user = std::string(row.cell(kUser));
  job.origin = std::string(name) + ":" + std::to_string(row.line());
  return ok ? RowResult::Job : RowResult::Error;
}

// Reads the rows after the header; returns the jobs in file order.
Workload read_rows(CsvReader& reader, const Columns& columns, const Indices& index, std::string_view name,
                   const TraceOptions& options, ErrorList& errors, TraceLoad& load)
{
  Workload jobs;
  std::unordered_map<std::string, long> first_line;  // job id -> line
  CsvRecord record;
  std::string message;
  for (;;) {
    const auto status = reader.next(record, message);
    if (status == CsvReader::Status::End)
      break;
    if (status == CsvReader::Status::Error) {
      errors.at(record.line, message);
      continue;
    }
    const Row row(record, columns, index, errors);
    JobSpec job;
    switch (convert_row(row, name, options, job)) {
      case RowResult::NoGpu: ++load.skipped_no_gpu; continue;
      case RowResult::OtherState: ++load.skipped_state; continue;
      case RowResult::Error: continue;
      case RowResult::Job: break;
    }
    const auto [it, fresh] = first_line.emplace(job.id, record.line);
    if (!fresh) {
      row.error("duplicate job id " + row.where(kId) + " (first on line " + std::to_string(it->second) + ")");
      continue;
    }
    jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace

const std::vector<std::string>& trace_field_names()
{
  static const std::vector<std::string> names = {"id",       "user", "submit", "start", "end",
                                                 "duration", "gpus", "nodes",  "state", "priority"};
  return names;
}

std::vector<std::string> trace_preset_names()
{
  std::vector<std::string> names;
  for (const auto& p : kPresets)
    names.emplace_back(p.name);
  return names;
}

std::optional<ColumnMapping> trace_preset(std::string_view name)
{
  const Preset* preset = find_preset(name);
  if (!preset)
    return std::nullopt;
  ColumnMapping mapping;
  for (size_t f = 0; f < kFieldCount; ++f)
    if (!preset->columns[f].empty())
      mapping[trace_field_names()[f]] = std::string(preset->columns[f]);
  return mapping;
}

TraceLoad load_trace_text(std::string_view text, std::string_view name, const TraceOptions& options)
{
  TraceLoad load;
  ErrorList errors(name);
  const auto columns = resolve_mapping(options, errors);
  if (!columns || !check_requirements(*columns, options, errors)) {
    load.errors = errors.finish();
    return load;
  }
  CsvReader reader(text);
  CsvRecord header;
  std::string message;
  const auto status = reader.next(header, message);
  Indices index{};
  if (status == CsvReader::Status::End)
    errors.at(1, "the file is empty: no header row");
  else if (status == CsvReader::Status::Error)
    errors.at(header.line, message + " in the header row");
  else if (locate_columns(header, *columns, errors, index))
    load.jobs = read_rows(reader, *columns, index, name, options, errors, load);

  load.errors = errors.finish();
  if (!load.errors.empty()) {
    load.jobs.clear();
    return load;
  }
  if (!load.jobs.empty()) {
    const double first = std::min_element(load.jobs.begin(), load.jobs.end(), [](const auto& a, const auto& b) {
                           return a.submit < b.submit;
                         })->submit;
    for (auto& job : load.jobs)
      job.submit -= first;
    std::stable_sort(load.jobs.begin(), load.jobs.end(),
                     [](const auto& a, const auto& b) { return a.submit < b.submit; });
  }
  return load;
}

TraceLoad load_trace(const TraceOptions& options)
{
  std::ifstream in(options.path, std::ios::binary);
  if (!in) {
    TraceLoad load;
    load.errors.push_back(options.path + ": error: cannot open the file");
    return load;
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    TraceLoad load;
    load.errors.push_back(options.path + ": error: cannot read the file");
    return load;
  }
  return load_trace_text(text.str(), options.path, options);
}

}  // namespace fleetsim::models::fleet
