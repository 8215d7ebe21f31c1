#pragma once
// The one declaration of every scenario parameter: dotted key, kind, unit dimension, default,
// valid range and description. The loader, `fleetsim describe` and docs/scenario-reference.md all
// read this table; nothing else declares a parameter or a default.
//
// A key segment written "<name>" is a wildcard: `failures.causes.<name>.count` declares the count
// of every named failure cause.

#include "models/core/units.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fleetsim::scenario {

struct Scenario;
namespace detail {
class Reader;
}

/// Where a key's value goes in the Scenario: the builder's one loop calls `read` for every key that
/// has one, and `show` prints the field (a test checks that the structs' own defaults are the
/// declared ones). Set by ParamSpec::into (parameter_specs.hpp); keys whose value needs other keys
/// (derived defaults, cross-key rules) are read by their section's builder instead.
struct Binding {
  std::function<void(Scenario&, detail::Reader&, const std::string& key)> read;
  std::function<std::string(const Scenario&)> show;
};

enum class Kind { Int, Float, Bool, String, Enum, Quantity };

/// Which runs a parameter reaches: a single job's replay, a fleet (a scenario with `workload`), or
/// both. A scenario that gives a key its kind of run does not model is refused (exit 2, at the key),
/// never silently ignored.
enum class Applies { Both, Job, Fleet };

struct ParamSpec {
  std::string key;
  Kind kind = Kind::Float;
  units::Dimension dimension = units::Dimension::Time;  // Kind::Quantity only
  std::optional<std::string> default_value;             // YAML scalar text; none = optional key
  std::string description;
  std::optional<double> min;  // inclusive unless min_exclusive (SI units for quantities)
  bool min_exclusive = false;
  std::optional<double> max;         // inclusive
  std::vector<std::string> choices;  // Kind::Enum only
  /// Kind::Enum whose values come from a registry (recovery.policy): asked when needed, so that
  /// values registered at start-up (a test's policy, a plugin's) are valid too.
  std::vector<std::string> (*choices_from)() = nullptr;
  Applies applies = Applies::Both;
  Binding binding = {};

  /// The declaration, for a single job's replay only (a fleet refuses it) or a fleet only.
  [[nodiscard]] ParamSpec job_only() &&
  {
    applies = Applies::Job;
    return std::move(*this);
  }
  [[nodiscard]] ParamSpec fleet_only() &&
  {
    applies = Applies::Fleet;
    return std::move(*this);
  }
  /// The declaration, bound to the Scenario field `field(scenario)` returns (a generic lambda,
  /// `[](auto& s) -> auto& { return s.recovery.detection; }`): a number, an integer, a flag, a
  /// text or a unit quantity. Defined in parameter_specs.hpp, where the declarations are.
  template <class Field>
  [[nodiscard]] ParamSpec into(Field field) &&;
  /// Bound to a number field that holds the value times `factor` (pJ per bit stored as J per bit).
  template <class Field>
  [[nodiscard]] ParamSpec into_scaled(Field field, double factor) &&;
  /// Bound to an enum field through the enum's name table (models/core/names.hpp).
  template <class Field, class Table>
  [[nodiscard]] ParamSpec into_enum(Field field, const Table& names) &&;
  /// Bound to a bool field that is true when the value is `when` (a two-way choice).
  template <class Field>
  [[nodiscard]] ParamSpec into_flag(Field field, std::string when) &&;
};

/// "job", "fleet" or "both".
[[nodiscard]] std::string_view applies_name(Applies a);

/// The valid values of an Enum parameter.
[[nodiscard]] std::vector<std::string> choices_of(const ParamSpec& spec);

/// All parameters, in documentation order.
[[nodiscard]] const std::vector<ParamSpec>& parameter_table();

/// The spec for a concrete dotted key ("failures.causes.nic.count"), or nullptr.
[[nodiscard]] const ParamSpec* find_param(std::string_view key);

/// The allowed child names under a dotted prefix ("" is the root), for did-you-mean hints.
/// A wildcard child is returned as "<name>".
[[nodiscard]] std::vector<std::string> children_of(std::string_view prefix);

/// True when `prefix` names a section (a map), not a leaf.
[[nodiscard]] bool is_section(std::string_view prefix);

/// "quantity (time)", "integer", "one of: a, b" ...
[[nodiscard]] std::string kind_description(const ParamSpec& spec);

/// The (key, value) pairs a named network preset ("llama3") puts in place of defaults; empty for
/// "none" or an unknown name.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> preset_values(std::string_view preset);

/// The valid range in words, or "".
[[nodiscard]] std::string range_description(const ParamSpec& spec);

}  // namespace fleetsim::scenario
