#pragma once
// Typed trace records: what the run-level simulation emits, in simulated-time order. Sinks turn them
// into files; goodput accounting (goodput.hpp) turns them into ETTR and the time breakdown. Records
// carry simulated seconds since the start of the run.

#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace fleetsim::models {

/// What the job is doing during a stretch of simulated time. Every instant of the run belongs to
/// exactly one phase.
enum class Phase {
  Training,    // running steps
  Checkpoint,  // training stalled while the checkpoint is written
  Detection,   // the job is hung or dead and nobody knows yet
  Restart,     // rescheduling, re-initialisation, rendezvous
  Reload,      // reading the last checkpoint from storage
  Warmup,      // first slow steps after a restart: no useful progress counted
  Planned,     // planned maintenance (firmware, configuration, dataset updates)
  Waiting,     // too few healthy nodes to run: waiting for the repair pipeline
  DataStall,   // ready to step, but the data loader has not delivered the step's batch
};

/// Every phase, in the order of the enum (timelines, reports).
inline constexpr Phase kPhases[] = {Phase::Training, Phase::Checkpoint, Phase::Detection,
                                    Phase::Restart,  Phase::Reload,     Phase::Warmup,
                                    Phase::Planned,  Phase::Waiting,    Phase::DataStall};

/// The phase's name in timeline.csv, events.csv and the reports: the one place it is spelled.
[[nodiscard]] std::string_view phase_name(Phase p);

/// A phase that lasted from t_begin to t_end. Emitted when the phase ends.
struct PhaseSegment {
  double t_begin = 0;
  double t_end = 0;
  Phase phase = Phase::Training;
  long steps = 0;            // training steps completed inside (Training only)
  bool interrupted = false;  // ended by an interruption rather than by completing
  bool window_end = false;   // still running when the simulated window closed
  // The job's state during the segment (0: the values given to account()).
  double step_time = 0;         // seconds per step, stragglers included
  double tokens_per_step = 0;   // tokens per step at the job's current size
  double straggler_factor = 1;  // step_time over the same job's step without stragglers
  long active_gpus = 0;         // GPUs holding the job's ranks
  bool queued = false;          // Waiting: the job gave its nodes back and waits to be placed (it holds none)
};

/// An unexpected failure or a planned interruption. Training since the last committed checkpoint
/// is lost (for a planned interruption preceded by a checkpoint, that is nothing).
struct Interruption {
  double t = 0;
  bool planned = false;
  std::string cause;      // failure cause name, or "planned"
  std::string component;  // "gpu:1234", "node:17", "rack:3", "job"
  Phase during = Phase::Training;
  long first_gpu = 0;            // the failure's blast radius: GPUs [first_gpu, first_gpu + gpus_down)
  long gpus_down = 0;            // 0 for a planned interruption
  bool from_memory = false;      // the job restores from host-memory copies, not from storage
  bool reconfiguration = false;  // a planned resize (elastic growth), not maintenance
};

/// A checkpoint whose write completed: the job can restart from `step`.
/// A commit saves all pending training except the last `uncommitted_s` (and `uncommitted_steps`
/// whole steps), trained after the state was captured: a host-memory snapshot (in_memory recovery),
/// emitted when a failure leaves the snapshots usable, for the training since the last snapshot; an
/// asynchronous checkpoint, whose write drained in the background while training went on.
struct CheckpointCommitted {
  double t = 0;
  long step = 0;
  double bytes = 0;
  bool memory = false;
  double uncommitted_s = 0;
  long uncommitted_steps = 0;
  double drain_s = 0;  // asynchronous: from the snapshot to the end of its write (0: synchronous)
};

/// A restore found the newest checkpoint (at `step`) corrupt: it is discarded, and the job restores
/// from the one before, at `fallback_step`. The training between them is lost.
struct CheckpointDiscarded {
  double t = 0;
  long step = 0;
  long fallback_step = 0;
};

using TraceRecord = std::variant<PhaseSegment, Interruption, CheckpointCommitted, CheckpointDiscarded>;
using TraceLog = std::vector<TraceRecord>;

}  // namespace fleetsim::models
