#pragma once
// The replay's energy account checked against a second, independent computation (every build).
//
// account_energy() builds each row's draw with draw() (models/energy/power_model.*), whose facility
// total is the sum of its components by definition: comparing the two can never fail. This check
// recomputes every row from the inputs alone, without draw(), PowerDraw::it() or facility():
//   GPUs by state   from the row's phase and active GPUs, the GPUs an unexpected failure took down
//                   (walked in the trace's order, not by time as the account does), the cluster's
//                   GPUs and a staggered restart's ramp;
//   their draw      each count x its state's draw under the power limit (power.gpu.*), the floor's
//                   extra for the job's GPUs while its processes run;
//   nodes           the powered nodes (the cluster's GPUs not off, per node) x power.node;
//   network         scale-up and scale-out bytes per second x their pJ/bit;
//   storage         the fixed draw plus the row's mean load (its own walk of the storage rates) x J/B;
//   overhead        (PUE - 1) x the IT draw summed here; facility: PUE x that IT draw.
// It then compares, per row: the account's GPU counts, their sum against the cluster's GPUs (the
// closure: no GPU in no state or in two) and each state against the expected one; the draw's
// components; the cumulative energy. Over the run: each component's energy, the facility's, the
// mean and the peak.
//
// Tolerance, relative 1e-9. Both sides add the same non-negative terms in a different order, so they
// differ by rounding only: at most about (terms added) x 2^-53 relative, ~1e-15 for a row and
// N x 1.1e-16 for a sum over N rows (2e-12 at the Llama 3 replay's 16,056 rows, 1e-10 at a million).
// Per row, the differences of the counts are summed against the cluster, and those of the components
// against the facility's draw (one comparison each, which keeps the check under 1% of a replay's
// instructions): a row's component is caught when it is off by 1e-9 of the row's facility draw. Over
// the run, each component is compared against itself: a component off in every row (what a wrong
// formula or input does) is caught at 1e-9 of that component, however small.

#include "energy_account.hpp"

namespace fleetsim::models::energy {

/// Throws InvariantViolation("energy accounting closes") unless the account `e` of `report` and
/// `log` under `in` matches the independent computation above. account_energy() calls it on every
/// account it returns; tests hand it accounts with one term broken.
void check_energy_account(const EnergyReport& e, const GoodputReport& report, const TraceLog& log,
                          const ReplayPower& in);

}  // namespace fleetsim::models::energy
