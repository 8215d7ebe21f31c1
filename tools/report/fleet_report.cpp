#include "fleet_report.hpp"

#include "models/summary/fleet_summary_fields.hpp"

#include "fleet_charts.hpp"
#include "fleet_data.hpp"
#include "fleet_energy_report.hpp"
#include "html_page.hpp"
#include "report_inputs.hpp"
#include "run_report.hpp"
#include "storage_report.hpp"
#include "svg_chart.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim::report {
namespace {

namespace ms = models::summary;
namespace sf = models::summary::fleet;
using ms::path;

constexpr std::size_t kTopJobs = 20;
constexpr const char* kFailureColor = "#d84315";  // the run page's colour for failure causes

std::string count(const FleetData& d, const std::string& path)
{
  return grouped(json_number_at(d.summary, path, d.summary_name));
}

std::string wait_figure(const WaitStats& w, double v) { return w.empty() ? "-" : format_duration(v); }

std::string header_html(const FleetData& d)
{
  const auto& j = d.summary;
  const std::string& f = d.summary_name;
  const std::string scenario = json_string_at(j, ms::kScenario.key, "?");
  const std::vector<std::pair<std::string, std::string>> figs = {
      {"scenario", scenario},
      {"seed", fixed(json_number_at(j, ms::kSeed.key, f), 0)},
      {"cluster GPUs", grouped(d.gpus)},
      {"days", fixed(json_number_at(j, sf::kWindowDays.key, f), 1)},
      {"jobs declared", count(d, path({sf::kJobs.key, sf::jobs::kDeclared.key}))},
      {"finished", count(d, path({sf::kJobs.key, sf::jobs::kFinished.key}))},
      {"running at end", count(d, path({sf::kJobs.key, sf::jobs::kRunningAtEnd.key}))},
      {"waiting at end", count(d, path({sf::kJobs.key, sf::jobs::kWaitingAtEnd.key}))},
      {"allocated utilisation", percent(metric_at(j, "allocated_utilisation", f))},
      {"productive utilisation", percent(metric_at(j, "productive_utilisation", f))},
      {"goodput GPU-hours", grouped(metric_at(j, "goodput_gpu_h", f))},
      {"wait mean", wait_figure(d.wait, d.wait.mean)},
      {"wait p50", wait_figure(d.wait, d.wait.p50)},
      {"wait p99", wait_figure(d.wait, d.wait.p99)},
      {"interruptions", count(d, sf::kInterruptions.key)},
      {"failures on idle nodes", count(d, sf::kFailuresOnIdleNodes.key)},
      {"preemptions", count(d, sf::kPreemptions.key)},
      {"scheduler", json_string_at(j, path({sf::kScheduler.key, sf::scheduler::kPolicy.key}), "?")},
      {"placement", json_string_at(j, path({sf::kScheduler.key, sf::scheduler::kPlacement.key}), "?")},
      {"preemption", json_string_at(j, path({sf::kScheduler.key, sf::scheduler::kPreemption.key}), "?")},
  };
  return "<h1>fleetsim fleet report: " + html_escape(scenario) +
         "</h1>\n<p class=\"note\">A fleet run: " + count(d, path({sf::kJobs.key, sf::jobs::kDeclared.key})) +
         " jobs sharing " + grouped(d.gpus) + " GPUs (" + count(d, path({sf::kCluster.key, sf::cluster::kNodes.key})) +
         " nodes, " + count(d, path({sf::kCluster.key, sf::cluster::kSpareNodes.key})) +
         " of them spares). Every figure below is read from summary.json, jobs.csv and timeline.csv in this "
         "directory.</p>\n" +
         figures(figs);
}

std::string cause_color(const std::string& cause)
{
  if (cause == "checkpoint")
    return state_color("checkpoint", 0);
  if (cause == "startup")
    return state_color("reload", 0);
  if (cause == "preemption")
    return state_color("planned", 0);
  return kFailureColor;
}

std::string lost_bars(std::vector<std::pair<std::string, double>> lost, double total)
{
  std::stable_sort(lost.begin(), lost.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  double hi = 0;
  for (const auto& [c, h] : lost)
    hi = std::max(hi, h);
  Plot p(720, 30 + 18 * static_cast<double>(lost.size()) + 36, 210, 120, 10, 36);
  const Domain x = nice_domain(0, hi, 5);
  p.set_scales(Scale::linear(0, x.hi, p.left(), p.right()), Scale::categorical(lost.size(), p.top(), p.bottom()));
  p.axes(labelled_ticks(nice_ticks(0, x.hi, 5)), {}, "GPU-hours lost", "");
  for (std::size_t i = 0; i < lost.size(); ++i) {
    const auto& [cause, h] = lost[i];
    const double yc = p.y(static_cast<double>(i));
    const std::string share = total > 0 ? percent(h / total) : "-";
    p.text_px(p.left() - 6, yc + 4, cause, "end");
    p.rect_px(p.left(), yc - 6, std::max(p.x(h) - p.left(), 0.5), 12, cause_color(cause),
              cause + ": " + grouped(h, 1) + " GPU-hours, " + share + " of the lost");
    p.text_px(p.x(h) + 4, yc + 4, grouped(h) + " (" + share + ")");
  }
  return p.svg("lost GPU-hours by cause");
}

std::string lost_section(const FleetData& d)
{
  const std::string& f = d.summary_name;
  const double capacity = json_number_at(d.summary, path({sf::kGpuHours.key, sf::gpu_hours::kCapacity.key}), f);
  const double allocated = json_number_at(d.summary, path({sf::kGpuHours.key, sf::gpu_hours::kAllocated.key}), f);
  const double productive = json_number_at(d.summary, path({sf::kGpuHours.key, sf::gpu_hours::kProductive.key}), f);
  const double lost = metric_at(d.summary, "lost_gpu_h", f);
  const char* gpu_hours = sf::kGpuHours.key;
  const auto causes = json_numbers(d.summary.contains(gpu_hours) ? d.summary[gpu_hours] : nlohmann::ordered_json(),
                                   sf::gpu_hours::kLostByCause.key, f + " " + gpu_hours);
  std::vector<std::pair<std::string, double>> nonzero;
  double sum = 0;
  for (const auto& [c, h] : causes) {
    sum += h;
    if (h > 0)
      nonzero.emplace_back(c, h);
  }
  auto share = [&](double v) { return capacity > 0 ? percent(v / capacity) : "-"; };
  const std::string table_html = table(
      {"GPU-hours", "", "of capacity"},
      {{"capacity (GPUs x window)", grouped(capacity, 1), "100.0%"},
       {"allocated to jobs", grouped(allocated, 1), share(allocated)},
       {Cell("productive", state_color("productive", 0)), grouped(productive, 1), share(productive)},
       {Cell("lost", kFailureColor), grouped(lost, 1), share(lost)},
       {"not allocated", grouped(capacity - allocated, 1), share(capacity - allocated)}});
  // summary.json rounds each figure to 0.001 GPU-hours, and each of the causes too.
  const double tolerance = 0.001 * static_cast<double>(causes.size() + 3);
  const double gap = allocated - productive - lost;
  std::string check = "Lost (" + grouped(lost, 1) + ") is allocated − productive (" +
                      grouped(allocated - productive, 1) + ")";
  check += std::fabs(gap) <= tolerance ? ", to within summary.json's rounding"
                                       : ", but it is off by " + grouped(gap, 3) + " GPU-hours: the files disagree";
  check += std::fabs(sum - lost) <= tolerance ? "; the causes below add up to it."
                                              : "; the causes below add up to " + grouped(sum, 3) + ", not to it.";
  const std::string bars = nonzero.empty() ? "<p class=\"note\">No GPU-hour was lost.</p>\n" : lost_bars(nonzero, lost);
  return "<p class=\"note\">Every GPU-hour a job holds is productive or lost to exactly one cause: checkpoint "
         "stalls, each job's start-up, preemption, or a failure cause (detection, the work since the last "
         "checkpoint and the restart). " +
         html_escape(check) + " Causes that lost nothing are left out.</p>\n<div class=\"row\"><div>" + table_html +
         "</div><div>" + bars + "</div></div>\n";
}

std::string top_jobs_section(const FleetData& d)
{
  std::vector<std::vector<Cell>> rows;
  for (const FleetJobRow& j : d.top)
    rows.push_back({j.id, grouped(j.gpus), j.state, grouped(j.interruptions), grouped(j.allocated, 1),
                    grouped(j.productive, 1), grouped(j.lost_checkpoint, 1), grouped(j.lost_startup, 1),
                    grouped(j.lost_preemption, 1), grouped(j.lost_failures, 1),
                    grouped(j.lost_other + j.lost_contention, 1),
                    grouped(j.lost(), 1),
                    j.ettr ? fixed(*j.ettr, 4) : "-"});
  return "<p class=\"note\">The " + std::to_string(d.top.size()) + " of " + grouped(static_cast<double>(d.jobs)) +
         " jobs in jobs.csv with the most lost GPU-hours (ties in file order). GPU-hours throughout; ETTR is the "
         "job's productive time over its time in the system, submission to end (or to the end of the window).</p>\n" +
         table({"job", "GPUs", "state", "interruptions", "allocated", "productive", "lost: checkpoint", "start-up",
                "preemption", "failures", "other (contention included)", "lost total", "ETTR"},
               rows);
}

// A shared fabric's cost (network.fleet_fabric: shared): the GPU-hours its sharing took, how busy
// each level's uplinks were, and how much the jobs slowed.
std::string fabric_section(const FleetData& d)
{
  const auto& j = d.summary;
  const std::string& f = d.summary_name;
  std::vector<std::vector<Cell>> rows = {
      {"GPU-hours lost to contention",
       grouped(json_number_at(j, path({sf::kFabric.key, sf::fabric::kContentionGpuHours.key}), f), 1)}};
  const std::string prefix = sf::kFabric.prefix;  // utilisation_<level>
  for (const auto& [key, value] : j.at(sf::kFabric.key).items())
    if (key.rfind(prefix, 0) == 0)
      rows.push_back({key.substr(prefix.size()) + " uplinks' utilisation",
                      percent(json_number_at(j, path({sf::kFabric.key, key.c_str()}), f), 2)});
  const std::vector<double>& s = d.slowdowns;
  if (!s.empty())
    for (const auto& [name, q] : {std::pair<const char*, double>{"p50", 0.5}, {"p99", 0.99}, {"max", 1.0}})
      rows.push_back({std::string("job slowdown ") + name + " (jobs that trained)",
                      fixed(s[std::min(s.size() - 1, static_cast<std::size_t>(q * static_cast<double>(s.size() - 1)))],
                            3)});
  return "<p class=\"note\">The jobs share the fabric's links (<code>network.fleet_fabric: shared</code>): a job "
         "whose ring of nodes gets less than its NICs' bandwidth trains slower, and the training it loses is "
         "charged to <em>contention</em>. A level's utilisation is what its uplinks carried over their capacity "
         "over the window; a job's slowdown is its training time over that of the same work at its isolated "
         "speed (docs/models/fleet.md).</p>\n" +
         table({"figure", "value"}, rows);
}

std::string more_section(const FleetData& d)
{
  const auto& j = d.summary;
  const std::string& f = d.summary_name;
  std::vector<std::vector<Cell>> rows = {
      {"failures (nodes struck)", count(d, sf::kFailures.key)},
      {"requeues (jobs put back in the queue)", count(d, sf::kRequeues.key)},
      {"in-place recoveries (a spare replaced the node)", count(d, sf::kInPlaceRecoveries.key)},
      {"repairs finished", count(d, sf::kRepairs.key)},
      {"jobs too large for the cluster (left out)", count(d, path({sf::kJobs.key, sf::jobs::kTooLarge.key}))},
      {"mean racks spanned by a multi-node job", fixed(json_number_at(j, sf::kRacksSpannedMean.key, f), 2)},
      {"idle GPU-hours while jobs waited",
       grouped(json_number_at(j, path({sf::kFragmentation.key, sf::fragmentation::kIdleGpuHours.key}), f), 1)},
      {"the same, as a share of capacity", percent(metric_at(j, "fragmentation", f), 2)},
  };
  namespace di = sf::distribution;
  if (json_number_at(j, path({sf::kBoundedSlowdown.key, di::kCount.key}), f) > 0)
    for (const char* q : {di::kP50.key, di::kP99.key, di::kMax.key})
      rows.push_back({std::string("bounded slowdown ") + q + " (finished jobs)",
                      fixed(json_number_at(j, path({sf::kBoundedSlowdown.key, q}), f), 2)});
  return table({"figure", "value"}, rows);
}

}  // namespace

bool is_fleet_dir(const std::string& dir) { return is_fleet_summary(read_json(dir + "/summary.json")); }

std::vector<ReplayedJobDir> replayed_job_dirs(const std::string& dir)
{
  const std::string file = dir + "/summary.json";
  const nlohmann::ordered_json j = read_json(file);
  std::vector<ReplayedJobDir> out;
  namespace rj = sf::replayed_jobs;
  if (!j.contains(sf::kReplayedJobs.key))
    return out;
  for (const auto& job : j[sf::kReplayedJobs.key]) {
    const std::string id = json_string_at(job, rj::kId.key, "");
    const std::string outputs = json_string_at(job, rj::kOutputs.key, "");
    if (id.empty() || outputs.empty() || outputs.find("..") != std::string::npos)
      throw InputError(file + ": error: a replayed job needs an 'id' and its 'outputs' inside the fleet's directory");
    out.push_back({id, outputs});
  }
  return out;
}

namespace {

// A replayed job's headline figures, from its own summary, and the link to its page.
std::string replayed_section(const std::string& dir, const std::vector<std::string>& job_pages)
{
  std::vector<std::vector<Cell>> rows;
  const std::vector<ReplayedJobDir> jobs = replayed_job_dirs(dir);
  for (size_t k = 0; k < jobs.size(); ++k) {
    const std::string file = dir + "/" + jobs[k].dir + "/summary.json";
    const nlohmann::ordered_json s = read_json(file);
    const std::string page = k < job_pages.size() ? job_pages[k] : jobs[k].dir + "/report.html";
    rows.push_back({jobs[k].id, fixed(metric_at(s, models::summary::run::kEttr.key, file), 4),
                    fixed(metric_at(s, models::summary::run::kGoodputRatio.key, file), 4),
                    grouped(metric_at(s, "unexpected_interruptions", file)),
                    grouped(metric_at(s, "planned_interruptions", file)), Cell::link(page, page)});
  }
  return "<p class=\"note\">Jobs declared <code>runtime: replay</code> run the single-job replay's own model "
         "inside the fleet; each has a replay's outputs and its own page (the last column, written beside its "
         "files by <code>fleetsim report</code>).</p>\n" +
         table({"job", "ETTR", "goodput", "unexpected", "planned", "its page"}, rows);
}

}  // namespace

std::string fleet_report_html(const std::string& dir, const std::vector<std::string>& job_pages)
{
  const FleetData d = load_fleet_data(dir, kTopJobs);
  std::string body = header_html(d);
  body += "<h2>Utilisation over time</h2>\n" + utilisation_section(d);
  // Only fleets whose jobs store their checkpoints write storage.csv.
  if (const auto storage = load_storage(dir, json_number_at(d.summary, sf::kWindowDays.key, d.summary_name) * 86400))
    body += storage_section(*storage);
  body += "<h2>Wait time by job size</h2>\n" + wait_by_size_section(d);
  body += "<h2>Wait-time distribution</h2>\n" + wait_cdf_section(d);
  body += "<h2>Lost GPU-hours by cause</h2>\n" + lost_section(d);
  if (d.summary.contains(sf::kFabric.key))
    body += "<h2>The shared fabric</h2>\n" + fabric_section(d);
  // Fleet outputs older than the energy model have no power columns and no "energy": no section.
  if (const auto energy = load_fleet_energy(dir, d.summary, d.summary_name))
    body += fleet_energy_section(*energy);
  if (d.summary.contains(sf::kReplayedJobs.key))
    body += "<h2>Replayed jobs</h2>\n" + replayed_section(dir, job_pages);
  body += "<h2>Jobs that lost the most GPU-hours</h2>\n" + top_jobs_section(d);
  body += "<h2>More figures</h2>\n" + more_section(d);
  // A fleet's own metrics and the registered ones (the single job's read as absent or 0 here).
  body += metrics_section(d.summary, metrics::default_metrics(metrics::fleet_compare_defaults()));
  return html_page("fleetsim report: " + json_string_at(d.summary, ms::kScenario.key, "fleet"), body);
}

}  // namespace fleetsim::report
