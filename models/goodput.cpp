#include "goodput.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace fleetsim::models {

std::string_view phase_name(Phase p)
{
  switch (p) {
    case Phase::Training: return "training";
    case Phase::Checkpoint: return "checkpoint";
    case Phase::Detection: return "detection";
    case Phase::Restart: return "restart";
    case Phase::Reload: return "reload";
    case Phase::Warmup: return "warmup";
    case Phase::Planned: return "planned";
  }
  return "?";
}

namespace {

double& bucket(TimeBreakdown& b, Phase p)
{
  switch (p) {
    case Phase::Training: return b.productive;  // provisional: reclassified on commit/rollback
    case Phase::Checkpoint: return b.checkpoint;
    case Phase::Detection: return b.detection;
    case Phase::Restart: return b.restart;
    case Phase::Reload: return b.reload;
    case Phase::Warmup: return b.warmup;
    case Phase::Planned: return b.planned;
  }
  return b.planned;
}

// Net progress of the model: committed work plus work since the last commit.
struct Progress {
  double committed_s = 0;
  long committed_steps = 0;
  double pending_s = 0;
  long pending_steps = 0;
};

}  // namespace

GoodputReport account(const TraceLog& log, double step_time, double tokens_per_step)
{
  assert(step_time > 0);
  GoodputReport r;
  Progress p;
  double clock = 0;
  for (const TraceRecord& rec : log) {
    if (const auto* seg = std::get_if<PhaseSegment>(&rec)) {
      assert(std::fabs(seg->t_begin - clock) < 1e-6 && "phase segments must tile the run");
      const double d = seg->t_end - seg->t_begin;
      if (seg->phase == Phase::Training) {
        p.pending_s += d;
        p.pending_steps += seg->steps;
      } else {
        bucket(r.breakdown, seg->phase) += d;
      }
      clock = seg->t_end;
      TimelineRow row;
      row.t_begin = seg->t_begin;
      row.t_end = seg->t_end;
      row.phase = seg->phase;
      row.interrupted = seg->interrupted;
      row.productive_s = p.committed_s + p.pending_s;
      row.steps = p.committed_steps + p.pending_steps;
      row.tokens = row.productive_s / step_time * tokens_per_step;
      row.goodput = seg->t_end > 0 ? row.productive_s / seg->t_end : 0;
      r.timeline.push_back(row);
    } else if (const auto* in = std::get_if<Interruption>(&rec)) {
      r.breakdown.lost_work += p.pending_s;
      r.lost_per_interruption.push_back(p.pending_s);
      p.pending_s = 0;
      p.pending_steps = 0;
      // The interruption happens at the end of the last row: show the rolled-back progress there.
      if (!r.timeline.empty()) {
        TimelineRow& last = r.timeline.back();
        last.productive_s = p.committed_s;
        last.steps = p.committed_steps;
        last.tokens = last.productive_s / step_time * tokens_per_step;
        last.goodput = last.t_end > 0 ? last.productive_s / last.t_end : 0;
      }
      (in->planned ? r.planned : r.unexpected)++;
    } else if (std::get_if<CheckpointCommitted>(&rec) != nullptr) {
      p.committed_s += p.pending_s;
      p.committed_steps += p.pending_steps;
      p.pending_s = 0;
      p.pending_steps = 0;
      r.checkpoints++;
    }
  }
  // The window closes with the pending work still in memory: it counts.
  p.committed_s += p.pending_s;
  p.committed_steps += p.pending_steps;
  r.breakdown.productive = p.committed_s;
  r.elapsed = clock;
  r.ettr = clock > 0 ? r.breakdown.productive / clock : 0;
  // Whole steps only; tokens (from time) include the partial step in flight at the window's end.
  r.steps = p.committed_steps;
  r.tokens = r.breakdown.productive / step_time * tokens_per_step;
  assert(std::fabs(r.breakdown.total() - clock) <= 1e-6 * std::max(1.0, clock));
  return r;
}

}  // namespace fleetsim::models
