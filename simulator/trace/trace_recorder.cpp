#include "trace_recorder.hpp"

#include "models/core/invariant.hpp"
#include "simulator/logging/logging.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace fleetsim::sim {

void TraceRecorder::open(models::Phase phase, double t, bool queued)
{
  models::check_invariant(!open_, "one phase at a time", [&] {
    return "opening " + std::string(models::phase_name(phase)) + " at " + std::to_string(t) + " s while " +
           std::string(models::phase_name(open_->phase)) + " is open";
  });
  models::PhaseSegment seg;
  seg.phase = phase;
  seg.t_begin = t;
  seg.step_time = step_time_;
  seg.tokens_per_step = tokens_per_step_;
  seg.straggler_factor = straggler_factor_;
  seg.active_gpus = active_gpus_;
  seg.queued = queued;
  open_ = seg;
  if (phase == models::Phase::Training)
    FLEETSIM_LOG(Run, trace, "training at {:.4f} s per step on {} GPUs", step_time_, active_gpus_);
  else if (phase == models::Phase::Checkpoint)
    FLEETSIM_LOG(Checkpoint, debug, "checkpoint begins");
  else
    FLEETSIM_LOG(Scheduler, debug, "{} begins", models::phase_name(phase));
}

void TraceRecorder::close(double t, bool interrupted, long steps)
{
  models::check_invariant(open_.has_value(), "one phase at a time",
                          [&] { return "closing a phase at " + std::to_string(t) + " s, but none is open"; });
  models::PhaseSegment seg = *open_;
  seg.t_end = t;
  seg.interrupted = interrupted;
  if (seg.phase == models::Phase::Training)
    seg.steps = steps >= 0 ? steps : steps_in(seg.t_begin, t);
  if (seg.phase == models::Phase::Training)
    FLEETSIM_LOG(Run, trace, "training {} after {:.3f} s, {} steps", interrupted ? "interrupted" : "ends",
                 t - seg.t_begin, seg.steps);
  else if (seg.phase == models::Phase::Checkpoint)
    FLEETSIM_LOG(Checkpoint, debug, "checkpoint {} after {:.3f} s", interrupted ? "interrupted" : "written",
                 t - seg.t_begin);
  else
    FLEETSIM_LOG(Scheduler, debug, "{} {} after {:.3f} s", models::phase_name(seg.phase),
                 interrupted ? "interrupted" : "ends", t - seg.t_begin);
  log_.emplace_back(seg);
  open_.reset();
}

void TraceRecorder::interruption(models::Interruption rec)
{
  if (rec.planned)
    FLEETSIM_LOG(Scheduler, debug, "{}: {} stops the job",
                 rec.reconfiguration ? "reconfiguration" : "planned interruption", rec.cause);
  else
    FLEETSIM_LOG(Scheduler, debug, "interruption: {} on {} during {} ({} GPUs down){}", rec.cause, rec.component,
                 models::phase_name(rec.during), rec.gpus_down, rec.from_memory ? "; restores from host memory" : "");
  log_.emplace_back(std::move(rec));
}

void TraceRecorder::commit(models::CheckpointCommitted rec)
{
  if (rec.memory)
    FLEETSIM_LOG(Checkpoint, debug, "host-memory snapshots hold step {}", rec.step);
  else
    FLEETSIM_LOG(Checkpoint, debug, "checkpoint committed: step {}, {:.4g} GB", rec.step, rec.bytes / 1e9);
  log_.emplace_back(rec);
}

void TraceRecorder::discard(models::CheckpointDiscarded rec)
{
  FLEETSIM_LOG(Checkpoint, debug, "checkpoint at step {} is corrupt: falling back to step {}", rec.step,
               rec.fallback_step);
  log_.emplace_back(rec);
}

void TraceRecorder::finish(double horizon)
{
  if (!open_)
    return;
  close(horizon, false);
  std::get<models::PhaseSegment>(log_.back()).window_end = true;
}

namespace {

// Rounding slack of a simulated instant t, in seconds: a few ULPs of t, at least 1 ns.
double clock_slack(double t) { return std::max(1e-9, 8 * std::numeric_limits<double>::epsilon() * std::fabs(t)); }

}  // namespace

long TraceRecorder::steps_in(double t_begin, double t_end) const
{
  return static_cast<long>(std::floor((t_end - t_begin + clock_slack(t_end)) / step_time_));
}

bool TraceRecorder::on_step_boundary(double t_begin, double t_end) const
{
  const double elapsed = t_end - t_begin;
  const double whole = static_cast<double>(steps_in(t_begin, t_end)) * step_time_;
  return elapsed <= whole + clock_slack(t_end);
}

}  // namespace fleetsim::sim
