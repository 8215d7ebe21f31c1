#pragma once
// summary.json's fields that both kinds of run write (a single job's replay and a fleet's): what the
// run was, the energy and carbon accounts, the memory check, the registered metrics, the wall time.
// Each kind's own fields are in run_summary_fields.hpp and fleet_summary_fields.hpp.

#include "models/summary/summary_field.hpp"

namespace fleetsim::models::summary {

inline constexpr Field kScenario = string("scenario", "the scenario's name");
inline constexpr Field kUnusedKeys = map("unused_keys", Type::String, "",
                                         "each key the scenario gives that the run did not read, with why and where");
inline constexpr Field kSeed = integer("seed", "the run's root seed");
inline constexpr Field kMetrics = map("metrics", Type::Number, "",
                                      "metrics registered from outside the simulator, by name (null: no value)")
                                      .or_null()
                                      .optional();
/// The only value that is not a function of scenario and seed; always last.
inline constexpr Field kWallTimeS = number("wall_time_s", "s", "the run's wall-clock time");

/// accelerator.memory_check's figures (models/step/memory_model.hpp), on the layout's largest stage.
namespace memory {
inline constexpr Field kStage = integer("stage", "the pipeline stage the figures are for (the largest)");
inline constexpr Field kWeightsGb = number("weights_gb", "GB", "weights per GPU");
inline constexpr Field kGradientsGb = number("gradients_gb", "GB", "gradients per GPU");
inline constexpr Field kOptimizerGb = number("optimizer_gb", "GB", "optimizer state per GPU");
inline constexpr Field kActivationsGb = number("activations_gb", "GB", "activations per GPU at the peak");
inline constexpr Field kTotalGb = number("total_gb", "GB", "the sum of the terms");
inline constexpr Field kCapacityGb = number("capacity_gb", "GB", "the accelerator's memory");
inline constexpr Field kBiggestTerm = string("biggest_term", "the largest term's name");
inline constexpr const Field* kFields[] = {&kStage,         &kWeightsGb, &kGradientsGb, &kOptimizerGb,
                                           &kActivationsGb, &kTotalGb,   &kCapacityGb,  &kBiggestTerm};
}  // namespace memory
inline constexpr Field kMemory =
    object("memory", memory::kFields, "HBM per GPU by term against the capacity (when accelerator.memory_check is on)")
        .optional();

/// Carbon: operational over the grid's profile, embodied amortised over the window.
namespace carbon {
inline constexpr Field kIntensityProfile =
    string("intensity_profile", "the grid's carbon intensity file (a fleet: null without one)").optional().or_null();
inline constexpr Field kOperationalT =
    number("operational_t", "t", "operational carbon over the grid's profile (with a profile)").optional();
inline constexpr Field kMeanIntensityGPerKwh =
    number("mean_intensity_g_per_kwh", "g/kWh", "the energy-weighted mean intensity (with a profile)").optional();
inline constexpr Field kEmbodiedT = number("embodied_t", "t", "the hardware's embodied carbon over the window");
inline constexpr Field kTotalT = number("total_t", "t", "operational and embodied");
inline constexpr Field kGPerMillionTokens =
    number("g_per_million_tokens", "g", "carbon per million tokens trained (a single job that trained)").optional();
inline constexpr const Field* kFields[] = {&kIntensityProfile, &kOperationalT, &kMeanIntensityGPerKwh,
                                           &kEmbodiedT,        &kTotalT,       &kGPerMillionTokens};
}  // namespace carbon

/// Energy and power (models/energy/): the keys a replay and a fleet share, so one metric reads both.
namespace energy {
inline constexpr const char* kKey = "energy";  // a replay's object (run_energy_fields.hpp) and a fleet's
/// by_component_mwh's keys beyond the GPU's states ("gpu_<state>": models/energy/power_model.hpp).
namespace component {
inline constexpr const char* kGpuPrefix = "gpu_";
inline constexpr const char* kPowerFloor = "power_floor";
inline constexpr const char* kNode = "node";
inline constexpr const char* kNetwork = "network";
inline constexpr const char* kStorage = "storage";
inline constexpr const char* kOverhead = "overhead";
}  // namespace component
/// Every key of by_component_mwh, in the order the summary writes them.
[[nodiscard]] std::vector<std::string> component_names();

inline constexpr Field kFacilityMwh = number("facility_mwh", "MWh", "the facility's energy over the window");
inline constexpr Field kItMwh = number("it_mwh", "MWh", "the IT equipment's energy (the facility's without the PUE)");
inline constexpr Field kByComponentMwh =
    map("by_component_mwh", Type::Number, "MWh", "the facility's energy by component").keyed_by(component_names);
inline constexpr Field kMeanMw = number("mean_mw", "MW", "the facility's mean power");
inline constexpr Field kTS = number("t_s", "s", "when (simulated time)");
inline constexpr Field kMw = number("mw", "MW", "the facility's power");
inline constexpr Field kCarbon = object("carbon", carbon::kFields, "carbon accounts");
}  // namespace energy

}  // namespace fleetsim::models::summary
