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
struct ResolvedValue;
namespace detail {
class Reader;
}

/// What a fact (Condition::Test::Fact) is decided on: the built scenario, its resolved values (a
/// preset's, an include's) and the name the key gives its "<name>" ("" when it has none).
struct FactInput {
  const Scenario& scenario;
  const std::vector<ResolvedValue>& resolved;
  const std::string& name;
};

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

/// One test of a choice the scenario makes elsewhere, on which whether the run reads a key depends
/// (ParamSpec::read_when): another key's value among some values, a number above a threshold, a text given,
/// or a property of the scenario no one key decides (a fact). Evaluated on the resolved scenario,
/// after includes, presets and --set. A "<name>" in `key` is the entry of the key it decides for
/// (workload.jobs.<name>.checkpoint_interval decides for workload.jobs.<name>.checkpoint_cost).
struct Condition {
  enum class Test { OneOf, Above, Below, Given, Fact };
  Test test = Test::OneOf;
  bool negated = false;             // holds when the test does not
  std::string key;                  // the deciding key (OneOf, Positive, Given)
  std::vector<std::string> values;  // OneOf: the values under which the key is read
  double threshold = 0;             // Above, Below: the number (SI units) the key's value must exceed, stay under
  std::string fact;                 // Fact: what holds, in words ("a failure cause is detected by the watchdog")
  std::string fact_not;             // Fact: what holds instead ("no failure cause is detected by the watchdog")
  bool (*holds)(const FactInput&) = nullptr;  // Fact
  std::vector<std::string> decided_by;        // Fact: the keys whose choice it is (recovery.policy), if any
  std::string because;  // why the other values leave the key unused ("the other policies compute it"), or ""
};

/// The choices under which the run reads a key: any one of the alternatives, each of which holds
/// when all its conditions do. No alternative: the key is always read (where its kind of run is).
using ReadWhen = std::vector<std::vector<Condition>>;

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
  ReadWhen read_when = {};

  /// The run reads the key only when `c` holds too (and with the conditions given before it).
  [[nodiscard]] ParamSpec when(Condition c) &&
  {
    if (read_when.empty())
      read_when.emplace_back();
    read_when.back().push_back(std::move(c));
    return std::move(*this);
  }
  /// ... or when `c` holds (another alternative; `.when` after it adds to this one).
  [[nodiscard]] ParamSpec or_when(Condition c) &&
  {
    read_when.push_back({std::move(c)});
    return std::move(*this);
  }
  /// ... and, in every alternative given so far (or alone), when `c` holds.
  [[nodiscard]] ParamSpec always_when(const Condition& c) &&
  {
    if (read_when.empty())
      read_when.emplace_back();
    for (auto& alternative : read_when)
      alternative.push_back(c);
    return std::move(*this);
  }

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

/// The conditions under which the key is read, in words ("recovery.policy is hot_spare"; "" when
/// always): `fleetsim describe` and the scenario reference print them.
[[nodiscard]] std::string read_when_description(const ParamSpec& spec);
/// One condition in words ("recovery.policy is hot_spare or elastic").
[[nodiscard]] std::string condition_description(const Condition& c);

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
