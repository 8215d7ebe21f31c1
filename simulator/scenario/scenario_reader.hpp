#pragma once
// Typed access to the resolved scenario values, for the builders (internal to the loader): each
// read converts, range-checks and reports a problem at the location of the value that causes it.

#include "diagnostics.hpp"
#include "parameter_table.hpp"
#include "scenario_loader.hpp"

#include <charconv>
#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace fleetsim::scenario::detail {

class Reader {
public:
  Reader(const std::vector<ResolvedValue>& resolved, std::string file, Diagnostics& diags)
      : file_(std::move(file)), diags_(diags)
  {
    for (const auto& v : resolved)
      values_[v.key] = &v;
  }

  bool has(const std::string& key) const { return values_.count(key) != 0; }
  /// True when the scenario (or an include, or --set) writes `key`, whatever its value.
  bool given(const std::string& key) const
  {
    auto it = values_.find(key);
    return it != values_.end() && !it->second->is_default;
  }

  /// True when the scenario (or an include, or --set) gives `key` a value other than its default
  /// (a dumped scenario, --dump-resolved, spells every default out).
  bool given_apart_from_default(const std::string& key) const
  {
    auto it = values_.find(key);
    if (it == values_.end() || it->second->is_default)
      return false;
    const ParamSpec* spec = find_param(key);
    return spec == nullptr || !spec->default_value || it->second->text != *spec->default_value;
  }

  SourceLocation where(const std::string& key) const
  {
    auto it = values_.find(key);
    return it == values_.end() ? SourceLocation{file_, 0, 0} : it->second->where;
  }

  void error(const std::string& key, const std::string& msg) { diags_.error(where(key), msg); }
  Diagnostics& diagnostics() { return diags_; }

  /// Errors a model reported against a file the scenario names ("name:line: error: message"), as
  /// diagnostics at that line of that file; `prefix` goes before each message (the key, say).
  void file_errors(const std::vector<std::string>& errors, const std::string& prefix = "")
  {
    for (const std::string& e : errors) {
      const size_t mark = e.find(": error: ");
      const std::string head = e.substr(0, mark);
      const size_t colon = head.rfind(':');
      int line = 0;
      if (colon != std::string::npos && colon + 1 < head.size() && head.size() - colon < 10 &&
          head.find_first_not_of("0123456789", colon + 1) == std::string::npos)
        line = std::stoi(head.substr(colon + 1));
      diags_.error({line > 0 ? head.substr(0, colon) : head, line, 0},
                   prefix + (mark == std::string::npos ? e : e.substr(mark + 9)));
    }
  }

  /// Reports a problem that involves several keys at the first of them the user wrote, or at one
  /// set on the command line (--set) if any: the value just changed is the likeliest cause, and a
  /// message about it then names it.
  void error_at_first_given(const std::vector<std::string>& keys, const std::string& msg)
  {
    for (const auto& k : keys) {
      auto it = values_.find(k);
      if (it != values_.end() && !it->second->is_default && it->second->where.line == 0 &&
          it->second->where.file == "command line") {
        diags_.error(it->second->where, "--set " + k + ": " + msg);
        return;
      }
    }
    for (const auto& k : keys) {
      auto it = values_.find(k);
      if (it == values_.end() || it->second->is_default)
        continue;
      // A --set value has no line: name the key so the user sees which override it was.
      diags_.error(it->second->where, it->second->where.line > 0 ? msg : "--set " + k + ": " + msg);
      return;
    }
    diags_.error({file_, 0, 0}, msg);
  }

  double number(const std::string& key)
  {
    const ResolvedValue* v = lookup(key);
    const ParamSpec* spec = find_param(key);
    if (v == nullptr || spec == nullptr)
      return 0;
    double x = 0;
    switch (spec->kind) {
      case Kind::Quantity: {
        auto r = units::parse_quantity(v->text, spec->dimension);
        if (!r.ok()) {
          error(key, "'" + key + "': " + r.error);
          return 0;
        }
        x = r.value;
        break;
      }
      case Kind::Int:
      case Kind::Float: {
        if (!parse_number(v->text, x)) {
          error(key, "'" + key + "' expects " + std::string(spec->kind == Kind::Int ? "an integer" : "a number") +
                         ", got '" + v->text + "'");
          return 0;
        }
        if (spec->kind == Kind::Int && x != std::floor(x)) {
          error(key, "'" + key + "' expects an integer, got '" + v->text + "'");
          return 0;
        }
        break;
      }
      default: return 0;
    }
    // An out-of-range value reads as 0: it has its diagnostic, and 1e300 must not reach a cast to long.
    return check_range(key, *spec, x, v->text) ? x : 0;
  }

  /// Every integer key has a range within long's; a value outside it was reported and reads as 0.
  long integer(const std::string& key)
  {
    const double x = number(key);
    return std::fabs(x) < 9.2e18 ? static_cast<long>(x) : 0;
  }

  bool boolean(const std::string& key)
  {
    const ResolvedValue* v = lookup(key);
    if (v == nullptr)
      return false;
    if (v->text == "true")
      return true;
    if (v->text != "false")
      error(key, "'" + key + "' expects true or false, got '" + v->text + "'");
    return false;
  }

  std::string text(const std::string& key)
  {
    const ResolvedValue* v = lookup(key);
    if (v == nullptr)
      return {};
    const ParamSpec* spec = find_param(key);
    if (spec != nullptr && spec->kind == Kind::Enum) {
      for (const auto& c : choices_of(*spec))
        if (c == v->text)
          return v->text;
      error(key, "'" + key + "' must be " + kind_description(*spec) + ", got '" + v->text + "'");
    }
    return v->text;
  }

private:
  const ResolvedValue* lookup(const std::string& key) const
  {
    auto it = values_.find(key);
    return it == values_.end() ? nullptr : it->second;
  }

  static bool parse_number(const std::string& s, double& out)
  {
    const char* b = s.data();
    const char* e = s.data() + s.size();
    if (b != e && *b == '+')
      ++b;
    auto [p, ec] = std::from_chars(b, e, out);
    return ec == std::errc() && p == e && b != e && std::isfinite(out);
  }

  bool check_range(const std::string& key, const ParamSpec& spec, double x, const std::string& text)
  {
    bool low = spec.min && (spec.min_exclusive ? x <= *spec.min : x < *spec.min);
    bool high = spec.max && x > *spec.max;
    if (low || high)
      error(key, "'" + key + "' must be " + range_description(spec) + ", got '" + text + "'");
    return !low && !high;
  }

  std::string file_;
  Diagnostics& diags_;
  std::map<std::string, const ResolvedValue*> values_;
};
}  // namespace fleetsim::scenario::detail
