#pragma once
// Goodput accounting: a pure function from trace records to ETTR, the time breakdown and the
// goodput trace. Nothing here is accumulated inside actors.
//
// Rules:
//  - training time becomes productive when a checkpoint that covers it commits, or when the run's
//    window closes (the work is still in memory and training continues past the window);
//  - training time that an interruption finds uncommitted (including a partial step) is lost work;
//  - every other phase counts as itself (checkpoint, detection, restart, reload, warmup, planned).
// The breakdown sums to the elapsed time by construction, which `account` asserts.

#include "trace_records.hpp"

#include <vector>

namespace fleetsim::models {

struct TimeBreakdown {
  double productive = 0;
  double checkpoint = 0;
  double detection = 0;
  double restart = 0;
  double reload = 0;
  double warmup = 0;
  double lost_work = 0;
  double planned = 0;
  [[nodiscard]] double total() const
  {
    return productive + checkpoint + detection + restart + reload + warmup + lost_work + planned;
  }
};

/// One row of the goodput trace: one phase segment, with the model's net progress at its end.
struct TimelineRow {
  double t_begin = 0;
  double t_end = 0;
  Phase phase = Phase::Training;
  bool interrupted = false;
  double productive_s = 0;  // net training time in the model at t_end, after any interruption at t_end
  long steps = 0;           // net steps so far
  double tokens = 0;        // net tokens so far
  double goodput = 0;       // productive_s / t_end
};

struct GoodputReport {
  TimeBreakdown breakdown;
  double elapsed = 0;
  double ettr = 0;       // productive / elapsed
  long steps = 0;        // net whole steps trained at the end of the window
  double tokens = 0;     // net tokens trained
  long unexpected = 0;   // unexpected interruptions
  long planned = 0;      // planned interruptions
  long checkpoints = 0;  // committed checkpoints
  std::vector<double> lost_per_interruption;  // lost work of each Interruption record, in order
  std::vector<TimelineRow> timeline;
};

/// `step_time` seconds per step, `tokens_per_step` tokens per step. The records must be in emission
/// (simulated-time) order and their phase segments must tile [0, elapsed].
[[nodiscard]] GoodputReport account(const TraceLog& log, double step_time, double tokens_per_step);

}  // namespace fleetsim::models
