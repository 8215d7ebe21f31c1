#include "fleet_outputs.hpp"

#include "fleet_energy_outputs.hpp"
#include "run_outputs.hpp"

#include "models/core/statistics.hpp"
#include "models/fleet/fleet_summary.hpp"
#include "models/summary/fleet_summary_fields.hpp"
#include "simulator/metrics/metric_registry.hpp"
#include "simulator/trace/atomic_file.hpp"
#include "simulator/trace/fixed_text.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>

namespace fleetsim::sim {

namespace mf = models::fleet;
namespace ms = models::summary;
namespace sf = models::summary::fleet;

namespace {

constexpr double kHour = 3600;

double round_to(double v, int decimals)
{
  const double f = std::pow(10.0, decimals);
  return std::round(v * f) / f;
}

// A distribution (models/fleet/fleet_summary.hpp), rounded to the millisecond.
nlohmann::ordered_json distribution(const std::vector<double>& sample)
{
  namespace di = sf::distribution;
  const mf::Distribution d = mf::describe(sample);
  nlohmann::ordered_json j;
  j[di::kCount.key] = d.count;
  if (d.count == 0)
    return j;
  j[di::kMean.key] = round_to(d.mean, 3);
  j[di::kP50.key] = round_to(d.p50, 3);
  j[di::kP90.key] = round_to(d.p90, 3);
  j[di::kP99.key] = round_to(d.p99, 3);
  j[di::kMax.key] = round_to(d.max, 3);
  return j;
}

// The cluster's GPU-hours: its capacity, what the jobs held and trained, and what was lost, by cause
// and by the causes' category (failures.causes.<name>.category, as [L3] Table 5 groups them).
nlohmann::ordered_json gpu_hours_json(const scenario::Scenario& s, const FleetResult& r, double capacity)
{
  nlohmann::ordered_json lost;
  for (size_t c = 0; c < r.loss_causes.size(); ++c)
    lost[r.loss_causes[c]] = round_to(c < r.total.lost.size() ? r.total.lost[c] / kHour : 0, 3);
  nlohmann::ordered_json by_category = nlohmann::ordered_json::object();
  for (const models::FailureCause& c : s.causes)
    if (!c.category.empty() && lost.contains(c.name))
      by_category[c.category] = round_to(by_category.value(c.category, 0.0) + lost[c.name].get<double>(), 3);
  namespace gh = sf::gpu_hours;
  nlohmann::ordered_json j = {{gh::kCapacity.key, round_to(capacity / kHour, 3)},
                              {gh::kAllocated.key, round_to(r.total.allocated / kHour, 3)},
                              {gh::kProductive.key, round_to(r.total.productive / kHour, 3)},
                              {gh::kLost.key, round_to(r.total.lost_total() / kHour, 3)},
                              {gh::kLostByCause.key, lost}};
  if (!by_category.empty())
    j[gh::kLostByCategory.key] = std::move(by_category);
  return j;
}

// The scheduler and the jobs by state.
void scheduling_json(nlohmann::ordered_json& j, const scenario::Scenario& s, const FleetResult& r,
                     const mf::JobCounts& jobs)
{
  namespace sc = sf::scheduler;
  namespace jo = sf::jobs;
  j[sf::kScheduler.key] = {
      {sc::kPolicy.key, s.scheduler.policy},
      {sc::kPreemption.key, std::string(models::name_of(mf::kPreemptionNames, s.scheduler.preemption))},
      {sc::kPlacement.key, std::string(models::name_of(mf::kPackingNames, s.scheduler.packing))}};
  j[sf::kJobs.key] = {{jo::kDeclared.key, r.jobs.size() + static_cast<size_t>(r.rejected)},
                      {jo::kTooLarge.key, r.rejected},
                      {jo::kSubmitted.key, static_cast<long>(r.jobs.size()) - jobs.pending},
                      {jo::kStarted.key, jobs.started},
                      {jo::kFinished.key, jobs.finished},
                      {jo::kRunningAtEnd.key, jobs.running},
                      {jo::kWaitingAtEnd.key, jobs.waiting}};
}

// The jobs' waits, slowdowns and spread, and the idle GPUs while they wait.
void waits_json(nlohmann::ordered_json& j, const FleetResult& r, const mf::JobCounts& jobs, double capacity)
{
  j[sf::kWaitS.key] = distribution(mf::first_waits(r.jobs, r.specs, 0, 1L << 62));
  nlohmann::ordered_json by_size;
  for (const mf::SizeClass& c : mf::kSizeClasses)
    by_size[c.name] = distribution(mf::first_waits(r.jobs, r.specs, c.lo, c.hi));
  j[sf::kWaitSByGpus.key] = by_size;
  j[sf::kBoundedSlowdown.key] = distribution(jobs.bounded_slowdown);
  const double fragmentation = r.timeline.integral(mf::kIdleWhileWaiting);
  j[sf::kFragmentation.key] = {{sf::fragmentation::kIdleGpuHours.key, round_to(fragmentation / kHour, 3)},
                               {sf::fragmentation::kFractionOfCapacity.key, round_to(fragmentation / capacity, 6)}};
  j[sf::kRacksSpannedMean.key] = round_to(jobs.racks_spanned_mean, 4);
}

// What the fleet's failures did.
void failures_json(nlohmann::ordered_json& j, const FleetResult& r)
{
  j[sf::kFailures.key] = r.failures;
  j[sf::kInterruptions.key] = r.interruptions;
  j[sf::kFailuresOnIdleNodes.key] = r.failures_on_idle;
  j[sf::kPreemptions.key] = r.preemptions;
  j[sf::kRequeues.key] = r.requeues;
  j[sf::kInPlaceRecoveries.key] = r.in_place_recoveries;
  j[sf::kRepairs.key] = r.repairs;
}

// Each replayed job's own outputs, as a replay of it writes them (write_fleet_outputs).
nlohmann::ordered_json replayed_jobs_json(const FleetResult& r)
{
  namespace rj = sf::replayed_jobs;
  nlohmann::ordered_json replayed = nlohmann::ordered_json::array();
  for (const ReplayedResult& x : r.replayed)
    if (!r.specs[static_cast<size_t>(x.job)].work_job)  // (a work job has no outputs of its own)
      replayed.push_back({{rj::kId.key, r.specs[static_cast<size_t>(x.job)].id},
                          {rj::kOutputs.key, replayed_dir(r.specs[static_cast<size_t>(x.job)].id)},
                          {rj::kEttr.key, x.result.report.ettr},
                          {rj::kUnexpectedInterruptions.key, x.result.report.unexpected}});
  return replayed;
}

}  // namespace

nlohmann::ordered_json fleet_summary_json(const scenario::Scenario& s, const FleetResult& r)
{
  nlohmann::ordered_json j;
  j[ms::kScenario.key] = s.name;
  j[sf::kKind.key] = sf::kKind.value;
  j[ms::kUnusedKeys.key] = unused_keys_json(s);
  j[ms::kSeed.key] = r.seed;
  j[sf::kWindowDays.key] = round_to(r.horizon / 86400, 6);
  j[sf::kCluster.key] = {{sf::cluster::kGpus.key, r.gpus},
                         {sf::cluster::kNodes.key, r.nodes},
                         {sf::cluster::kSpareNodes.key, s.capacity.spare_nodes}};
  const mf::JobCounts jobs = mf::count_jobs(r.jobs, r.specs, r.gpus, r.nodes);
  scheduling_json(j, s, r, jobs);
  const double capacity = static_cast<double>(r.gpus) * r.horizon;
  j[sf::kUtilisation.key] = {{sf::utilisation::kAllocated.key, round_to(r.total.allocated / capacity, 6)},
                             {sf::utilisation::kProductive.key, round_to(r.total.productive / capacity, 6)}};
  j[sf::kGpuHours.key] = gpu_hours_json(s, r, capacity);
  j[sf::kGoodputGpuHours.key] = round_to(r.total.productive / kHour, 3);
  waits_json(j, r, jobs, capacity);
  if (s.fabric.fleet == scenario::FleetFabricMode::Shared) {
    // The shared fabric (network.fleet_fabric): what its uplinks carried, by level, as a share of
    // their capacity over the window, and the GPU-hours its sharing cost.
    nlohmann::ordered_json fabric;
    fabric[sf::fabric::kContentionGpuHours.key] = j[sf::kGpuHours.key][sf::gpu_hours::kLostByCause.key].value(
        "contention", 0.0);
    for (const FabricUse& u : r.fabric)
      fabric[sf::kFabric.prefix + u.level] = round_to(u.byte_seconds / std::max(1e-300, u.capacity * r.horizon), 6);
    j[sf::kFabric.key] = fabric;
  }
  // The layout of the jobs declared by tokens, as the memory check saw it.
  if (s.step.accelerator.check_memory && std::any_of(s.workload.jobs.begin(), s.workload.jobs.end(), [](const auto& d) {
        return d.tokens > 0 || d.job.replayed;
      }))
    j[ms::kMemory.key] = memory_json(s);
  failures_json(j, r);
  j[sf::kEnergy.key] = fleet_energy_json(s, r);
  j[sf::kCarbonAware.key] = carbon_aware_json(s, r);
  if (nlohmann::ordered_json extra =
          metrics::registered_values({r.total, r.jobs, r.specs, r.timeline, r.gpus, r.horizon, r.seed});
      !extra.empty())
    j[ms::kMetrics.key] = std::move(extra);
  if (nlohmann::ordered_json replayed = replayed_jobs_json(r); !replayed.empty())
    j[sf::kReplayedJobs.key] = std::move(replayed);
  j[ms::kWallTimeS.key] = round_to(r.wall_time_s, 4);
  return j;
}

std::string replayed_dir(const std::string& job_id) { return "jobs/" + job_id; }

namespace {

const ReplayedResult* replayed_of(const FleetResult& r, size_t job)
{
  // (r.replayed is in job order: FleetReplayedJobs::finish)
  const auto it = std::lower_bound(r.replayed.begin(), r.replayed.end(), static_cast<long>(job),
                                   [](const ReplayedResult& x, long j) { return x.job < j; });
  return it != r.replayed.end() && it->job == static_cast<long>(job) ? &*it : nullptr;
}

// How far job i got, what else it lost, and how fast it trained (jobs.csv's last columns).
void append_progress(std::string& line, const FleetResult& r, size_t i, double other, double slow, double stall)
{
  const mf::JobRecord& job = r.jobs[i];
  const mf::JobSpec& spec = r.specs[i];
  auto num = [&](double v, int d) {
    append_fixed(line, v, d);
    line += ',';
  };
  // How far it got: seconds of its work at full speed done by the window's end (a running job's
  // uncommitted work counts, as in a replay), that as a share of its work, and for a job declared
  // by tokens, the tokens they trained.
  num(job.progress_at_end, 3);
  if (spec.work > 0)
    append_fixed(line, std::min(1.0, job.progress_at_end / spec.work), 6);
  line += ',';
  if (spec.tokens_per_second > 0)
    append_fixed(line, job.progress_at_end * spec.tokens_per_second, 0);
  else if (const ReplayedResult* x = spec.work_job ? nullptr : replayed_of(r, i))
    append_fixed(line, x->result.report.tokens, 0);
  line += ',';
  append_fixed(line, other / kHour, 4);
  line += ',';
  // Its training as it went, against its isolated speed: the GPU-seconds it trained plus those
  // the fabric's sharing and its data loading cost, over the former; and for a job declared by
  // tokens, its mean step.
  append_fixed(line, slow / kHour, 4);
  line += ',';
  if (job.training_gpu_s > 0) {
    const double slowdown = (job.training_gpu_s + slow + stall) / job.training_gpu_s;
    append_fixed(line, slowdown, 6);
    line += ',';
    if (spec.step_time > 0)
      append_fixed(line, spec.step_time * slowdown, 4);
  } else {
    line += ',';
  }
}

}  // namespace

void write_jobs_csv(std::ostream& out, const FleetResult& r)
{
  out << "job_id,user,submit_s,start_s,end_s,wait_s,gpus,gpus_held,racks,pods,interruptions,preemptions,"
         "state,allocated_gpu_h,productive_gpu_h,lost_checkpoint_gpu_h,lost_startup_gpu_h,lost_preemption_gpu_h,"
         "lost_failures_gpu_h,ettr,eligible_s,energy_mwh,carbon_kg,progress_s,complete,tokens_trained,"
         "lost_other_gpu_h,lost_contention_gpu_h,slowdown,mean_step_s\n";
  // The shared fabric's loss cause (network.fleet_fabric: shared), if the run has it.
  size_t contention = 0, data_stall = 0;  // (and the data loading's)
  for (size_t c = 0; c < r.loss_causes.size(); ++c) {
    if (r.loss_causes[c] == "contention")
      contention = c;
    if (r.loss_causes[c] == "data_stall")
      data_stall = c;
  }
  std::string line;
  for (size_t i = 0; i < r.jobs.size(); ++i) {
    const mf::JobRecord& job = r.jobs[i];
    const mf::JobSpec& spec = r.specs[i];
    line.clear();
    auto num = [&](double v, int d) {
      append_fixed(line, v, d);
      line += ',';
    };
    auto opt = [&](double v) {
      if (v >= 0)
        append_fixed(line, v, 3);
      line += ',';
    };
    line += spec.id + ',' + spec.user + ',';
    num(spec.submit, 3);
    opt(job.first_start);
    opt(job.end);
    num(job.first_start >= 0 ? job.first_start - spec.submit : -1, 3);
    line += std::to_string(spec.gpus) + ',' + std::to_string(job.held) + ',' + std::to_string(job.racks) + ',' +
            std::to_string(job.pods) + ',' + std::to_string(job.interruptions) + ',' + std::to_string(job.preemptions) +
            ',';
    line += models::name_of(mf::kJobStateNames, job.state);
    line += ',';
    // The failure causes, then (a replayed job's) the replay's other causes: maintenance, stalls, ...
    const auto& lost = job.time.lost;
    double failures = 0, other = 0;
    for (size_t c = mf::kFirstFailureCause; c < lost.size(); ++c)
      if (c != contention || contention == 0)
        (c < mf::kFirstFailureCause + r.failure_causes ? failures : other) += lost[c];
    const double slow = contention > 0 && contention < lost.size() ? lost[contention] : 0.0;
    num(job.time.allocated / kHour, 4);
    num(job.time.productive / kHour, 4);
    num(lost[mf::kCheckpoint] / kHour, 4);
    num(lost[mf::kStartup] / kHour, 4);
    num(lost[mf::kPreemption] / kHour, 4);
    num(failures / kHour, 4);
    // ETTR: the job's productive time over its time in the system (submit to end, or to the window's end).
    const double until = job.end >= 0 ? job.end : r.horizon;
    const double in_system = until - spec.submit;
    const double g = static_cast<double>(std::max(1L, job.held));
    if (job.state != mf::JobState::Pending && in_system > 0)
      append_fixed(line, job.time.productive / g / in_system, 6);
    line += ',';
    opt(job.eligible);
    num(r.job_energy[i].energy_j / 3.6e9, 6);
    num(r.job_energy[i].carbon_kg, 3);
    append_progress(line, r, i, other, slow, data_stall > 0 && data_stall < lost.size() ? lost[data_stall] : 0.0);
    line += '\n';
    out << line;
  }
}

void write_fleet_timeline_csv(std::ostream& out, const FleetResult& r)
{
  out << "t_begin_s,t_end_s";
  for (int c = 0; c < mf::kTimelineColumns; ++c)
    out << ',' << mf::timeline_column_name(c);
  out << energy_timeline_header() << '\n';
  std::string line;
  double energy_j = 0, carbon_kg = 0;
  for (size_t i = 0; i < r.timeline.rows(); ++i) {
    line.clear();
    append_fixed(line, r.timeline.row_start(i), 3);
    line += ',';
    append_fixed(line, r.timeline.row_start(i) + r.timeline.row_length(i), 3);
    for (int c = 0; c < mf::kTimelineColumns; ++c) {
      line += ',';
      append_fixed(line, r.timeline.mean(c, i), 3);
    }
    append_energy_row(line, r, i, energy_j, carbon_kg);
    line += '\n';
    out << line;
  }
}

std::string write_fleet_outputs(const std::string& dir, const scenario::Scenario& s, const FleetResult& r, bool traces)
{
  if (std::string err = prepare_output_dir(dir); !err.empty())
    return err;
  if (std::string err = write_file_atomically(dir, "summary.json",
                                              [&](std::ostream& o) { o << fleet_summary_json(s, r).dump(2) << '\n'; });
      !err.empty() || !traces)
    return err;
  if (std::string err = write_file_atomically(dir, "jobs.csv", [&](std::ostream& o) { write_jobs_csv(o, r); });
      !err.empty())
    return err;
  if (std::string err = write_file_atomically(dir, "timeline.csv",
                                              [&](std::ostream& o) { write_fleet_timeline_csv(o, r); });
      !err.empty())
    return err;
  for (const ReplayedResult& x : r.replayed)
    if (r.specs[static_cast<size_t>(x.job)].work_job)
      continue;  // (no outputs of its own: its line of jobs.csv)
    else if (std::string err = write_outputs(dir + "/" + replayed_dir(r.specs[static_cast<size_t>(x.job)].id), x.s,
                                             x.result, traces);
             !err.empty())
      return err;
  if (r.storage.empty())
    return {};
  return write_file_atomically(dir, "storage.csv", [&](std::ostream& o) { write_storage_csv(o, r.storage); });
}

void print_fleet_table(std::ostream& out, const scenario::Scenario& s, const FleetResult& r)
{
  const nlohmann::ordered_json j = fleet_summary_json(s, r);
  out << "fleetsim: " << s.name << " (seed " << r.seed << "), a fleet of " << r.jobs.size() << " jobs on " << r.gpus
      << " GPUs for " << std::fixed << std::setprecision(1) << r.horizon / 86400 << " days\n";
  namespace di = sf::distribution;
  const auto& jobs = j[sf::kJobs.key];
  out << "  jobs finished          " << jobs[sf::jobs::kFinished.key] << " (" << jobs[sf::jobs::kRunningAtEnd.key]
      << " running, " << jobs[sf::jobs::kWaitingAtEnd.key] << " waiting at the end)\n";
  out << std::setprecision(4);
  const auto& u = j[sf::kUtilisation.key];
  out << "  utilisation            allocated " << u[sf::utilisation::kAllocated.key].get<double>() << ", productive "
      << u[sf::utilisation::kProductive.key].get<double>() << "\n";
  const auto& w = j[sf::kWaitS.key];
  if (w.contains(di::kMean.key))
    out << std::setprecision(1) << "  wait (s)               mean " << w[di::kMean.key].get<double>() << ", p50 "
        << w[di::kP50.key].get<double>() << ", p99 " << w[di::kP99.key].get<double>() << "\n";
  const auto& gh = j[sf::kGpuHours.key];
  out << "  lost GPU-hours         " << std::setprecision(1) << gh[sf::gpu_hours::kLost.key].get<double>();
  for (const auto& [cause, h] : gh[sf::gpu_hours::kLostByCause.key].items())
    if (h.get<double>() > 0)
      out << "  " << cause << " " << h.get<double>();
  out << "\n  interruptions          " << r.interruptions << " (" << r.failures_on_idle
      << " failures struck idle nodes), " << r.preemptions << " preemptions\n";
  out << std::defaultfloat;
  print_fleet_energy(out, j);
}

}  // namespace fleetsim::sim
