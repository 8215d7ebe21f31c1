#pragma once
// Where the run-level replay gets its step time: the analytic fleet law, or one iteration
// simulated on the fabric ("run.step_model"). A simulated step costs seconds at 16k GPUs and needs
// its own SimGrid Engine, so it runs in a forked child before the replay's Engine exists, and the
// result is cached on disk under a key made of every input it depends on.
//
// Cache directory: $FLEETSIM_CACHE_DIR, else $XDG_CACHE_HOME/fleetsim, else $HOME/.cache/fleetsim;
// FLEETSIM_CACHE_DIR=off disables the cache. A cached breakdown is byte-for-byte the one a fresh
// simulation gives (doubles round-trip exactly through the JSON), so the cache never changes a
// result, only how long it takes.

#include "models/step/step_model.hpp"
#include "simulator/scenario/scenario.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace fleetsim::sim {

/// Everything the simulated step depends on, as canonical text (the cache key before hashing).
[[nodiscard]] std::string step_cache_key(const scenario::Scenario& s);

/// The cache directory from the environment ("" when disabled or unknown).
[[nodiscard]] std::string step_cache_dir();

/// Lossless JSON round trip of a breakdown.
[[nodiscard]] nlohmann::ordered_json breakdown_to_json(const models::StepBreakdown& b);
[[nodiscard]] models::StepBreakdown breakdown_from_json(const nlohmann::json& j);

struct ResolvedStep {
  models::StepBreakdown breakdown;
  double checkpoint_write_s = 0;  // simulated: all GPUs writing their state over the fabric (0: not simulated)
  bool from_cache = false;
  double seconds = 0;  // wall time spent obtaining it
};

/// The scenario's step breakdown. Analytic: computed here. Simulated: read from the cache, or
/// simulated in a forked child and cached. Must be called before this process creates an Engine.
/// Throws std::runtime_error if the child fails.
[[nodiscard]] ResolvedStep resolve_step(const scenario::Scenario& s);

}  // namespace fleetsim::sim
