#pragma once
// Optimum checkpoint intervals for exponentially distributed failures.
//   Young (1974):  tau = sqrt(2 delta M)
//   Daly (2006), eq. 37: tau = sqrt(2 delta M) [1 + 1/3 sqrt(delta/(2M)) + 1/9 (delta/(2M))] - delta
//                        for delta < 2M, otherwise tau = M.
// delta: time to write one checkpoint; M: mean time between failures (of the whole job).
// tau is the compute time between the end of one checkpoint and the start of the next.

#include "models/core/units.hpp"

namespace fleetsim::models {

[[nodiscard]] units::Seconds young_interval(units::Seconds delta, units::Seconds mtbf);
[[nodiscard]] units::Seconds daly_interval(units::Seconds delta, units::Seconds mtbf);

/// Daly's expected wall-clock time (eq. 13 / 20 of the 2006 paper) to finish `work` of solve time
/// with interval tau, checkpoint time delta, restart time R and MTBF M:
///   T = M e^{R/M} (e^{(tau+delta)/M} - 1) work / tau.
/// The ratio work / T is the expected fraction of useful time (ETTR) of that model.
[[nodiscard]] double daly_useful_fraction(units::Seconds tau, units::Seconds delta, units::Seconds restart,
                                          units::Seconds mtbf);

}  // namespace fleetsim::models
