#include "trace_recorder.hpp"

#include <cassert>
#include <cmath>

namespace fleetsim::sim {

void TraceRecorder::open(models::Phase phase, double t)
{
  assert(!open_ && "a phase is already open");
  models::PhaseSegment seg;
  seg.phase = phase;
  seg.t_begin = t;
  open_ = seg;
}

void TraceRecorder::close(double t, bool interrupted)
{
  assert(open_ && "no phase is open");
  models::PhaseSegment seg = *open_;
  seg.t_end = t;
  seg.interrupted = interrupted;
  if (seg.phase == models::Phase::Training)
    seg.steps = steps_in(t - seg.t_begin);
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

long TraceRecorder::steps_in(double seconds) const
{
  // A relative tolerance absorbs the rounding of deadlines computed as t0 + n * step_time.
  return static_cast<long>(std::floor(seconds / step_time_ * (1 + 1e-12) + 1e-9));
}

}  // namespace fleetsim::sim
