#include "fleet_data.hpp"

#include "models/summary/fleet_summary_fields.hpp"

#include "report_inputs.hpp"

#include <algorithm>
#include <filesystem>
#include <utility>

namespace fleetsim::report {
namespace {

namespace ms = models::summary;
namespace sf = models::summary::fleet;
namespace di = models::summary::fleet::distribution;

// A file the fleet page needs, named with what writes it when it is absent.
std::string required_file(const std::string& dir, const char* name)
{
  const std::string path = dir + "/" + name;
  if (!std::filesystem::exists(path))
    throw InputError(path +
                     ": error: missing: a fleet run's directory has summary.json, jobs.csv and timeline.csv "
                     "(fleetsim run SCENARIO --out DIR)");
  return path;
}

void read_timeline(FleetData& d, const std::string& path)
{
  const CsvTable t = CsvTable::read(path);
  const std::size_t tb = t.column("t_begin_s"), te = t.column("t_end_s"), al = t.column("gpus_allocated"),
                    tr = t.column("gpus_training"), id = t.column("gpus_idle"), sp = t.column("gpus_spare"),
                    dn = t.column("gpus_down"), dw = t.column("demand_waiting");
  for (std::size_t i = 0; i < t.rows(); ++i) {
    const FleetTimelineRow r{t.number(i, tb), t.number(i, te), t.number(i, al), t.number(i, tr),
                             t.number(i, id), t.number(i, sp), t.number(i, dn), t.number(i, dw)};
    if (r.t_end < r.t_begin || (i > 0 && r.t_begin < d.t_end - 1e-6))
      throw InputError(t.line(i) + ": error: intervals must follow each other in time");
    if (i == 0)
      d.t_begin = r.t_begin;
    d.t_end = r.t_end;
    d.timeline.push_back(r);
  }
  if (d.timeline.empty() || !(d.t_end > d.t_begin))
    throw InputError(t.name() + ": error: no rows, or no time between the first and the last (an empty window?)");
}

// Every number a row of jobs.csv has: the required cells must be numbers, the others blank or numbers.
void check_job_row(const CsvTable& t, std::size_t row, const std::vector<std::size_t>& required,
                   const std::vector<std::size_t>& optional)
{
  for (std::size_t c : required)
    (void)t.number(row, c);
  for (std::size_t c : optional)
    if (!t.blank(row, c))
      (void)t.number(row, c);
}

FleetJobRow job_row(const CsvTable& t, std::size_t i)
{
  const auto& row = t.row(i);
  auto num = [&](const char* column) { return t.number(i, t.column(column)); };
  const std::size_t ettr = t.column("ettr");
  return {row[t.column("job_id")],
          row[t.column("state")],
          num("gpus"),
          num("interruptions"),
          num("allocated_gpu_h"),
          num("productive_gpu_h"),
          num("lost_checkpoint_gpu_h"),
          num("lost_startup_gpu_h"),
          num("lost_preemption_gpu_h"),
          num("lost_failures_gpu_h"),
          t.has_column("lost_other_gpu_h") ? num("lost_other_gpu_h") : 0.0,
          t.blank(i, ettr) ? std::nullopt : std::optional<double>(t.number(i, ettr)),
          t.has_column("lost_contention_gpu_h") ? num("lost_contention_gpu_h") : 0.0};
}

void read_jobs(FleetData& d, const std::string& path, std::size_t top)
{
  const CsvTable t = CsvTable::read(path);
  const std::size_t id = t.column("job_id"), st = t.column("start_s"), wa = t.column("wait_s");
  std::vector<std::size_t> required, lost_columns;
  for (const char* c : {"submit_s", "wait_s", "gpus", "gpus_held", "racks", "pods", "interruptions", "preemptions",
                        "allocated_gpu_h", "productive_gpu_h"})
    required.push_back(t.column(c));
  for (const char* c : {"lost_checkpoint_gpu_h", "lost_startup_gpu_h", "lost_preemption_gpu_h", "lost_failures_gpu_h"})
    lost_columns.push_back(t.column(c));
  for (const char* c : {"lost_other_gpu_h", "lost_contention_gpu_h"})  // (older files lack them)
    if (t.has_column(c))
      lost_columns.push_back(t.column(c));
  // (a flag and an index, not an optional: GCC 12 at -O2 warns that the optional's value "may be
  // used uninitialized" once blank() is inlined, a false positive)
  const bool has_slowdown = t.has_column("slowdown");
  const std::size_t slowdown = has_slowdown ? t.column("slowdown") : 0;
  required.insert(required.end(), lost_columns.begin(), lost_columns.end());
  const std::vector<std::size_t> optional = {st, t.column("end_s"), t.column("ettr")};
  (void)t.column("state");                           // the top jobs' table reads it
  std::vector<std::pair<double, std::size_t>> lost;  // (lost GPU-hours, row)
  lost.reserve(t.rows());
  d.waits.reserve(t.rows());
  for (std::size_t i = 0; i < t.rows(); ++i) {
    check_job_row(t, i, required, optional);
    if (!t.blank(i, st)) {
      const double wait = t.number(i, wa);
      if (wait < 0)
        throw InputError(t.line(i) + ": error: job '" + t.row(i)[id] + "' started but its wait_s is negative");
      d.waits.push_back(wait);
    }
    if (has_slowdown && !t.blank(i, slowdown))
      d.slowdowns.push_back(t.number(i, slowdown));
    double sum = 0;
    for (std::size_t c : lost_columns)
      sum += t.number(i, c);
    lost.emplace_back(sum, i);
  }
  d.jobs = t.rows();
  std::sort(d.waits.begin(), d.waits.end());
  std::sort(d.slowdowns.begin(), d.slowdowns.end());
  const std::size_t n = std::min(top, lost.size());
  std::partial_sort(
      lost.begin(), lost.begin() + static_cast<std::ptrdiff_t>(n), lost.end(),
      [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  for (std::size_t k = 0; k < n; ++k)
    d.top.push_back(job_row(t, lost[k].second));
}

WaitStats wait_stats(const nlohmann::ordered_json& j, const std::string& path, const std::string& file)
{
  WaitStats w;
  const auto at = [&](const ms::Field& f) { return json_number_at(j, ms::path({path.c_str(), f.key}), file); };
  w.count = at(di::kCount);
  if (w.empty())
    return w;
  w.mean = at(di::kMean);
  w.p50 = at(di::kP50);
  w.p90 = at(di::kP90);
  w.p99 = at(di::kP99);
  w.max = at(di::kMax);
  return w;
}

void read_waits(FleetData& d)
{
  d.wait = wait_stats(d.summary, sf::kWaitS.key, d.summary_name);
  const char* by_gpus = sf::kWaitSByGpus.key;
  const auto& classes = d.summary.contains(by_gpus) ? d.summary[by_gpus] : nlohmann::ordered_json();
  if (!classes.is_object())
    throw InputError(d.summary_name + ": error: '" + by_gpus + "' is missing or not an object");
  for (const auto& [name, stats] : classes.items())
    d.wait_by_size.emplace_back(name, wait_stats(d.summary, ms::path({by_gpus, name.c_str()}), d.summary_name));
}

}  // namespace

bool is_fleet_summary(const nlohmann::ordered_json& summary)
{
  return summary.is_object() && summary.contains(sf::kKind.key) && summary[sf::kKind.key] == sf::kKind.value;
}

FleetData load_fleet_data(const std::string& dir, std::size_t top)
{
  FleetData d;
  d.summary_name = dir + "/summary.json";
  d.summary = read_json(d.summary_name);
  const std::string gpus = ms::path({sf::kCluster.key, sf::cluster::kGpus.key});
  d.gpus = json_number_at(d.summary, gpus, d.summary_name);
  if (!(d.gpus > 0))
    throw InputError(d.summary_name + ": error: '" + gpus + "' must be positive");
  read_waits(d);
  const std::string jobs = required_file(dir, "jobs.csv");
  const std::string timeline = required_file(dir, "timeline.csv");
  read_timeline(d, timeline);
  read_jobs(d, jobs, top);
  return d;
}

}  // namespace fleetsim::report
