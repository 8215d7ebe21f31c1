#include "kernel_tables.hpp"

#include "models/core/csv_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>

namespace fleetsim::models {
namespace {

constexpr double kShepardPower = 4;

/// Comment lines ('#' first) blanked, so that the CSV reader skips them and line numbers stay.
std::string without_comments(std::string_view text)
{
  std::string out(text);
  bool line_start = true;
  bool in_comment = false;
  for (char& c : out) {
    if (c == '\n') {
      line_start = true;
      in_comment = false;
      continue;
    }
    if (line_start && c == '#')
      in_comment = true;
    if (in_comment && c != '\r')
      c = ' ';
    line_start = false;
  }
  return out;
}

std::optional<double> number(std::string_view cell)
{
  double v = 0;
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  if (cell.empty() || ec != std::errc() || end != cell.data() + cell.size() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

class Errors {
public:
  explicit Errors(std::string_view name) : name_(name) {}
  void at(long line, const std::string& msg)
  {
    if (out_.size() < 20)
      out_.push_back(name_ + ":" + std::to_string(line) + ": error: " + msg);
    ++count_;
  }
  [[nodiscard]] bool none() const { return count_ == 0; }
  std::vector<std::string> finish()
  {
    if (count_ > out_.size())
      out_.push_back(name_ + ": error: " + std::to_string(count_ - out_.size()) + " more errors");
    return std::move(out_);
  }

private:
  std::string name_;
  std::vector<std::string> out_;
  size_t count_ = 0;
};

/// Reads the header and every row of `text`, checking the header against `columns`; calls
/// `row(record)` for each well-formed row of the right width.
template <typename Row>
void read_csv(std::string_view text, const std::vector<std::string>& columns, Errors& errors, Row&& row)
{
  const std::string clean = without_comments(text);
  fleet::CsvReader reader(clean);
  fleet::CsvRecord record;
  std::string message;
  auto status = reader.next(record, message);
  if (status == fleet::CsvReader::Status::End) {
    errors.at(1, "the file is empty: no header row");
    return;
  }
  if (status == fleet::CsvReader::Status::Error || record.cells != columns) {
    std::string want;
    for (const std::string& c : columns)
      want += (want.empty() ? "" : ",") + c;
    errors.at(record.line, "the header row must be " + want);
    return;
  }
  while ((status = reader.next(record, message)) != fleet::CsvReader::Status::End) {
    if (status == fleet::CsvReader::Status::Error)
      errors.at(record.line, message);
    else if (record.cells.size() != columns.size())
      errors.at(record.line, "expected " + std::to_string(columns.size()) + " cells, got " +
                                 std::to_string(record.cells.size()));
    else
      row(record);
  }
}

/// A table is returned only without errors, and an empty one is an error.
template <typename Load>
void finish(Load& load, Errors& errors)
{
  if (load.table.rows.empty() && errors.none())
    errors.at(1, "the table has no rows");
  load.errors = errors.finish();
  if (!load.errors.empty())
    load.table.rows.clear();
}

/// Cell `i` of `rec` into `out` when it is a number that `valid` accepts; else an error at the row's
/// line naming the column and `expected` ("a number of at least 1"), and false.
template <typename Valid>
bool read_cell(const fleet::CsvRecord& rec, const std::vector<std::string>& columns, size_t i, Valid&& valid,
               const char* expected, double& out, Errors& errors)
{
  const auto v = number(rec.cells[i]);
  if (!v || !valid(*v)) {
    errors.at(rec.line, columns[i] + " must be " + expected + " (got '" + rec.cells[i] + "')");
    return false;
  }
  out = *v;
  return true;
}

/// The row's source cell names where it comes from.
bool has_source(const fleet::CsvRecord& rec, Errors& errors)
{
  if (!rec.cells.back().empty())
    return true;
  errors.at(rec.line, "source must name where the row comes from");
  return false;
}

double lerp_log2(double x, double x0, double y0, double x1, double y1)
{
  if (x1 == x0)
    return y0;
  const double t = (std::log2(x) - std::log2(x0)) / (std::log2(x1) - std::log2(x0));
  return y0 + t * (y1 - y0);
}

/// Piecewise linear in log2(x) through the sorted (x, y) points, the end values beyond them.
double interpolate(const std::vector<std::pair<double, double>>& points, double x)
{
  if (x <= points.front().first)
    return points.front().second;
  if (x >= points.back().first)
    return points.back().second;
  const auto hi = std::upper_bound(points.begin(), points.end(), x,
                                   [](double v, const std::pair<double, double>& p) { return v < p.first; });
  const auto lo = hi - 1;
  return lerp_log2(x, lo->first, lo->second, hi->first, hi->second);
}

}  // namespace

double GemmTable::efficiency(GemmPass pass, double m, double k, double n) const
{
  const auto p = static_cast<size_t>(pass);
  double weights = 0;
  double sum = 0;
  double exact_sum = 0;
  int exact = 0;
  for (const GemmMeasurement& r : rows) {
    const double e = r.efficiency[p];
    if (!(e > 0))
      continue;
    const double dm = std::log2(m / r.m);
    const double dk = std::log2(k / r.k);
    const double dn = std::log2(n / r.n);
    const double d2 = dm * dm + dk * dk + dn * dn;
    if (d2 < 1e-18) {
      exact_sum += e;
      ++exact;
      continue;
    }
    const double w = 1.0 / std::pow(d2, kShepardPower / 2);
    weights += w;
    sum += w * e;
  }
  if (exact > 0)
    return scale * exact_sum / exact;
  return weights > 0 ? scale * sum / weights : 0.0;
}

double attention_forward_flops(double sequences_x_heads, double seq, double head_dim, bool causal)
{
  const double full = 4.0 * seq * seq * head_dim * sequences_x_heads;
  return causal ? full / 2 : full;
}

std::vector<std::string> AttentionTable::kernels() const
{
  std::vector<std::string> out;
  for (const AttentionMeasurement& r : rows)
    if (std::find(out.begin(), out.end(), r.kernel) == out.end())
      out.push_back(r.kernel);
  return out;
}

bool AttentionTable::has_kernel(std::string_view kernel) const
{
  return std::any_of(rows.begin(), rows.end(), [&](const AttentionMeasurement& r) { return r.kernel == kernel; });
}

AttentionRate AttentionTable::rate(std::string_view kernel, bool causal, double head_dim, double seq) const
{
  // Each measured head dimension's passes first (a pass measured at one dimension does not stand in
  // for another's), then linear in log2 of the head dimension between them.
  std::map<double, std::vector<const AttentionMeasurement*>> by_dim;
  for (const AttentionMeasurement& r : rows)
    if (r.kernel == kernel && r.causal == causal)
      by_dim[r.head_dim].push_back(&r);
  std::vector<std::pair<double, double>> forward;
  std::vector<std::pair<double, double>> backward;
  for (const auto& entry : by_dim) {
    const double d = entry.first;
    const std::vector<const AttentionMeasurement*>& measured = entry.second;
    auto at = [&](AttentionPass pass) {
      std::vector<std::pair<double, double>> points;
      for (const AttentionMeasurement* r : measured)
        if (r->pass == pass)
          points.emplace_back(r->seq, r->tflops);
      std::sort(points.begin(), points.end());
      return points.empty() ? 0.0 : interpolate(points, seq);
    };
    const double f = at(AttentionPass::Forward);
    const double b = at(AttentionPass::Backward);
    const double fb = at(AttentionPass::ForwardBackward);
    AttentionRate r{f, f};
    if (f > 0 && b > 0) {
      r = {f, b};
    } else if (f > 0 && fb > 0) {
      const double backward_seconds = 3.5 / fb - 1.0 / f;  // per forward FLOP
      r = {f, backward_seconds > 0 ? 2.5 / backward_seconds : fb};
    } else if (fb > 0) {
      r = {fb, fb};
    }
    if (r.forward > 0) {
      forward.emplace_back(d, r.forward);
      backward.emplace_back(d, r.backward);
    }
  }
  if (forward.empty())
    return {};
  return {interpolate(forward, head_dim), interpolate(backward, head_dim)};
}

std::string AttentionTable::coverage_problem(std::string_view kernel, bool causal) const
{
  const bool covered = std::any_of(rows.begin(), rows.end(), [&](const AttentionMeasurement& r) {
    return r.kernel == kernel && r.causal == causal && r.pass != AttentionPass::Backward;
  });
  if (covered)
    return "";
  return "attention kernel '" + std::string(kernel) + "' has no " + (causal ? "causal" : "non-causal") +
         " forward or forward_backward measurement";
}

GemmTableLoad parse_gemm_table(std::string_view text, std::string_view name)
{
  GemmTableLoad load;
  Errors errors(name);
  const std::vector<std::string> columns{"m", "k", "n", "forward", "input_gradient", "weight_gradient", "source"};
  read_csv(text, columns, errors, [&](const fleet::CsvRecord& rec) {
    GemmMeasurement g;
    g.line = rec.line;
    bool ok = true;
    double* dims[3] = {&g.m, &g.k, &g.n};
    for (size_t i = 0; i < 3; ++i)
      ok = read_cell(rec, columns, i, [](double v) { return v >= 1; }, "a number of at least 1", *dims[i], errors) && ok;
    for (size_t i = 0; i < 3; ++i)
      if (!rec.cells[3 + i].empty())  // empty: not measured
        ok = read_cell(rec, columns, 3 + i, [](double v) { return v > 0 && v <= 1; }, "an efficiency in (0, 1]",
                       g.efficiency[i], errors) &&
             ok;
    if (has_source(rec, errors) && ok)
      load.table.rows.push_back(g);
  });
  finish(load, errors);
  return load;
}

AttentionTableLoad parse_attention_table(std::string_view text, std::string_view name)
{
  AttentionTableLoad load;
  Errors errors(name);
  const std::vector<std::string> columns{"kernel", "pass", "causal", "head_dim", "seq", "tflops", "source"};
  read_csv(text, columns, errors, [&](const fleet::CsvRecord& rec) {
    AttentionMeasurement a;
    a.line = rec.line;
    a.kernel = rec.cells[0];
    bool ok = !a.kernel.empty();
    if (!ok)
      errors.at(rec.line, "kernel must name the attention kernel");
    const std::string& pass = rec.cells[1];
    if (pass == "forward" || pass == "backward" || pass == "forward_backward") {
      a.pass = pass == "forward" ? AttentionPass::Forward
                                 : (pass == "backward" ? AttentionPass::Backward : AttentionPass::ForwardBackward);
    } else {
      errors.at(rec.line, "pass must be forward, backward or forward_backward (got '" + pass + "')");
      ok = false;
    }
    if (rec.cells[2] == "true" || rec.cells[2] == "false") {
      a.causal = rec.cells[2] == "true";
    } else {
      errors.at(rec.line, "causal must be true or false (got '" + rec.cells[2] + "')");
      ok = false;
    }
    double* values[3] = {&a.head_dim, &a.seq, &a.tflops};
    for (size_t i = 0; i < 3; ++i)
      ok = read_cell(rec, columns, 3 + i, [](double v) { return v > 0; }, "a positive number", *values[i], errors) &&
           ok;
    if (has_source(rec, errors) && ok)
      load.table.rows.push_back(a);
  });
  finish(load, errors);
  return load;
}

}  // namespace fleetsim::models
