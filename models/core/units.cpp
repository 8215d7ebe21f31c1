#include "units.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <span>

namespace fleetsim::units {
namespace {

struct Unit {
  std::string_view suffix;
  double factor;
};

constexpr std::array kTimeUnits{
    Unit{"ns", 1e-9},     Unit{"us", 1e-6}, Unit{"ms", 1e-3}, Unit{"s", 1.0},
    Unit{"min", kMinute}, Unit{"h", kHour}, Unit{"d", kDay},  Unit{"w", 7 * kDay},
};

constexpr std::array kByteUnits{
    Unit{"B", 1.0},
    Unit{"kB", 1e3},
    Unit{"KB", 1e3},
    Unit{"MB", 1e6},
    Unit{"GB", 1e9},
    Unit{"TB", 1e12},
    Unit{"PB", 1e15},
    Unit{"KiB", 1024.0},
    Unit{"MiB", 1048576.0},
    Unit{"GiB", 1073741824.0},
    Unit{"TiB", 1099511627776.0},
    Unit{"PiB", 1125899906842624.0},
};

constexpr std::array kBandwidthUnits{
    // bytes per second
    Unit{"B/s", 1.0},
    Unit{"kB/s", 1e3},
    Unit{"KB/s", 1e3},
    Unit{"MB/s", 1e6},
    Unit{"GB/s", 1e9},
    Unit{"TB/s", 1e12},
    Unit{"PB/s", 1e15},
    Unit{"Bps", 1.0},
    Unit{"kBps", 1e3},
    Unit{"KBps", 1e3},
    Unit{"MBps", 1e6},
    Unit{"GBps", 1e9},
    Unit{"TBps", 1e12},
    Unit{"PBps", 1e15},
    Unit{"KiB/s", 1024.0},
    Unit{"MiB/s", 1048576.0},
    Unit{"GiB/s", 1073741824.0},
    Unit{"TiB/s", 1099511627776.0},
    // bits per second
    Unit{"bps", 0.125},
    Unit{"kbps", 125.0},
    Unit{"Kbps", 125.0},
    Unit{"Mbps", 1.25e5},
    Unit{"Gbps", 1.25e8},
    Unit{"Tbps", 1.25e11},
    Unit{"b/s", 0.125},
    Unit{"kb/s", 125.0},
    Unit{"Mb/s", 1.25e5},
    Unit{"Gb/s", 1.25e8},
    Unit{"Tb/s", 1.25e11},
};

constexpr std::array kFlopRateUnits{
    Unit{"FLOPS", 1.0},   Unit{"kFLOPS", 1e3},   Unit{"MFLOPS", 1e6},   Unit{"GFLOPS", 1e9},   Unit{"TFLOPS", 1e12},
    Unit{"PFLOPS", 1e15}, Unit{"EFLOPS", 1e18},  Unit{"FLOP/s", 1.0},   Unit{"kFLOP/s", 1e3},  Unit{"MFLOP/s", 1e6},
    Unit{"GFLOP/s", 1e9}, Unit{"TFLOP/s", 1e12}, Unit{"PFLOP/s", 1e15}, Unit{"EFLOP/s", 1e18},
};

constexpr std::array kPowerUnits{
    Unit{"mW", 1e-3}, Unit{"W", 1.0}, Unit{"kW", 1e3}, Unit{"MW", 1e6}, Unit{"GW", 1e9},
};

std::span<const Unit> units_of(Dimension dim)
{
  switch (dim) {
    case Dimension::Time: return kTimeUnits;
    case Dimension::Bytes: return kByteUnits;
    case Dimension::Bandwidth: return kBandwidthUnits;
    case Dimension::FlopRate: return kFlopRateUnits;
    case Dimension::Power: return kPowerUnits;
  }
  return {};
}

// Units used when printing, largest first.
std::span<const Unit> print_units_of(Dimension dim)
{
  static constexpr std::array time{Unit{"d", kDay},  Unit{"h", kHour}, Unit{"min", kMinute}, Unit{"s", 1.0},
                                   Unit{"ms", 1e-3}, Unit{"us", 1e-6}, Unit{"ns", 1e-9}};
  static constexpr std::array bytes{Unit{"PB", 1e15}, Unit{"TB", 1e12}, Unit{"GB", 1e9},
                                    Unit{"MB", 1e6},  Unit{"kB", 1e3},  Unit{"B", 1.0}};
  static constexpr std::array bw{Unit{"PB/s", 1e15}, Unit{"TB/s", 1e12}, Unit{"GB/s", 1e9},
                                 Unit{"MB/s", 1e6},  Unit{"kB/s", 1e3},  Unit{"B/s", 1.0}};
  static constexpr std::array flops{Unit{"EFLOPS", 1e18}, Unit{"PFLOPS", 1e15}, Unit{"TFLOPS", 1e12},
                                    Unit{"GFLOPS", 1e9},  Unit{"MFLOPS", 1e6},  Unit{"FLOPS", 1.0}};
  static constexpr std::array power{Unit{"GW", 1e9}, Unit{"MW", 1e6}, Unit{"kW", 1e3}, Unit{"W", 1.0},
                                    Unit{"mW", 1e-3}};
  switch (dim) {
    case Dimension::Time: return time;
    case Dimension::Bytes: return bytes;
    case Dimension::Bandwidth: return bw;
    case Dimension::FlopRate: return flops;
    case Dimension::Power: return power;
  }
  return {};
}

std::string_view trim(std::string_view s)
{
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

// "'text'". Built by appending: GCC 12 warns (-Wrestrict, a false positive) on "'" + std::string.
std::string quoted(std::string_view text)
{
  std::string q;
  q.reserve(text.size() + 2);
  q += '\'';
  q += text;
  q += '\'';
  return q;
}

}  // namespace

std::string_view dimension_name(Dimension dim)
{
  switch (dim) {
    case Dimension::Time: return "time";
    case Dimension::Bytes: return "size";
    case Dimension::Bandwidth: return "bandwidth";
    case Dimension::FlopRate: return "flop rate";
    case Dimension::Power: return "power";
  }
  return "?";
}

std::string_view accepted_units(Dimension dim)
{
  switch (dim) {
    case Dimension::Time: return "ns, us, ms, s, min, h, d, w";
    case Dimension::Bytes: return "B, kB, MB, GB, TB, PB, KiB, MiB, GiB, TiB, PiB";
    case Dimension::Bandwidth: return "B/s .. PB/s (or GBps), KiB/s .. TiB/s, bps .. Tbps (bits)";
    case Dimension::FlopRate: return "FLOPS, GFLOPS, TFLOPS, PFLOPS, EFLOPS (or TFLOP/s)";
    case Dimension::Power: return "mW, W, kW, MW, GW";
  }
  return "";
}

ParseResult parse_quantity(std::string_view text, Dimension dim)
{
  std::string_view s = trim(text);
  if (s.empty())
    return {0.0, "empty value, expected a " + std::string(dimension_name(dim)) + " with a unit"};
  double number = 0.0;
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  if (*begin == '+')
    ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, number);
  if (ec != std::errc() || ptr == begin)
    return {0.0, quoted(s) + " is not a " + std::string(dimension_name(dim)) +
                     " (expected a number followed by a unit such as " + std::string(print_units_of(dim)[1].suffix) +
                     ")"};
  if (!std::isfinite(number))
    return {0.0, quoted(s) + " is not a finite number"};
  std::string_view suffix = trim(std::string_view(ptr, static_cast<size_t>(end - ptr)));
  if (suffix.empty())
    return {0.0, quoted(s) + " has no unit; a " + std::string(dimension_name(dim)) +
                     " needs one of: " + std::string(accepted_units(dim))};
  for (const Unit& u : units_of(dim)) {
    if (u.suffix == suffix)
      return {number * u.factor, {}};
  }
  return {0.0, "unknown " + std::string(dimension_name(dim)) + " unit '" + std::string(suffix) + "' in '" +
                   std::string(s) + "' (accepted: " + std::string(accepted_units(dim)) + ")"};
}

std::string format_quantity(double si, Dimension dim)
{
  auto units = print_units_of(dim);
  const Unit* chosen = &units.back();
  double magnitude = std::fabs(si);
  if (magnitude == 0.0) {
    // Zero reads best in the base unit.
    for (const Unit& u : units)
      if (u.factor == 1.0)
        chosen = &u;
  } else {
    for (const Unit& u : units) {
      if (magnitude >= u.factor * (1 - 1e-12)) {
        chosen = &u;
        break;
      }
    }
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", si / chosen->factor);
  return std::string(buf) + std::string(chosen->suffix);
}

}  // namespace fleetsim::units
