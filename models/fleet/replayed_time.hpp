#pragma once
// A replayed job's time in the fleet's terms (JobSpec::replayed): its runtime keeps the single-job
// replay's trace, whose accounting (models/accounting/goodput.hpp) says, second by second of the
// window, what the job did and whom each lost second is charged to. This is the one mapping of
// that vocabulary onto the fleet's ledger: the tokens trained count as productive time at the
// nominal rate, each cause of the replay (a failure cause, the checkpoints, the first start-up,
// the maintenance, the stragglers, ...) is a fleet loss cause of the same name, and the training
// segments are the timeline's training GPUs.

#include "models/accounting/goodput.hpp"

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace fleetsim::models::fleet {

/// The replay's charge before any interruption ("unattributed": the job's first start), which the
/// fleet calls start-up.
inline constexpr const char* kReplayStartup = "unattributed";

/// The replay's causes that a closed-form fleet job never has (its maintenance, stalls, corrupt
/// checkpoints, stragglers, elastic resizes, drained stragglers' restarts): a fleet with a replayed
/// job adds them after its failure causes (FleetConfig::extra_causes), so its columns do not depend
/// on the seed. A cause the replay charges and this list lacks is an invariant violation
/// (FleetState::close_replayed), which tools/golden_as_fleet.py would find on the goldens.
inline constexpr std::array<const char*, 7> kReplayedLossCauses = {
    "planned", "data_stall", "corrupt_checkpoint", "stragglers", "elastic_shrink", "elastic_regrow", "straggler_drain"};

struct TrainingSpan {
  double t_begin = 0;
  double t_end = 0;
  long gpus = 0;  // GPUs training over the span
};

/// Seconds of the job's window (multiply by its GPUs for GPU-seconds).
struct ReplayedTime {
  double productive_s = 0;                               // the tokens trained, at the nominal rate
  std::vector<std::pair<std::string, double>> lost_s;    // the rest, by the replay's cause names
  // Of lost_s, the seconds the job waited in the fleet's queue after a requeue, holding no GPU (the
  // requeue policy): by cause name, in the order of lost_s.
  std::vector<std::pair<std::string, double>> queued_s;
  std::vector<TrainingSpan> training;                    // its training segments
  long interruptions = 0;                                // unexpected ones
  double progress_s = 0;                                 // work at full speed done by the window's end
};

/// The replay's report in the fleet's terms: productive_s + the losses = the report's elapsed time.
[[nodiscard]] ReplayedTime replayed_time(const GoodputReport& report);

}  // namespace fleetsim::models::fleet
