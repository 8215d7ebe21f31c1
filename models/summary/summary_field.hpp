#pragma once
// One field of summary.json, declared once: its key, its JSON type, whether every summary of its kind
// has it, its unit and meaning, and (for an object) its own fields. The declarations are in
// run_summary_fields.hpp (a single job's replay), fleet_summary_fields.hpp (a fleet's) and
// summary_fields.hpp (what both write); the sinks write summary.json with these keys, the readers
// (metrics, reports, sweeps, validation) read with them, and `fleetsim schema` generates
// docs/summary.schema.json from them (simulator/output/summary_schema.hpp).
//
// No JSON library here: models/ links nothing but Boost.Math.

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fleetsim::models::summary {

enum class Type : std::uint8_t {
  None,  // (only as Field::extra: no key beyond the declared ones)
  String,
  Integer,
  Number,  // an integer is a number too
  Boolean,
  Object,  // the keys of `fields`
  Map,     // keys that come from the run (cause names, scenario keys): each value an `items`
  Array,   // each element an `items`
};

struct Field;
using Fields = std::span<const Field* const>;

struct Field {
  const char* key = "";
  Type type = Type::Number;
  const char* unit = "";    // "s", "MWh", "GPU-h"; "" for ratios, counts and names
  const char* doc = "";     // one line
  bool required = true;     // every summary of its kind has it
  bool nullable = false;    // null when the run has no value (a target never reached); a Map's values
                            // may be null
  Fields fields = {};       // Object: its fields; Map or Array of objects: each value's fields
  Type items = Type::None;  // Map, Array: each value's type (Object: `fields`)
  /// Map: the keys every summary writes, in order, from the declaration that owns them (the time
  /// breakdown's terms, the phases); nullptr when they come from the scenario.
  std::vector<std::string> (*keys)() = nullptr;
  Type extra = Type::None;      // Object: the type of keys beyond `fields` (a policy's own counters)
  const char* prefix = "";      // ... and the prefix those keys start with ("": any key)
  const char* value = nullptr;  // String: the one value it may have

  [[nodiscard]] constexpr Field optional() const
  {
    Field f = *this;
    f.required = false;
    return f;
  }
  [[nodiscard]] constexpr Field or_null() const
  {
    Field f = *this;
    f.nullable = true;
    return f;
  }
  /// An object that may hold keys beyond its fields, each a `t` (and starting with `key_prefix`, if given).
  [[nodiscard]] constexpr Field open(Type t, const char* key_prefix = "") const
  {
    Field f = *this;
    f.extra = t;
    f.prefix = key_prefix;
    return f;
  }
  /// A map whose keys are `names()`, all written.
  [[nodiscard]] constexpr Field keyed_by(std::vector<std::string> (*names)()) const
  {
    Field f = *this;
    f.keys = names;
    return f;
  }
};

[[nodiscard]] constexpr Field number(const char* key, const char* unit, const char* doc)
{
  return {.key = key, .type = Type::Number, .unit = unit, .doc = doc};
}
[[nodiscard]] constexpr Field integer(const char* key, const char* doc)
{
  return {.key = key, .type = Type::Integer, .doc = doc};
}
[[nodiscard]] constexpr Field string(const char* key, const char* doc)
{
  return {.key = key, .type = Type::String, .doc = doc};
}
[[nodiscard]] constexpr Field constant(const char* key, const char* value, const char* doc)
{
  return {.key = key, .type = Type::String, .doc = doc, .value = value};
}
[[nodiscard]] constexpr Field boolean(const char* key, const char* doc)
{
  return {.key = key, .type = Type::Boolean, .doc = doc};
}
[[nodiscard]] constexpr Field object(const char* key, Fields fields, const char* doc)
{
  return {.key = key, .type = Type::Object, .doc = doc, .fields = fields};
}
/// A map from names the run gives to values of type `items` (in `unit`).
[[nodiscard]] constexpr Field map(const char* key, Type items, const char* unit, const char* doc)
{
  return {.key = key, .type = Type::Map, .unit = unit, .doc = doc, .items = items};
}
/// A map from names the run gives to objects with `fields`.
[[nodiscard]] constexpr Field map_of_objects(const char* key, Fields fields, const char* doc)
{
  return {.key = key, .type = Type::Map, .doc = doc, .fields = fields, .items = Type::Object};
}
[[nodiscard]] constexpr Field array_of_objects(const char* key, Fields fields, const char* doc)
{
  return {.key = key, .type = Type::Array, .doc = doc, .fields = fields, .items = Type::Object};
}

/// The dotted path of nested keys ({"jobs", "finished"}: "jobs.finished"), as readers name a value.
[[nodiscard]] std::string path(std::initializer_list<const char*> keys);

/// The field of `fields` with key `key`, or nullptr.
[[nodiscard]] const Field* find_field(Fields fields, std::string_view key);
/// The field a dotted path names from `root` ("interruptions.planned"); a map's key is any name
/// (a path into a map of numbers gives the map, whose unit its values have). nullptr: not declared.
[[nodiscard]] const Field* find_path(Fields root, std::string_view dotted);

}  // namespace fleetsim::models::summary
