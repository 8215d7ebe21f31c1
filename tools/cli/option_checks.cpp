#include "option_checks.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <initializer_list>

namespace fleetsim::cli {

const CLI::Validator kNonNegativeInteger(
    [](std::string& text) {
      unsigned long long v = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      const bool ok = !text.empty() && ec == std::errc() && end == text.data() + text.size() && text[0] != '-';
      return ok ? std::string() : "expects a non-negative integer below 2^64, got '" + text + "'";
    },
    "");

// A SimGrid log setting as xbt_log_control_set takes it, "CATEGORY.thresh:LEVEL" (or .fmt, .add):
// SimGrid aborts the process on one it cannot parse, so it is checked here first. (Appenders are
// left out: SimGrid's log goes to stderr.)
bool valid_simgrid_setting(const std::string& text)
{
  const auto colon = text.find(':');
  if (colon == std::string::npos)
    return false;
  const std::string lhs = text.substr(0, colon);
  const std::string value = text.substr(colon + 1);
  const auto dot = lhs.rfind('.');
  if (dot == std::string::npos || dot == 0 || lhs.front() == '.' || lhs.find("..") != std::string::npos)
    return false;
  const bool name_ok = std::all_of(lhs.begin(), lhs.begin() + static_cast<long>(dot), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.';
  });
  const std::string what = lhs.substr(dot + 1);
  auto one_of = [&value](std::initializer_list<const char*> allowed) {
    return std::any_of(allowed.begin(), allowed.end(), [&value](const char* a) { return value == a; });
  };
  if (!name_ok)
    return false;
  if (what == "thres" || what == "thresh" || what == "threshold")
    return one_of({"trace", "debug", "verbose", "info", "warning", "error", "critical"});
  if (what == "fmt")
    return !value.empty() && std::none_of(value.begin(), value.end(),
                                          [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; });
  if (what == "add" || what == "additivity")
    return one_of({"on", "off", "yes", "no", "1", "0"});
  return false;
}

const CLI::Validator kSimgridSetting(
    [](std::string& text) {
      if (valid_simgrid_setting(text))
        return std::string();
      return "expects CATEGORY.thresh:LEVEL (trace, debug, verbose, info, warning, error, critical), "
             "CATEGORY.fmt:FORMAT or CATEGORY.add:on|off; got '" +
             text + "'";
    },
    "");

}  // namespace fleetsim::cli
