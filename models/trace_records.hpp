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
};

[[nodiscard]] std::string_view phase_name(Phase p);

/// A phase that lasted from t_begin to t_end. Emitted when the phase ends.
struct PhaseSegment {
  double t_begin = 0;
  double t_end = 0;
  Phase phase = Phase::Training;
  long steps = 0;            // training steps completed inside (Training only)
  bool interrupted = false;  // ended by an interruption rather than by completing
  bool window_end = false;   // still running when the simulated window closed
};

/// An unexpected failure or a planned interruption. Training since the last committed checkpoint
/// is lost (for a planned interruption preceded by a checkpoint, that is nothing).
struct Interruption {
  double t = 0;
  bool planned = false;
  std::string cause;      // failure cause name, or "planned"
  std::string component;  // "gpu:1234", "node:17", "rack:3", "job"
  Phase during = Phase::Training;
  long first_gpu = 0;     // the failure's blast radius: GPUs [first_gpu, first_gpu + gpus_down)
  long gpus_down = 0;     // 0 for a planned interruption
};

/// A checkpoint whose write completed: the job can restart from `step`.
struct CheckpointCommitted {
  double t = 0;
  long step = 0;
  double bytes = 0;
};

using TraceRecord = std::variant<PhaseSegment, Interruption, CheckpointCommitted>;
using TraceLog = std::vector<TraceRecord>;

}  // namespace fleetsim::models
