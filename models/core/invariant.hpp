#pragma once
// Internal invariants that hold on every run, checked in every build (not the C assert macro: the default
// build is Release). A violation is a bug in fleetsim, never bad input and never a simulated
// failure: the run stops, writes nothing, and the CLI reports it with the scenario and seed and its
// own exit code (tools/cli/commands.hpp, kExitInternal).

#include <cstdint>
#include <stdexcept>
#include <string>

namespace fleetsim::models {

class InvariantViolation : public std::logic_error {
public:
  InvariantViolation(std::string invariant, const std::string& detail)
      : std::logic_error(detail), invariant_(std::move(invariant))
  {}
  /// Short name of the invariant ("phases tile the window").
  [[nodiscard]] const std::string& invariant() const { return invariant_; }
  /// Where it happened, set by the run that caught it on its way out (empty: not known).
  std::string scenario;
  std::uint64_t seed = 0;
  bool has_seed = false;

private:
  std::string invariant_;
};

/// Throws InvariantViolation(invariant, detail()) unless `ok`. `detail` is only called on failure.
template <class Detail>
void check_invariant(bool ok, const char* invariant, Detail&& detail)
{
  if (!ok) [[unlikely]]
    throw InvariantViolation(invariant, detail());
}

}  // namespace fleetsim::models
