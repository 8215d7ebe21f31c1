#pragma once
// Goodput accounting: a pure function from trace records to ETTR, the time breakdown and the
// goodput trace. Nothing here is accumulated inside actors.
//
// Rules:
//  - training time becomes productive when a checkpoint that covers it commits, or when the run's
//    window closes (the work is still in memory and training continues past the window);
//  - training time that an interruption finds uncommitted (including a partial step) is lost work;
//  - every other phase counts as itself (checkpoint, detection, restart, reload, warmup, planned,
//    waiting);
//  - with in-memory snapshots, a failure that leaves them usable rolls back to the last snapshot;
//    one that does not rolls back to the last checkpoint in storage, snapshots since included.
// The breakdown sums to the elapsed time by construction (every second of training is moved, never
// copied, between pending, memory, stored, productive and lost), which `account` checks, with each
// phase's term against the timeline's rows (check_time_accounting).
//
// Attribution: `goodput_s` is the training time the tokens trained would take on the uniform, full
// fleet (tokens / nominal rate). Everything else of the elapsed time is charged to one cause:
// each failure cause gets the work it destroyed plus the recovery phases that follow it (until the
// next interruption), "planned" the maintenance, "checkpoint" the checkpoint stalls, "stragglers"
// and "elastic_shrink" the committed training time lost to a slower step or a smaller job. The
// causes sum to elapsed - goodput_s, which `account` checks too.

#include "trace_records.hpp"

#include <array>
#include <map>
#include <optional>
#include <string>
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
  double waiting = 0;
  double data_stall = 0;
  [[nodiscard]] double total() const
  {
    return productive + checkpoint + detection + restart + reload + warmup + lost_work + planned + waiting + data_stall;
  }
};

/// The terms of the time breakdown, in the order summary.json, the run table and the sweep's
/// columns list them: the one declaration of their names.
struct BreakdownTerm {
  const char* name;
  double TimeBreakdown::*seconds;
};
inline constexpr std::array<BreakdownTerm, 10> kBreakdownTerms = {{
    {"productive", &TimeBreakdown::productive},
    {"checkpoint", &TimeBreakdown::checkpoint},
    {"detection", &TimeBreakdown::detection},
    {"restart", &TimeBreakdown::restart},
    {"reload", &TimeBreakdown::reload},
    {"warmup", &TimeBreakdown::warmup},
    {"lost_work", &TimeBreakdown::lost_work},
    {"planned", &TimeBreakdown::planned},
    {"waiting", &TimeBreakdown::waiting},
    {"data_stall", &TimeBreakdown::data_stall},
}};

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
  long active_gpus = 0;     // GPUs in the job during the segment
  double step_time = 0;     // the job's step time during the segment
};

struct GoodputReport {
  TimeBreakdown breakdown;
  double elapsed = 0;
  double ettr = 0;                              // productive / elapsed
  long steps = 0;                               // net whole steps trained at the end of the window
  double tokens = 0;                            // net tokens trained
  long unexpected = 0;                          // unexpected interruptions
  long planned = 0;                             // planned interruptions
  long checkpoints = 0;                         // committed checkpoints (to storage)
  long reconfigurations = 0;                    // planned resizes (elastic growth)
  long corrupt_checkpoints = 0;                 // checkpoints a restore found corrupt and fell back from
  double goodput_s = 0;                         // tokens / nominal tokens per second: training at full, uniform speed
  double goodput_ratio = 0;                     // goodput_s / elapsed
  std::map<std::string, double> lost_by_cause;  // elapsed - goodput_s, by cause (see the header)
  // Of lost_by_cause, the seconds the job waited in its cluster's queue holding no node (requeued,
  // PhaseSegment::queued): lost to the job, but no GPU's.
  std::map<std::string, double> queued_by_cause;
  std::vector<double> lost_per_interruption;    // lost work of each Interruption record, in order
  std::vector<TimelineRow> timeline;
};

/// Nominal rate: `step_time` seconds per step (the uniform full fleet), `tokens_per_step` tokens per
/// step; training segments that carry their own step time and tokens per step use those. The records
/// must be in emission (simulated-time) order and their phase segments must tile the job's window,
/// from `start` (when it started: a fleet's job may start late) to `start + elapsed`.
[[nodiscard]] GoodputReport account(const TraceLog& log, double step_time, double tokens_per_step, double start = 0);

/// The time accounting's invariants, which `account` checks on every report it returns (tests hand
/// it broken ones); each throws InvariantViolation:
///  - "the time breakdown fills the window": the terms sum to `elapsed` (the last segment's end);
///  - "the time breakdown matches the timeline": each phase's term equals its rows' durations, and
///    productive + lost_work the training rows' (rows cannot tell kept training from lost);
///  - "every lost second is attributed": goodput_s (from tokens) + the losses by cause = `elapsed`;
///  - "productive time matches the tokens trained": productive (seconds of training kept) =
///    goodput_s + the stragglers' and the shrink's losses (the split the timeline cannot make).
/// Tolerance 1e-9 of `elapsed` (1e-8 for the last two, as the attribution drops residues below 1e-9):
/// the shipped scenarios are within 1e-13. ("phases tile the window", the segments' own invariant,
/// is checked by `account` as it reads them.)
void check_time_accounting(const GoodputReport& r);

/// When the job has trained `target` tokens for good: the last time the net tokens (lost work
/// already taken back) rose through the target and never fell below it again, interpolated within
/// the training segment. nullopt if the window ended below the target.
[[nodiscard]] std::optional<double> time_to_tokens(const std::vector<TimelineRow>& timeline, double target);

}  // namespace fleetsim::models
