#pragma once
// A scenario key declared by a registry entry next to its code (a recovery policy declares its
// recovery.* keys in its own file), without the loader: the scenario loader adds it to the
// parameter table (kind, unit, default, range, description: `fleetsim describe`, the reference,
// --set, the fuzz dictionary), reads and checks it like every key, and stores the value into the
// entry's spec struct through `set`. docs/extending.md, "A scenario key".
//
// A key bound to a field of the spec names the field by a pointer to member; a key whose entry's
// spec has no field for it (a policy from outside the simulator's sources) is stored in the spec's
// extension map under its key (extension_key).

#include "units.hpp"

#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fleetsim::models {

enum class KeyKind {
  Duration,  // a time with its unit ("2min"), stored in seconds
  Count,     // an integer
  Number,    // a plain number
  Choice,    // one of `choices`, stored as its index
};

template <class Spec>
struct KeyDecl {
  std::string key;
  KeyKind kind = KeyKind::Number;
  std::string default_value;  // as a scenario writes it: "2min", "1", "global"
  std::string description;    // one line, for describe and the reference
  std::optional<double> min;  // SI units; inclusive unless min_exclusive
  bool min_exclusive = false;
  std::optional<double> max;  // inclusive
  std::vector<std::string> choices;
  /// Stores the key's value: seconds for a duration, the index of the choice for a choice.
  std::function<void(Spec&, double)> set;
  /// The stored value as text (a test holds a field's own default to the declared one); empty for
  /// an extension key, which has no field and so no default of its own.
  std::function<std::string(const Spec&)> show;
};

namespace key_detail {
inline std::string show_number(double x)
{
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}
}  // namespace key_detail

/// A duration bound to a units::Seconds field, at least `min` seconds.
template <class Spec>
KeyDecl<Spec> duration_key(std::string key, std::string def, std::string desc, units::Seconds Spec::*field,
                           double min = 0, bool min_exclusive = false)
{
  KeyDecl<Spec> d{std::move(key), KeyKind::Duration, std::move(def), std::move(desc), min, min_exclusive, {}, {}, {},
                  {}};
  d.set = [field](Spec& s, double v) { s.*field = units::Seconds(v); };
  d.show = [field](const Spec& s) { return key_detail::show_number((s.*field).si()); };
  return d;
}

/// An integer in [min, max] bound to an int field.
template <class Spec>
KeyDecl<Spec> count_key(std::string key, std::string def, std::string desc, int Spec::*field, double min, double max)
{
  KeyDecl<Spec> d{std::move(key), KeyKind::Count, std::move(def), std::move(desc), min, false, max, {}, {}, {}};
  d.set = [field](Spec& s, double v) { s.*field = static_cast<int>(v); };
  d.show = [field](const Spec& s) { return std::to_string(s.*field); };
  return d;
}

/// A two-way choice bound to a bool field: true when the value is the first choice.
template <class Spec>
KeyDecl<Spec> flag_choice_key(std::string key, std::string def, std::string desc, std::string when_true,
                              std::string when_false, bool Spec::*field)
{
  KeyDecl<Spec> d{std::move(key), KeyKind::Choice, std::move(def), std::move(desc), {}, false, {}, {}, {}, {}};
  d.choices = {std::move(when_true), std::move(when_false)};
  d.set = [field](Spec& s, double index) { s.*field = index == 0; };
  d.show = [field, names = d.choices](const Spec& s) { return names[s.*field ? 0 : 1]; };
  return d;
}

/// A duration or a number kept in the spec's extension map (`Spec::extension`, key -> SI value).
template <class Spec>
KeyDecl<Spec> extension_key(std::string key, KeyKind kind, std::string def, std::string desc,
                            std::optional<double> min = 0.0, std::optional<double> max = std::nullopt)
{
  KeyDecl<Spec> d{key, kind, std::move(def), std::move(desc), min, false, max, {}, {}, {}};
  d.set = [key](Spec& s, double v) { s.extension[key] = v; };
  return d;
}

}  // namespace fleetsim::models
