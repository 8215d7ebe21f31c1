#include "interval_policy.hpp"

#include "models/core/check.hpp"

#include "checkpoint_interval.hpp"
#include "models/core/units.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace fleetsim::models {

namespace {

constexpr std::array<std::pair<std::string_view, IntervalPolicyKind>, 4> kNames{{
    {"fixed", IntervalPolicyKind::Fixed},
    {"young", IntervalPolicyKind::Young},
    {"daly", IntervalPolicyKind::Daly},
    {"adaptive", IntervalPolicyKind::Adaptive},
}};

/// True when the failure model predicts failures at all (see the header: +inf or 0 means none).
bool predicts_failures(double mtbf_s) { return std::isfinite(mtbf_s) && mtbf_s > 0.0; }

}  // namespace

std::optional<IntervalPolicyKind> parse_interval_policy(std::string_view name)
{
  for (const auto& [n, kind] : kNames)
    if (n == name)
      return kind;
  return std::nullopt;
}

std::string_view interval_policy_name(IntervalPolicyKind kind)
{
  for (const auto& [n, k] : kNames)
    if (k == kind)
      return n;
  FLEETSIM_CHECK(false, "unknown interval policy kind");
  return "unknown";
}

IntervalPolicy::IntervalPolicy(const IntervalPolicySpec& spec, double checkpoint_cost_s, double known_mtbf_s)
    : spec_(spec), checkpoint_cost_s_(checkpoint_cost_s), known_mtbf_s_(known_mtbf_s)
{
  FLEETSIM_CHECK(checkpoint_cost_s >= 0.0 && std::isfinite(checkpoint_cost_s), "checkpoint cost must be finite, >= 0");
  FLEETSIM_CHECK(!std::isnan(known_mtbf_s) && known_mtbf_s >= 0.0, "known mtbf must be >= 0 (+inf: no failures)");
  FLEETSIM_CHECK(spec.min_s >= 0.0 && spec.max_s >= 0.0, "interval clamp must be >= 0 (0: none)");
  FLEETSIM_CHECK(spec.min_s == 0.0 || spec.max_s == 0.0 || spec.min_s <= spec.max_s, "min_s must not exceed max_s");
  FLEETSIM_CHECK(spec.kind != IntervalPolicyKind::Fixed || spec.fixed_s > 0.0, "fixed interval must be positive");
  FLEETSIM_CHECK(spec.kind != IntervalPolicyKind::Adaptive || spec.prior_weight > 0.0, "prior weight must be positive");
  FLEETSIM_CHECK(spec.kind != IntervalPolicyKind::Adaptive || predicts_failures(spec.prior_mtbf_s),
                 "prior mtbf must be finite and positive");
}

double IntervalPolicy::interval_s() const
{
  switch (spec_.kind) {
    case IntervalPolicyKind::Fixed: return clamped(spec_.fixed_s);
    case IntervalPolicyKind::Young:
    case IntervalPolicyKind::Daly:
      if (!predicts_failures(known_mtbf_s_))
        return clamped(kNoFailureIntervalS);  // max_s when set
      return clamped(formula_interval_s(known_mtbf_s_));
    case IntervalPolicyKind::Adaptive: return clamped(formula_interval_s(estimated_mtbf_s()));
  }
  FLEETSIM_CHECK(false, "unknown interval policy kind");
  return spec_.fixed_s;
}

void IntervalPolicy::observe_exposure(double seconds)
{
  FLEETSIM_CHECK(seconds >= 0.0 && std::isfinite(seconds), "exposure must be finite, >= 0");
  exposure_s_ += seconds;
}

void IntervalPolicy::observe_failure() { ++failures_; }

void IntervalPolicy::set_checkpoint_cost(double seconds)
{
  FLEETSIM_CHECK(seconds >= 0.0 && std::isfinite(seconds), "checkpoint cost must be finite, >= 0");
  checkpoint_cost_s_ = seconds;
}

double IntervalPolicy::estimated_mtbf_s() const
{
  if (spec_.kind != IntervalPolicyKind::Adaptive)
    return known_mtbf_s_;
  // Posterior Gamma(a + n, b + T) on the rate; 1 / its mean.
  const double a = spec_.prior_weight;
  const double b = spec_.prior_weight * spec_.prior_mtbf_s;
  return (b + exposure_s_) / (a + static_cast<double>(failures_));
}

double IntervalPolicy::formula_interval_s(double mtbf_s) const
{
  const units::Seconds delta(checkpoint_cost_s_);
  const units::Seconds mtbf(mtbf_s);
  const double tau = spec_.kind == IntervalPolicyKind::Young ? young_interval(delta, mtbf).si()
                                                             : daly_interval(delta, mtbf).si();
  return std::clamp(tau, kMinFormulaIntervalS, kNoFailureIntervalS);
}

double IntervalPolicy::clamped(double interval_s) const
{
  if (spec_.min_s > 0.0)
    interval_s = std::max(interval_s, spec_.min_s);
  if (spec_.max_s > 0.0)
    interval_s = std::min(interval_s, spec_.max_s);
  return interval_s;
}

}  // namespace fleetsim::models
