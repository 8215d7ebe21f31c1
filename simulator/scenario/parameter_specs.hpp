#pragma once
// Builders of parameter specs, shared by the files that declare parameters (internal to the loader).

#include "parameter_table.hpp"
#include "scenario.hpp"
#include "scenario_reader.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace fleetsim::scenario::detail {

using units::Dimension;

// A field's read from the key's resolved value, by the field's type.
inline void read_into(double& x, Reader& r, const std::string& key) { x = r.number(key); }
inline void read_into(int& x, Reader& r, const std::string& key) { x = static_cast<int>(r.integer(key)); }
inline void read_into(long& x, Reader& r, const std::string& key) { x = r.integer(key); }
inline void read_into(unsigned long& x, Reader& r, const std::string& key)
{
  x = static_cast<unsigned long>(r.integer(key));
}
inline void read_into(bool& x, Reader& r, const std::string& key) { x = r.boolean(key); }
inline void read_into(std::string& x, Reader& r, const std::string& key) { x = r.text(key); }
template <class Tag>
void read_into(units::Quantity<Tag>& x, Reader& r, const std::string& key)
{
  x = units::Quantity<Tag>(r.number(key));
}

inline std::string show_field(double x)
{
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}
inline std::string show_field(int x) { return std::to_string(x); }
inline std::string show_field(long x) { return std::to_string(x); }
inline std::string show_field(unsigned long x) { return std::to_string(x); }
inline std::string show_field(bool x) { return x ? "true" : "false"; }
inline std::string show_field(const std::string& x) { return x; }
template <class Tag>
std::string show_field(const units::Quantity<Tag>& x)
{
  return show_field(x.si());
}

}  // namespace fleetsim::scenario::detail

namespace fleetsim::scenario {

template <class Field>
ParamSpec ParamSpec::into(Field field) &&
{
  binding.read = [field](Scenario& s, detail::Reader& r, const std::string& k) { detail::read_into(field(s), r, k); };
  binding.show = [field](const Scenario& s) { return detail::show_field(field(s)); };
  return std::move(*this);
}

template <class Field>
ParamSpec ParamSpec::into_scaled(Field field, double factor) &&
{
  binding.read = [field, factor](Scenario& s, detail::Reader& r, const std::string& k) {
    field(s) = r.number(k) * factor;
  };
  binding.show = [field](const Scenario& s) { return detail::show_field(field(s)); };
  return std::move(*this);
}

template <class Field, class Table>
ParamSpec ParamSpec::into_enum(Field field, const Table& names) &&
{
  binding.read = [field, &names](Scenario& s, detail::Reader& r, const std::string& k) {
    if (auto e = models::from_name(names, r.text(k)))  // a name outside the table was reported by text()
      field(s) = *e;
  };
  binding.show = [field, &names](const Scenario& s) { return std::string(models::name_of(names, field(s))); };
  return std::move(*this);
}

template <class Field>
ParamSpec ParamSpec::into_flag(Field field, std::string when) &&
{
  binding.read = [field, when](Scenario& s, detail::Reader& r, const std::string& k) { field(s) = r.text(k) == when; };
  binding.show = [field](const Scenario& s) { return detail::show_field(field(s)); };
  return std::move(*this);
}

}  // namespace fleetsim::scenario

