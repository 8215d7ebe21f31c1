#pragma once
// Closed-form queueing results the fleet simulator is validated against (docs/models/fleet.md).

namespace fleetsim::models::fleet {

/// Pollaczek-Khinchine: mean wait in queue of an M/G/1 queue at utilisation rho = lambda / mu,
/// mean service time `mean_service` and squared coefficient of variation cs2 of the service time:
///   W_q = rho / (1 - rho) * (1 + cs2) / 2 * mean_service.
[[nodiscard]] double pollaczek_khinchine_wait(double rho, double mean_service, double cs2);

/// Erlang C: the probability that an arrival waits in an M/M/c queue with offered load a = lambda / mu
/// (a < c), by the numerically stable Erlang B recursion.
[[nodiscard]] double erlang_c(int c, double a);

/// Mean wait in queue of an M/M/c queue: C(c, a) / (c mu - lambda), with mu = 1 / mean_service.
[[nodiscard]] double erlang_c_wait(int c, double a, double mean_service);

}  // namespace fleetsim::models::fleet
