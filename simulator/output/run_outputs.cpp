#include "run_outputs.hpp"

#include "simulator/output/energy_outputs.hpp"
#include "simulator/trace/atomic_file.hpp"
#include "simulator/trace/csv_buffer.hpp"
#include "simulator/trace/fixed_text.hpp"
#include "simulator/trace/step_json.hpp"

#include "models/accounting/run_summary.hpp"
#include "models/resilience/failure_model.hpp"
#include "models/step/memory_model.hpp"
#include "models/summary/run_energy_fields.hpp"
#include "models/summary/run_summary_fields.hpp"
#include "models/summary/step_fields.hpp"
#include "simulator/metrics/metric_registry.hpp"

#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>

namespace fleetsim::sim {
namespace {

using nlohmann::ordered_json;
namespace ms = models::summary;
namespace mr = models::summary::run;

ordered_json interruptions_json(const scenario::Scenario& s, const RunResult& r)
{
  // Expected over the job's own window (a fleet's job may start late and end at its token target).
  const models::InterruptionSummary sum = models::summarize_interruptions(r.log, s.causes, s.fleet,
                                                                          units::Seconds(r.report.elapsed));
  ordered_json by_cause = ordered_json::object();
  ordered_json expected = ordered_json::object();
  for (const auto& [cause, n] : sum.by_cause)
    by_cause[cause] = n;
  for (const auto& [cause, e] : sum.expected_by_cause)
    expected[cause] = e;
  namespace in = mr::interruptions;
  ordered_json j{
      {in::kUnexpected.key, r.report.unexpected},
      {in::kPlanned.key, r.report.planned},
      {in::kByCause.key, by_cause},
      {in::kExpectedUnexpected.key, sum.expected_total},
      {in::kExpectedByCause.key, expected},
  };
  // The causes' interruptions by their category (failures.causes.<name>.category), as [L3] Table 5 groups them.
  ordered_json by_category = ordered_json::object();
  for (const auto& c : s.causes)
    if (!c.category.empty())
      by_category[c.category] = by_category.value(c.category, 0L) + by_cause.value(c.name, 0L);
  if (!by_category.empty())
    j[in::kByCategory.key] = std::move(by_category);
  if (r.report.reconfigurations > 0)
    j[in::kReconfigurations.key] = r.report.reconfigurations;
  return j;
}

double mean_training_step_time(const RunResult& r)
{
  return models::mean_training_step_time(r.log, r.step.step_time.si());
}

// Every scenario cause, then the other charges, in a fixed order: the keys do not depend on the seed.
ordered_json lost_by_cause_json(const scenario::Scenario& s, const RunResult& r)
{
  ordered_json j = ordered_json::object();
  auto take = [&](const std::string& name, bool always) {
    auto it = r.report.lost_by_cause.find(name);
    if (it != r.report.lost_by_cause.end() || always)
      j[name] = it != r.report.lost_by_cause.end() ? it->second : 0.0;
  };
  for (const auto& c : s.causes)
    take(c.name, true);
  take("planned", true);
  take("checkpoint", true);
  for (const auto& [name, v] : r.report.lost_by_cause)
    if (!j.contains(name))
      j[name] = v;
  return j;
}

ordered_json recovery_json(const scenario::Scenario& s, const RunResult& r)
{
  const PolicyCounters& c = r.counters;
  namespace rc = mr::recovery;
  ordered_json j{
      {rc::kPolicy.key, s.recovery.policy_name},
      {rc::kSpareNodes.key, s.capacity.spare_nodes},
      {rc::kRepairs.key, c.repairs},
      {rc::kSwaps.key, c.swaps},
      {rc::kSparesExhausted.key, c.spares_exhausted},
      {rc::kSpareFailures.key, c.spare_failures},
  };
  for (const auto& [name, value] : r.policy_reported)
    j[name] = value;
  if (s.stragglers.dynamic()) {
    j[rc::kSlowdownEpisodes.key] = c.episodes;
    j[rc::kDrains.key] = c.drains;
  }
  if (s.capacity.lemons.any() || s.capacity.lemons.retire_after > 0) {  // lemons, or their retirement
    j[rc::kLemonNodes.key] = r.lemon_nodes;
    j[rc::kNodesRetired.key] = r.nodes_retired;
    j[rc::kLemonsRetired.key] = r.lemons_retired;
  }
  return j;
}

ordered_json checkpoint_json(const scenario::Scenario& s, const RunResult& r)
{
  const models::CheckpointFigures f = models::summarize_checkpoints(r.log, s.causes, s.fleet, r.checkpoint_pause_s);
  // The interval the run used: checkpoint.interval under the fixed policy, the policy's own otherwise
  // (adaptive's changes: the last one the job trained a stretch by, and under first_interval_s its first).
  namespace ck = mr::checkpoints;
  ordered_json j{
      {ck::kCommitted.key, r.report.checkpoints},
      {ck::kIntervalS.key, r.interval_s},
      {ck::kBytes.key, s.checkpoint_bytes().si()},
      {ck::kWriteTimeS.key, r.checkpoint_write_s},
      {ck::kJobMtbfS.key, f.job_mtbf_s ? ordered_json(*f.job_mtbf_s) : ordered_json(nullptr)},
  };
  if (f.young_s && f.daly_s) {
    j[ck::kYoungIntervalS.key] = *f.young_s;
    j[ck::kDalyIntervalS.key] = *f.daly_s;
  }
  // How the job checkpointed: the strategy's pause and drains, the interval policy, corruption.
  j[ck::kStrategy.key] = std::string(models::name_of(models::kCheckpointStrategyNames, s.checkpoint.strategy));
  j[ck::kPauseS.key] = r.checkpoint_pause_s;
  if (f.drains > 0) {
    j[ck::kMeanDrainS.key] = f.mean_drain_s;
    j[ck::kMaxDrainS.key] = f.max_drain_s;
  }
  j[ck::kPolicy.key] = s.checkpoint.policy;
  if (s.checkpoint.policy == "adaptive")
    j[ck::kFirstIntervalS.key] = r.first_interval_s;
  if (s.checkpoint.policy != "fixed")
    j[ck::kEstimatedMtbfS.key] = r.estimated_mtbf_s;
  j[ck::kCorrupt.key] = r.report.corrupt_checkpoints;
  return j;
}

}  // namespace

ordered_json unused_keys_json(const scenario::Scenario& s)
{
  ordered_json j = ordered_json::object();
  for (const scenario::UnusedKey& u : s.unused_keys)
    j[u.key] = u.reason + " (" + u.where + ")";
  return j;
}

ordered_json memory_json(const scenario::Scenario& s)
{
  const models::MemoryEstimate m = models::estimate_memory(s.step);
  constexpr double kGB = 1e9;
  namespace mm = ms::memory;
  return {{mm::kStage.key, m.stage},
          {mm::kWeightsGb.key, m.weights / kGB},
          {mm::kGradientsGb.key, m.gradients / kGB},
          {mm::kOptimizerGb.key, m.optimizer / kGB},
          {mm::kActivationsGb.key, m.activations / kGB},
          {mm::kTotalGb.key, m.total / kGB},
          {mm::kCapacityGb.key, m.capacity / kGB},
          {mm::kBiggestTerm.key, m.biggest().name}};
}

ordered_json summary_json(const scenario::Scenario& s, const RunResult& r)
{
  const auto& b = r.report.breakdown;
  ordered_json j;
  j[ms::kScenario.key] = s.name;
  j[mr::kScenarioFile.key] = s.source;
  j[ms::kUnusedKeys.key] = unused_keys_json(s);
  j[ms::kSeed.key] = r.seed;
  j[mr::kGpus.key] = s.fleet.gpus;
  j[mr::kSimulatedTimeS.key] = r.report.elapsed;
  j[mr::kEttr.key] = r.report.ettr;
  j[mr::kGoodputRatio.key] = r.report.goodput_ratio;
  j[mr::kTokensTrained.key] = r.report.tokens;
  j[mr::kStepsTrained.key] = r.report.steps;
  j[mr::kStepTimeS.key] = r.step.step_time.si();
  j[mr::kMfu.key] = r.step.mfu;
  j[mr::kInterruptions.key] = interruptions_json(s, r);
  ordered_json breakdown = ordered_json::object();
  for (const auto& term : models::kBreakdownTerms)
    breakdown[term.name] = b.*term.seconds;
  j[mr::kTimeBreakdownS.key] = std::move(breakdown);
  j[mr::kLostTimeByCauseS.key] = lost_by_cause_json(s, r);
  j[mr::kRecovery.key] = recovery_json(s, r);
  j[mr::kCheckpoints.key] = checkpoint_json(s, r);
  j[mr::kEnergy.key] = energy_json(s, r);
  if (s.token_target > 0) {
    namespace tt = mr::token_target;
    const auto when = models::time_to_tokens(r.report.timeline, s.token_target);
    j[mr::kTokenTarget.key] = {{tt::kTokens.key, s.token_target},
                               {tt::kReached.key, when.has_value()},
                               {tt::kTimeToTargetS.key, when ? ordered_json(*when) : ordered_json(nullptr)}};
  }
  j[ms::kStep.key] = step_json(r.step);
  if (s.step.accelerator.check_memory)
    j[ms::kMemory.key] = memory_json(s);
  if (s.stragglers.any()) {
    // As the replay draws them: over the cluster's nodes, spares included.
    namespace st = mr::stragglers;
    const long nodes = (s.fleet.gpus + s.fleet.gpus_per_node - 1) / s.fleet.gpus_per_node + s.capacity.spare_nodes;
    j[mr::kStragglers.key] = {
        {st::kStepFactor.key, r.straggler_factor},
        {st::kMeanStepTimeS.key, mean_training_step_time(r)},
        {st::kStepTimeS.key, r.step.step_time.si() * r.straggler_factor},
        {st::kPersistentNodes.key, models::persistent_stragglers(s.stragglers, nodes)},
        {st::kProbabilityStepSlowed.key,
         models::probability_step_slowed(s.stragglers.transient_probability, nodes - s.capacity.spare_nodes)}};
  }
  if (s.heterogeneous.any()) {
    namespace he = mr::heterogeneous;
    const long nodes = (s.fleet.gpus + s.fleet.gpus_per_node - 1) / s.fleet.gpus_per_node;
    j[mr::kHeterogeneous.key] = {{he::kAccelerator.key, s.heterogeneous.accelerator},
                                 {he::kNodes.key, std::lround(s.heterogeneous.fraction * static_cast<double>(nodes))},
                                 {he::kSpeed.key, s.heterogeneous.speed},
                                 {he::kPlacement.key, s.heterogeneous.spread ? "spread" : "block"},
                                 {he::kBalance.key, s.heterogeneous.balanced ? "micro_batches" : "none"},
                                 {he::kMeanStepTimeS.key, mean_training_step_time(r)}};
  }
  // Metrics registered from outside the simulator (simulator/metrics/metric_registry.hpp).
  if (ordered_json extra = metrics::registered_values({r.report, r.log, r.step, r.counters, r.seed}); !extra.empty())
    j[ms::kMetrics.key] = std::move(extra);
  // Last, on its own line: the only value that is not a function of scenario and seed.
  j[ms::kWallTimeS.key] = r.wall_time_s;
  return j;
}

void write_timeline_csv(std::ostream& out, const RunResult& r)
{
  CsvBuffer csv(out);
  csv.text("t_begin_s,t_end_s,state,interrupted,productive_s,steps,tokens,goodput,active_gpus,step_time_s,");
  csv.text(kPowerColumns).end_row();
  for (size_t i = 0; i < r.report.timeline.size(); ++i) {
    const models::TimelineRow& row = r.report.timeline[i];
    csv.fixed(row.t_begin).text(",").fixed(row.t_end).text(",").text(models::phase_name(row.phase));
    csv.text(row.interrupted ? ",1," : ",0,").fixed(row.productive_s).text(",").integer(row.steps).text(",");
    csv.fixed(row.tokens, 0).text(",").fixed(row.goodput).text(",").integer(row.active_gpus).text(",");
    csv.fixed(row.step_time).text(",");
    power_cells(csv, r.energy, i);
    csv.end_row();
  }
}

void write_events_csv(std::ostream& out, const RunResult& r)
{
  CsvBuffer csv(out);
  csv.text("time_s,event,cause,component,during,duration_s,outcome,gpus_down").end_row();
  size_t interruption = 0;
  for (const auto& rec : r.log) {
    if (const auto* seg = std::get_if<models::PhaseSegment>(&rec)) {
      if (seg->phase == models::Phase::Training)
        continue;
      csv.fixed(seg->t_begin).text(",").text(models::phase_name(seg->phase)).text(",,,,");
      csv.fixed(seg->t_end - seg->t_begin).text(",");
      csv.text(seg->interrupted ? "interrupted" : seg->window_end ? "window_end" : "completed").text(",").end_row();
    } else if (const auto* in = std::get_if<models::Interruption>(&rec)) {
      const double lost = r.report.lost_per_interruption.at(interruption++);
      csv.fixed(in->t).text(",");
      csv.text(in->reconfiguration ? "reconfiguration" : in->planned ? "planned_interruption" : "failure");
      csv.text(",").text(in->cause).text(",").text(in->component).text(",").text(models::phase_name(in->during));
      csv.text(",").fixed(lost).text(",lost_work,").integer(in->gpus_down).end_row();
    } else if (const auto* c = std::get_if<models::CheckpointCommitted>(&rec); c != nullptr && c->drain_s > 0) {
      // An asynchronous checkpoint's write drained: from its snapshot to now.
      csv.fixed(c->t).text(",checkpoint_drained,,step:").integer(c->step).text(",,").fixed(c->drain_s);
      csv.text(",committed,").end_row();
    } else if (const auto* d = std::get_if<models::CheckpointDiscarded>(&rec)) {
      csv.fixed(d->t).text(",checkpoint_corrupt,,step:").integer(d->step).text(",reload,0.000000,fallback_to_step_");
      csv.integer(d->fallback_step).text(",").end_row();
    }
  }
}

void write_storage_csv(std::ostream& out, const std::vector<StorageSample>& samples)
{
  CsvBuffer csv(out);
  csv.text("time_s,write_Bps,read_Bps,servers_Bps,servers_capacity_Bps,burst_credit_bytes").end_row();
  for (const StorageSample& x : samples) {
    csv.fixed(x.t).text(",").fixed(x.write_bps, 0).text(",").fixed(x.read_bps, 0).text(",");
    csv.fixed(x.servers_bps, 0).text(",").fixed(x.capacity_bps, 0).text(",").fixed(x.credit, 0).end_row();
  }
}

std::string write_outputs(const std::string& dir, const scenario::Scenario& s, const RunResult& r, bool traces)
{
  std::string err = prepare_output_dir(dir);
  if (err.empty())
    err = write_file_atomically(dir, "summary.json", [&](std::ostream& o) { o << summary_json(s, r).dump(2) << '\n'; });
  if (!traces)
    return err;
  if (err.empty())
    err = write_file_atomically(dir, "timeline.csv", [&](std::ostream& o) { write_timeline_csv(o, r); });
  if (err.empty())
    err = write_file_atomically(dir, "events.csv", [&](std::ostream& o) { write_events_csv(o, r); });
  if (err.empty())
    err = write_file_atomically(dir, "storage.csv", [&](std::ostream& o) { write_storage_csv(o, r.storage); });
  return err;
}

void print_run_table(std::ostream& out, const scenario::Scenario& s, const RunResult& r)
{
  const auto& b = r.report.breakdown;
  const double T = r.report.elapsed > 0 ? r.report.elapsed : 1;
  char line[160];
  std::snprintf(line, sizeof line, "%s: %ld GPUs, %.1f days, seed %llu\n", s.name.c_str(), s.fleet.gpus,
                r.report.elapsed / units::kDay, static_cast<unsigned long long>(r.seed));
  out << line;
  std::snprintf(line, sizeof line, "  step %.3f s  MFU %.1f%%  binding: %s\n", r.step.step_time.si(), 100 * r.step.mfu,
                r.step.binding_term.c_str());
  if (s.stragglers.any() || s.heterogeneous.any()) {
    out << line;
    const double mean = mean_training_step_time(r);
    std::snprintf(line, sizeof line, "  stragglers: step %.3f s on average while training (x%.4f)\n", mean,
                  mean / r.step.step_time.si());
  }
  out << line;
  std::snprintf(line, sizeof line, "  interruptions: %ld unexpected, %ld planned; %ld checkpoints\n",
                r.report.unexpected, r.report.planned, r.report.checkpoints);
  out << line;
  if (s.recovery.policy_name != "restart" || s.capacity.tracks_nodes()) {
    std::snprintf(line, sizeof line, "  recovery: %s, %ld spare nodes; %ld swaps, %ld waits for repairs\n",
                  s.recovery.policy_name.c_str(), s.capacity.spare_nodes, r.counters.swaps,
                  r.counters.spares_exhausted);
    out << line;
  }
  std::snprintf(line, sizeof line, "  ETTR %.4f   goodput %.4f   tokens trained %.4g\n", r.report.ettr,
                r.report.goodput_ratio, r.report.tokens);
  out << line;
  out << "  time breakdown        hours   share\n";
  for (const auto& term : models::kBreakdownTerms) {
    const char* name = term.name;
    const double v = b.*term.seconds;
    if (name == std::string_view("waiting") && v == 0)
      continue;
    std::snprintf(line, sizeof line, "    %-16s %9.2f  %5.1f%%\n", name, v / units::kHour, 100 * v / T);
    out << line;
  }
  print_energy_lines(out, r);
  std::snprintf(line, sizeof line, "  wall time %.3f s\n", r.wall_time_s);
  out << line;
}

}  // namespace fleetsim::sim
