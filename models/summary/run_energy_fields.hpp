#pragma once
// summary.json's "energy" object of a single job's replay (simulator/output/energy_outputs.cpp);
// the keys it shares with a fleet's are in summary_fields.hpp.

#include "models/summary/summary_fields.hpp"

namespace fleetsim::models::summary::run::energy {

using summary::energy::kByComponentMwh;
using summary::energy::kCarbon;
using summary::energy::kFacilityMwh;
using summary::energy::kItMwh;
using summary::energy::kMeanMw;
using summary::energy::kMw;
using summary::energy::kTS;

/// The phases' names (models/accounting/trace_records.hpp kPhases), in that order.
[[nodiscard]] std::vector<std::string> phase_names();
inline constexpr Field kByPhaseMwh =
    map("by_phase_mwh", Type::Number, "MWh", "the facility's energy by the job's phase").keyed_by(phase_names);
inline constexpr Field kJoulesPerToken =
    number("joules_per_token", "J", "facility energy per net token trained (null: no token)").or_null();

namespace peak {
inline constexpr Field kPhase = string("phase", "the job's phase then");
inline constexpr const Field* kFields[] = {&kMw, &kTS, &kPhase};
}  // namespace peak
inline constexpr Field kPeakMw = object("peak_mw", peak::kFields, "the highest power over a timeline row");
inline constexpr Field kPeakInstantMw = number("peak_instant_mw", "MW", "the highest instantaneous power");
inline constexpr Field kStepSwingMw = number("step_swing_mw", "MW",
                                             "the swing inside a training step (compute against communicate)");
inline constexpr Field kComputeFraction = number("compute_fraction", "", "the step's share spent computing");

namespace step_bytes {
inline constexpr Field kScaleUp = number("scale_up", "B", "bytes per GPU per step over the scale-up fabric");
inline constexpr Field kScaleOut = number("scale_out", "B", "bytes per GPU per step over the scale-out fabric");
inline constexpr const Field* kFields[] = {&kScaleUp, &kScaleOut};
}  // namespace step_bytes
inline constexpr Field kStepBytesPerGpu = object("step_bytes_per_gpu", step_bytes::kFields, "a step's traffic");

namespace swing {
inline constexpr Field kDeltaMw = number("delta_mw", "MW", "the change of power");
inline constexpr Field kFrom = string("from", "the phase before");
inline constexpr Field kTo = string("to", "the phase after");
inline constexpr Field kCause = string("cause", "what changed the phase");
inline constexpr const Field* kFields[] = {&kTS, &kDeltaMw, &kFrom, &kTo, &kCause};
}  // namespace swing
namespace swing_cause {
inline constexpr Field kCount = integer("count", "swings of this cause");
inline constexpr Field kMaxMw = number("max_mw", "MW", "the largest, either way");
inline constexpr Field kTMaxS = number("t_max_s", "s", "when");
inline constexpr Field kMaxRampMwPerS = number("max_ramp_mw_per_s", "MW/s", "the fastest ramp");
inline constexpr const Field* kFields[] = {&kCount, &kMaxMw, &kTMaxS, &kMaxRampMwPerS};
}  // namespace swing_cause
namespace swings {
inline constexpr Field kLargest = array_of_objects("largest", swing::kFields, "the largest swings, largest first");
inline constexpr Field kByCause = map_of_objects("by_cause", swing_cause::kFields, "the swings by cause");
inline constexpr const Field* kFields[] = {&kLargest, &kByCause};
}  // namespace swings
inline constexpr Field kSwings = object("swings", swings::kFields, "the facility's power swings");

namespace ramp {
inline constexpr Field kMwPerS = number("mw_per_s", "MW/s", "the fastest change of power");
inline constexpr Field kCause = string("cause", "what changed the phase");
inline constexpr Field kRampTimeS = number("ramp_time_s", "s", "power.ramp_time");
inline constexpr const Field* kFields[] = {&kMwPerS, &kTS, &kCause, &kRampTimeS};
}  // namespace ramp
inline constexpr Field kFastestRamp = object("fastest_ramp", ramp::kFields, "the fastest ramp of power");
inline constexpr Field kPue = number("pue", "", "power.pue");
inline constexpr Field kGpuPowerLimitW = number("gpu_power_limit_w", "W", "power.gpu_power_limit (if set)").optional();
inline constexpr Field kComputeSpeed = number("compute_speed", "", "the GPUs' speed under the power limit");
inline constexpr Field kPowerFloorW = number("power_floor_w", "W", "power.power_floor (if set)").optional();
inline constexpr Field kRestartStaggerS = number("restart_stagger_s", "s", "power.restart_stagger (if set)").optional();
inline constexpr Field kCarbonIfGiven = kCarbon.optional();  // with a grid profile or embodied carbon

inline constexpr const Field* kFields[] = {
    &kFacilityMwh,    &kItMwh,        &kByComponentMwh,  &kByPhaseMwh,      &kJoulesPerToken, &kMeanMw,      &kPeakMw,
    &kPeakInstantMw,  &kStepSwingMw,  &kComputeFraction, &kStepBytesPerGpu, &kSwings,         &kFastestRamp, &kPue,
    &kGpuPowerLimitW, &kComputeSpeed, &kPowerFloorW,     &kRestartStaggerS, &kCarbonIfGiven};

}  // namespace fleetsim::models::summary::run::energy

namespace fleetsim::models::summary::run {
inline constexpr Field kEnergy = object(summary::energy::kKey, energy::kFields,
                                        "the facility's energy, power and carbon");
}  // namespace fleetsim::models::summary::run
