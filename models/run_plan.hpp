#pragma once
// Small run-level rules the actors follow, kept here so that no formula lives in an actor.

#include "failure_model.hpp"
#include "units.hpp"

namespace fleetsim::models {

/// Steps between checkpoints: the interval rounded to whole steps, at least one.
[[nodiscard]] long steps_per_checkpoint(units::Seconds interval, units::Seconds step_time);

/// Time of the k-th (0-based) of evenly spaced events at `rate` per second: (k + 1/2) / rate.
[[nodiscard]] double uniform_arrival_time(long k, double rate);

/// Events per second of a count given over a window (planned interruptions: 47 per 54 days).
[[nodiscard]] double rate_per_second(double count, units::Seconds window);

/// Uncontended time of one blocking checkpoint: fixed overhead + bytes / write bandwidth (delta).
[[nodiscard]] units::Seconds checkpoint_write_time(units::Bytes bytes, units::BytesPerSecond write_bandwidth,
                                                   units::Seconds overhead);

/// The detection delay of a cause: its own; else the watchdog timeout for a hang; else the default.
[[nodiscard]] units::Seconds detection_delay(const FailureCause& cause, units::Seconds fallback,
                                             units::Seconds watchdog = units::Seconds(0));

/// Component label of the i-th component of a scope: "gpu:1234", "node:17", "rack:3", "job".
[[nodiscard]] std::string component_label(Scope scope, long index);

}  // namespace fleetsim::models
