#pragma once
// Checkpoint interval policies: how much training time to run between two checkpoints.
//
//   fixed     the scenario's interval, whatever happens
//   young     Young (1974) at the MTBF the scenario's failure model predicts
//   daly      Daly (2006), eq. 37, at that MTBF
//   adaptive  Daly at an MTBF the policy estimates itself from the failures it has seen
//
// Adaptive does not know the failure model. It keeps a Gamma(a, b) belief on the job's failure rate
// lambda, conjugate to exponential inter-arrival times: the prior counts as a = prior_weight
// pseudo-failures over b = prior_weight * prior_mtbf_s pseudo-seconds. After n failures in T seconds
// of exposure the posterior is Gamma(a + n, b + T); the policy uses its mean rate (a + n) / (b + T),
// i.e. the MTBF estimate (b + T) / (a + n), and re-tunes the interval with Daly's formula there. At
// n = 0 and T = 0 this is Daly at prior_mtbf_s; as n grows the prior's weight fades as a / (a + n).
//
// Edge cases, chosen once here:
//   - No failures predicted (known_mtbf_s is +inf, as job_mtbf() returns without causes, or 0, the
//     sentinel some callers use for "none"): young and daly give max_s when it is set, otherwise
//     kNoFailureIntervalS, i.e. no checkpoint for failures' sake within any simulated horizon.
//     Adaptive never needs this fallback: its estimate is finite, it grows with failure-free exposure.
//   - A formula's result is kept within [kMinFormulaIntervalS, kNoFailureIntervalS] (the floor only
//     matters for free checkpoints, delta = 0, where Young and Daly give 0).
//   - min_s / max_s (0 = none) clamp the interval of every kind, fixed included, last.
// Invalid specs (fixed_s <= 0 for fixed, prior_weight <= 0 or a non-finite / non-positive
// prior_mtbf_s for adaptive, min_s > max_s) are the caller's to reject; they are asserted here.
//
// Pure and SimGrid-free: the job's actor reports exposure, failures and the measured checkpoint
// cost, and asks interval_s() when it schedules the next checkpoint.

#include <optional>
#include <string_view>

namespace fleetsim::models {

enum class IntervalPolicyKind { Fixed, Young, Daly, Adaptive };

/// "fixed" | "young" | "daly" | "adaptive" (exactly, lower-case); nullopt otherwise.
[[nodiscard]] std::optional<IntervalPolicyKind> parse_interval_policy(std::string_view name);
/// The inverse of parse_interval_policy().
[[nodiscard]] std::string_view interval_policy_name(IntervalPolicyKind kind);

/// Young and Daly without a predicted failure, and the ceiling of every formula's result (s):
/// about 31.7 years, longer than any simulated run.
inline constexpr double kNoFailureIntervalS = 1e9;
/// The floor of every formula's result (s), so that free checkpoints still give a positive interval.
inline constexpr double kMinFormulaIntervalS = 1.0;

struct IntervalPolicySpec {
  IntervalPolicyKind kind = IntervalPolicyKind::Fixed;
  double fixed_s = 0;           // the interval for Fixed (s)
  double prior_mtbf_s = 0;      // Adaptive: the prior guess of the job's MTBF (s)
  double prior_weight = 2;      // Adaptive: how many failures' worth of evidence the prior counts as (> 0)
  double min_s = 0, max_s = 0;  // optional clamp on the interval (s; 0 = none)
};

/// Chooses the training time between checkpoints. Young and Daly use the MTBF the scenario's
/// failure model predicts (known_mtbf_s); Adaptive does not know it and estimates it (see above).
class IntervalPolicy {
public:
  IntervalPolicy(const IntervalPolicySpec& spec, double checkpoint_cost_s, double known_mtbf_s);

  /// The interval to use now (s), > 0.
  [[nodiscard]] double interval_s() const;
  /// Time the job ran exposed to failures (s, >= 0), e.g. the training since the last report.
  void observe_exposure(double seconds);
  /// One failure seen.
  void observe_failure();
  /// The measured checkpoint cost (delta, s, >= 0) changed.
  void set_checkpoint_cost(double seconds);

  /// Adaptive: the posterior estimate (b + T) / (a + n); the other kinds: known_mtbf_s as given.
  [[nodiscard]] double estimated_mtbf_s() const;
  [[nodiscard]] long failures_seen() const { return failures_; }
  [[nodiscard]] double exposure_s() const { return exposure_s_; }

private:
  [[nodiscard]] double formula_interval_s(double mtbf_s) const;
  [[nodiscard]] double clamped(double interval_s) const;

  IntervalPolicySpec spec_;
  double checkpoint_cost_s_;
  double known_mtbf_s_;
  long failures_ = 0;
  double exposure_s_ = 0;
};

}  // namespace fleetsim::models
