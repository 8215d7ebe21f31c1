#include "key_usage.hpp"

#include "parameter_table.hpp"

#include "models/core/units.hpp"

#include <algorithm>
#include <charconv>
#include <map>

namespace fleetsim::scenario {
namespace {

// The name a concrete key gives the "<name>" segment of its declaration ("" when it has none).
std::string entry_name(const std::string& pattern, const std::string& key)
{
  const size_t at = pattern.find("<name>");
  if (at == std::string::npos || key.size() < at)
    return {};
  return key.substr(at, key.find('.', at) - at);
}

std::string with_name(std::string key, const std::string& name)
{
  if (const size_t at = key.find("<name>"); at != std::string::npos)
    key.replace(at, 6, name);
  return key;
}

class Values {
public:
  explicit Values(const std::vector<ResolvedValue>& resolved)
  {
    for (const ResolvedValue& v : resolved)
      by_key_[v.key] = &v;
  }
  const ResolvedValue* find(const std::string& key) const
  {
    const auto it = by_key_.find(key);
    return it == by_key_.end() ? nullptr : it->second;
  }
  // A number or a quantity in SI units; 0 when absent (every value here was checked by the builder).
  double number(const std::string& key) const
  {
    const ResolvedValue* v = find(key);
    const ParamSpec* spec = find_param(key);
    if (v == nullptr || spec == nullptr)
      return 0;
    if (spec->kind == Kind::Quantity) {
      const auto q = units::parse_quantity(v->text, spec->dimension);
      return q.ok() ? q.value : 0;
    }
    double x = 0;
    const char* b = v->text.data() + (!v->text.empty() && v->text[0] == '+' ? 1 : 0);
    std::from_chars(b, v->text.data() + v->text.size(), x);
    return x;
  }
  std::string text(const std::string& key) const
  {
    const ResolvedValue* v = find(key);
    return v == nullptr ? std::string() : v->text;
  }

private:
  std::map<std::string, const ResolvedValue*> by_key_;
};

bool holds(const Condition& c, const Values& values, const FactInput& in)
{
  const std::string& name = in.name;
  using Test = Condition::Test;
  const std::string key = with_name(c.key, name);
  bool yes = false;
  switch (c.test) {
    case Test::OneOf: {
      const std::string v = values.text(key);
      yes = std::find(c.values.begin(), c.values.end(), v) != c.values.end();
      break;
    }
    case Test::Above: yes = values.number(key) > c.threshold; break;
    case Test::Below: yes = values.find(key) != nullptr && values.number(key) < c.threshold; break;
    case Test::Given: yes = !values.text(key).empty(); break;
    case Test::Fact: yes = c.holds != nullptr && c.holds(in); break;
  }
  return yes != c.negated;
}

// What the scenario has instead, in words: "recovery.policy is restart".
std::string what_is(const Condition& c, const Values& values, const std::string& name)
{
  using Test = Condition::Test;
  const std::string key = with_name(c.key, name);
  std::string out;
  switch (c.test) {
    case Test::OneOf:
    case Test::Above:
    case Test::Below: {
      const ResolvedValue* v = values.find(key);
      out = key + " is " + (v == nullptr || v->text.empty() ? "not given" : v->text);
      if (v != nullptr && v->is_default)
        out += ", its default";
      break;
    }
    case Test::Given: out = key + (c.negated ? " is given" : " is not given"); break;
    case Test::Fact: out = c.fact_not; break;
  }
  return c.because.empty() ? out : out + " (" + c.because + ")";
}

// The choice `c` tests was made on the command line (--set): its key, or for a fact one of the keys
// that decide it.
bool set_on_command_line(const Condition& c, const Values& values, const std::string& name)
{
  std::vector<std::string> keys = c.test == Condition::Test::Fact ? c.decided_by : std::vector<std::string>{c.key};
  return std::any_of(keys.begin(), keys.end(), [&](const std::string& k) {
    const ResolvedValue* v = values.find(with_name(k, name));
    return v != nullptr && v->where.file == "command line";
  });
}

std::string describe_with_name(const Condition& c, const std::string& name)
{
  Condition named = c;
  named.key = with_name(c.key, name);
  return condition_description(named);
}

}  // namespace

bool key_is_read(const std::string& key, const FactInput& in)
{
  const ParamSpec* spec = find_param(key);
  if (spec == nullptr || spec->read_when.empty())
    return true;
  const Values values(in.resolved);
  const std::string name = entry_name(spec->key, key);
  const FactInput named{in.scenario, in.resolved, name};
  return std::any_of(spec->read_when.begin(), spec->read_when.end(), [&](const std::vector<Condition>& alternative) {
    return std::all_of(alternative.begin(), alternative.end(),
                       [&](const Condition& c) { return holds(c, values, named); });
  });
}

std::vector<UnusedKey> find_unused_keys(const std::vector<ResolvedValue>& resolved, const Scenario& s)
{
  const Values values(resolved);
  std::vector<UnusedKey> out;
  for (const ResolvedValue& v : resolved) {
    if (v.is_default)
      continue;
    const ParamSpec* spec = find_param(v.key);
    if (spec == nullptr || spec->read_when.empty())
      continue;
    const std::string name = entry_name(spec->key, v.key);
    const FactInput in{s, resolved, name};
    std::vector<std::string> instead;  // the first condition that fails, in each alternative
    std::vector<std::string> would;    // each alternative, in words
    bool read = false;
    bool by_override = false;  // some alternative fails at a choice --set made (the key being the file's)
    for (const auto& alternative : spec->read_when) {
      std::string all;
      const Condition* failing = nullptr;
      for (const Condition& c : alternative) {
        all += (all.empty() ? "" : " and ") + describe_with_name(c, name);
        if (failing == nullptr && !holds(c, values, in))
          failing = &c;
      }
      if (failing == nullptr) {
        read = true;
        break;
      }
      by_override = by_override || (v.where.file != "command line" && set_on_command_line(*failing, values, name));
      const std::string is = what_is(*failing, values, name);
      if (std::find(instead.begin(), instead.end(), is) == instead.end())
        instead.push_back(is);
      would.push_back(all);
    }
    if (read)
      continue;
    std::string reason;
    for (const std::string& is : instead)
      reason += (reason.empty() ? "" : " and ") + is;
    reason += "; it is read when ";
    for (size_t i = 0; i < would.size(); ++i)
      reason += (i == 0 ? "" : ", or when ") + would[i];
    const std::string where = v.where.line > 0 ? v.where.file + ":" + std::to_string(v.where.line)
                                               : std::string("command line");
    out.push_back({v.key, reason, where, v.included, by_override});
  }
  return out;
}

std::string unused_key_message(const UnusedKey& u) { return "'" + u.key + "' is not used: " + u.reason; }

}  // namespace fleetsim::scenario