namespace fleetsim::scenario::detail {

inline ParamSpec quantity(std::string key, Dimension dim, std::optional<std::string> def, std::string desc,
                          std::optional<double> min = 0.0, bool min_exclusive = true)
{
  return ParamSpec{std::move(key), Kind::Quantity, dim, std::move(def), std::move(desc), min,
                   min_exclusive,  std::nullopt,   {}};
}

inline ParamSpec integer(std::string key, std::optional<std::string> def, std::string desc, double min,
                         std::optional<double> max = std::nullopt)
{
  return ParamSpec{std::move(key), Kind::Int, Dimension::Time, std::move(def), std::move(desc), min, false, max, {}};
}

inline ParamSpec real(std::string key, std::optional<std::string> def, std::string desc, std::optional<double> min,
                      bool min_exclusive, std::optional<double> max)
{
  return ParamSpec{
      std::move(key), Kind::Float, Dimension::Time, std::move(def), std::move(desc), min, min_exclusive, max, {}};
}

inline ParamSpec text(std::string key, std::optional<std::string> def, std::string desc)
{
  return ParamSpec{std::move(key), Kind::String,    Dimension::Time,
                   std::move(def), std::move(desc), std::nullopt,
                   false,          std::nullopt,    {}};
}

inline ParamSpec flag(std::string key, std::string def, std::string desc)
{
  return ParamSpec{std::move(key), Kind::Bool, Dimension::Time, std::move(def), std::move(desc), std::nullopt, false,
                   std::nullopt,   {}};
}

inline ParamSpec registered_choice(std::string key, std::string def, std::string desc,
                                   std::vector<std::string> (*from)())
{
  ParamSpec p{std::move(key), Kind::Enum, units::Dimension::Time, std::move(def), std::move(desc), std::nullopt, false,
              std::nullopt,   {}};
  p.choices_from = from;
  return p;
}

/// A choice among an enum's names (its name table, models/core/names.hpp), bound to `field`.
template <class Field, class E, std::size_t N>
ParamSpec enum_choice(std::string key, std::string def, std::string desc, const models::NameTable<E, N>& names,
                      Field field);

inline ParamSpec choice(std::string key, std::string def, std::string desc, std::vector<std::string> choices)
{
  return ParamSpec{std::move(key), Kind::Enum, Dimension::Time, std::move(def),    std::move(desc),
                   std::nullopt,   false,      std::nullopt,    std::move(choices)};
}

// ---- the conditions under which a key is read (ParamSpec::when, parameter_table.hpp's Condition)

/// `key`'s value is one of `values`; `because` says why the others leave the key unused.
inline Condition is(std::string key, std::vector<std::string> values, std::string because = {})
{
  Condition c;
  c.key = std::move(key);
  c.values = std::move(values);
  c.because = std::move(because);
  return c;
}
/// `key`'s value is none of `values`.
inline Condition is_not(std::string key, std::vector<std::string> values, std::string because = {})
{
  Condition c = is(std::move(key), std::move(values), std::move(because));
  c.negated = true;
  return c;
}
/// `key`, a number or a quantity (SI units), is above `threshold`.
inline Condition above(std::string key, double threshold, std::string because = {})
{
  Condition c;
  c.test = Condition::Test::Above;
  c.key = std::move(key);
  c.threshold = threshold;
  c.because = std::move(because);
  return c;
}
/// `key`, a number or a quantity (SI units), is below `threshold`.
inline Condition below(std::string key, double threshold, std::string because = {})
{
  Condition c = above(std::move(key), threshold, std::move(because));
  c.test = Condition::Test::Below;
  return c;
}
/// `key`, a number or a quantity, is given and above 0.
inline Condition positive(std::string key, std::string because = {})
{
  return above(std::move(key), 0, std::move(because));
}
/// `key`, a number or a quantity, is 0 or not given.
inline Condition zero(std::string key, std::string because = {})
{
  Condition c = positive(std::move(key), std::move(because));
  c.negated = true;
  return c;
}
/// `key`, a text, is given and not empty.
inline Condition given(std::string key, std::string because = {})
{
  Condition c;
  c.test = Condition::Test::Given;
  c.key = std::move(key);
  c.because = std::move(because);
  return c;
}
/// `key`, a text, is not given or empty.
inline Condition not_given(std::string key, std::string because = {})
{
  Condition c = given(std::move(key), std::move(because));
  c.negated = true;
  return c;
}
/// A property of the scenario that no one key decides: `says` when it holds (for the reference),
/// `says_not` when it does not (for the message), `holds` tests it (FactInput: the built scenario,
/// its resolved values, the key's "<name>").
inline Condition fact(std::string says, std::string says_not, bool (*holds)(const FactInput&), std::string because = {})
{
  Condition c;
  c.test = Condition::Test::Fact;
  c.fact = std::move(says);
  c.fact_not = std::move(says_not);
  c.holds = holds;
  c.because = std::move(because);
  return c;
}
/// The same fact, decided by the choice of `keys` (so that a --set of one of them that leaves a key of
/// the scenario unread lists the key rather than refusing it).
inline Condition decided_by(Condition c, std::vector<std::string> keys)
{
  c.decided_by = std::move(keys);
  return c;
}

/// The scenario's name and its job: cluster, accelerator, model, layout, fabric (job_parameters.cpp).
[[nodiscard]] std::vector<ParamSpec> job_parameters();

/// Stragglers, generations, storage, checkpoints, data, recovery, spares, repair, lemons, planned
/// maintenance and failure causes (resilience_parameters.cpp).
[[nodiscard]] std::vector<ParamSpec> resilience_parameters();

/// A fleet's workload and scheduler (fleet_parameters.cpp).
[[nodiscard]] std::vector<ParamSpec> fleet_parameters();

/// The step model's kernel, recomputation, memory and TP / optimizer keys (step_parameters.cpp).
[[nodiscard]] std::vector<ParamSpec> step_detail_parameters();

/// The power section (models/energy/power_model.hpp, docs/models/energy.md).
[[nodiscard]] std::vector<ParamSpec> power_parameters();

/// A key a registry entry declares next to its code (models/core/key_decl.hpp), as a spec bound into
/// the entry's spec struct, the one `spec_of(scenario)` returns (`[](auto& s) -> auto& { return s.recovery; }`).
template <class Spec, class SpecOf>
ParamSpec declared_key(const models::KeyDecl<Spec>& d, SpecOf spec_of)
{
  using models::KeyKind;
  ParamSpec p = d.kind == KeyKind::Duration
                    ? quantity(d.key, Dimension::Time, d.default_value, d.description, d.min, d.min_exclusive)
                : d.kind == KeyKind::Count
                    ? integer(d.key, d.default_value, d.description, d.min.value_or(-9e15), d.max)
                : d.kind == KeyKind::Choice
                    ? choice(d.key, d.default_value, d.description, d.choices)
                    : real(d.key, d.default_value, d.description, d.min, d.min_exclusive, d.max);
  p.max = d.max;  // (quantity() takes no maximum)
  p.binding.read = [set = d.set, kind = d.kind, choices = d.choices, spec_of](Scenario& s, Reader& r,
                                                                              const std::string& k) {
    double v = 0;
    if (kind == KeyKind::Count) {
      v = static_cast<double>(r.integer(k));
    } else if (kind == KeyKind::Choice) {
      const auto it = std::find(choices.begin(), choices.end(), r.text(k));
      if (it == choices.end())
        return;  // text() reported the value outside the choices
      v = static_cast<double>(it - choices.begin());
    } else {
      v = r.number(k);
    }
    set(spec_of(s), v);
  };
  if (d.show)
    p.binding.show = [show = d.show, spec_of](const Scenario& s) { return show(spec_of(s)); };
  return p;
}

template <class Field, class E, std::size_t N>
ParamSpec enum_choice(std::string key, std::string def, std::string desc, const models::NameTable<E, N>& names,
                      Field field)
{
  return choice(std::move(key), std::move(def), std::move(desc), models::names(names)).into_enum(field, names);
}

}  // namespace fleetsim::scenario::detail
