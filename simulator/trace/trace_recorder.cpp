#include "trace_recorder.hpp"

#include "models/invariant.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace fleetsim::sim {

void TraceRecorder::open(models::Phase phase, double t)
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
  open_ = seg;
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
  log_.emplace_back(seg);
  open_.reset();
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
