#include "case_metrics.hpp"

#include "models/checkpoint/checkpoint_interval.hpp"
#include "models/network/collectives.hpp"
#include "models/step/stragglers.hpp"
#include "models/summary/fleet_summary_fields.hpp"
#include "models/summary/run_summary_fields.hpp"
#include "simulator/metrics/metric_registry.hpp"

namespace fleetsim::validation {

namespace {

// HFU from the scenario's hardware FLOPs rather than the breakdown's: a simulated step comes back
// from its child process (or the step cache) without them.
double hfu(const models::StepBreakdown& b, const scenario::Scenario& s)
{
  return b.flops_per_token > 0 ? b.mfu * models::hardware_flops_per_token(s.step.workload) / b.flops_per_token : 0.0;
}

// Hardware FLOPs per step as Narayanan et al. 2021 count them (their eq. 3, from the layer shapes,
// not the rounded parameter count): per layer and sequence a forward of 24 s h^2 + 4 s^2 h, run
// three times (forward, two in the backward) plus once more with full recomputation; the attention
// core (4 s^2 h) once more with selective recomputation; the logits (2 s h V) three times. With
// full recomputation this is 96 B s l h^2 (1 + s/6h + V/16lh).
double megatron_hardware_flops(const models::Workload& w)
{
  const double s = w.sequence_length;
  const double h = w.hidden;
  const double sequences = w.global_batch_tokens / s;
  const double core = 4.0 * s * s * h;
  const double layer = 24.0 * s * h * h + core;
  double per_layer = 3.0 * layer;
  if (w.recompute == models::Recompute::Full)
    per_layer += layer;
  else if (w.recompute == models::Recompute::Selective)
    per_layer += core;
  return sequences * (w.layers * per_layer + 3.0 * 2.0 * s * h * w.vocabulary);
}

}  // namespace

const std::vector<StepMetric>& step_metrics()
{
  static const std::vector<StepMetric> table = {
      {"mfu", "%", "model FLOPs utilisation: model FLOPs per second per GPU over the peak",
       [](const models::StepBreakdown& b, const scenario::Scenario&) { return 100 * b.mfu; }},
      {"hfu", "%",
       "hardware FLOPs utilisation: hardware FLOPs (recomputation included) per second per GPU over the peak",
       [](const models::StepBreakdown& b, const scenario::Scenario& s) { return 100 * hfu(b, s); }},
      {"tflops_per_gpu", "TFLOP/s",
       "hardware FLOPs per second per GPU (HFU x peak), what papers that count recomputation report",
       [](const models::StepBreakdown& b, const scenario::Scenario& s) {
         return hfu(b, s) * s.step.accelerator.peak_flops.si() / 1e12;
       }},
      {"megatron_tflops_per_gpu", "TFLOP/s",
       "hardware FLOPs per second per GPU counted as Narayanan et al. 2021 eq. 3 counts them (from l, h, s, V "
       "and the recomputation mode: 96 B s l h^2 (1 + s/6h + V/16lh) with full recomputation)",
       [](const models::StepBreakdown& b, const scenario::Scenario& s) {
         const double t = b.step_time.si() * static_cast<double>(s.fleet.gpus);
         return t > 0 ? megatron_hardware_flops(s.step.workload) / t / 1e12 : 0.0;
       }},
      {"step_time_s", "s", "the training step's time",
       [](const models::StepBreakdown& b, const scenario::Scenario&) { return b.step_time.si(); }, false},
      {"tokens_per_s_per_gpu", "tok/s", "training tokens per second per GPU: the batch's tokens over the step time "
                                         "and the GPUs (no FLOP convention involved)",
       [](const models::StepBreakdown& b, const scenario::Scenario& s) {
         const double t = b.step_time.si() * static_cast<double>(s.fleet.gpus);
         return t > 0 ? b.tokens_per_step / t : 0.0;
       }},
  };
  return table;
}

double step_time_error(const StepMetric& m, double published, double simulated)
{
  return m.throughput ? published / simulated - 1.0 : simulated / published - 1.0;
}

const StepMetric* find_step_metric(std::string_view name)
{
  for (const auto& m : step_metrics())
    if (name == m.name)
      return &m;
  return nullptr;
}

namespace {

using units::Dimension;
using Params = std::map<std::string, double>;

double daly_minutes(const Params& p)
{
  return models::daly_interval(units::Seconds{p.at("delta")}, units::Seconds{p.at("mtbf")}).si() / 60;
}

double ring_allreduce_ms(const Params& p)
{
  const models::AlphaBeta link{units::Seconds{p.at("alpha")}, units::BytesPerSecond{p.at("beta")}};
  return 1e3 * models::ring_allreduce_time(units::Bytes{p.at("size")}, static_cast<int>(p.at("ranks")), link).si();
}

double ring_allreduce_gb_per_rank(const Params& p)
{
  return models::ring_allreduce_bytes_per_rank(units::Bytes{p.at("size")}, static_cast<int>(p.at("ranks"))).si() / 1e9;
}

// One worker persistently at slow_speed; every clock at full speed; no transient stragglers.
double straggler_factor(const Params& p)
{
  models::StragglerSpec spec;
  const auto workers = static_cast<long>(p.at("workers"));
  spec.persistent_fraction = 1.0 / static_cast<double>(workers);
  spec.persistent_speed = p.at("slow_speed");
  return models::step_factor(spec, workers, p.at("compute_fraction"), p.at("slow_speed"), 1.0);
}

double tail_percent(const Params& p)
{
  return 100 * models::probability_step_slowed(p.at("probability"), static_cast<long>(p.at("workers")));
}

}  // namespace

const std::vector<FormulaCheck>& formula_checks()
{
  static const std::vector<FormulaCheck> table = {
      {"daly_interval",
       "min",
       "models::daly_interval: Daly's (2006) higher-order optimum checkpoint interval",
       {{"delta", Dimension::Time, "checkpoint write time"}, {"mtbf", Dimension::Time, "mean time between failures"}},
       daly_minutes},
      {"ring_allreduce_time",
       "ms",
       "models::ring_allreduce_time: ring all-reduce under the alpha-beta model",
       {{"size", Dimension::Bytes, "bytes reduced"},
        {"ranks", std::nullopt, "ranks in the ring"},
        {"alpha", Dimension::Time, "per-message latency"},
        {"beta", Dimension::Bandwidth, "per-rank bandwidth"}},
       ring_allreduce_ms},
      {"ring_allreduce_bytes_per_rank",
       "GB",
       "models::ring_allreduce_bytes_per_rank: bytes each rank sends",
       {{"size", Dimension::Bytes, "bytes reduced"}, {"ranks", std::nullopt, "ranks in the ring"}},
       ring_allreduce_gb_per_rank},
      {"straggler_step_factor",
       "x",
       "models::step_factor: step time over a uniform fleet's with one persistent straggler under a barrier",
       {{"workers", std::nullopt, "workers (nodes) in the synchronous step"},
        {"slow_speed", std::nullopt, "the straggler's speed, a fraction of nominal"},
        {"compute_fraction", std::nullopt, "share of the step that scales with the slowest worker"}},
       straggler_factor},
      {"tail_at_scale",
       "%",
       "models::probability_step_slowed: a fan-out waits for any slow worker",
       {{"probability", std::nullopt, "probability that one worker is slow"},
        {"workers", std::nullopt, "workers fanned out to"}},
       tail_percent},
  };
  return table;
}

const FormulaCheck* find_formula_check(std::string_view name)
{
  for (const auto& c : formula_checks())
    if (name == c.name)
      return &c;
  return nullptr;
}

std::optional<std::string> replay_metric_unit(const std::string& metric)
{
  if (metric.rfind(kSummaryPrefix, 0) == 0 && metric.size() > kSummaryPrefix.size()) {
    // A path summary.json declares (models/summary/), in either kind of summary.
    namespace ms = models::summary;
    const std::string_view path = std::string_view(metric).substr(kSummaryPrefix.size());
    if (ms::find_path(ms::run::fields(), path) == nullptr && ms::find_path(ms::fleet::fields(), path) == nullptr)
      return std::nullopt;
    return std::string();
  }
  if (const metrics::Metric* m = metrics::find_metric(metric))
    return m->unit;
  return std::nullopt;
}

}  // namespace fleetsim::validation
