#pragma once
// Units and quantities. Every dimensional value in a scenario carries a unit ("400Gbps", "2TB/s",
// "30min", "54d", "989TFLOPS"); this file parses them into SI doubles and wraps those doubles in
// strong types so that a duration cannot be passed where a size is expected.
//
// SI prefixes are decimal (k = 1e3, M = 1e6, G = 1e9, T = 1e12, P = 1e15); binary prefixes are
// explicit (KiB, MiB, GiB, TiB, PiB). Bandwidth accepts bytes ("GB/s", "GBps") and bits ("Gbps",
// "Gb/s"); a lower-case "b" means bits, an upper-case "B" bytes.

#include <string>
#include <string_view>
#include <variant>

namespace fleetsim::units {

enum class Dimension {
  Time,       // seconds
  Bytes,      // bytes
  Bandwidth,  // bytes per second
  FlopRate,   // floating-point operations per second
  Power,      // watts
};

/// The SI value of a parsed quantity, or the reason it could not be parsed.
struct ParseResult {
  double value = 0.0;
  std::string error;  // empty on success; lower-case, no final period
  [[nodiscard]] bool ok() const { return error.empty(); }
};

/// Parses "<number><unit>" (spaces between are allowed) for the given dimension.
/// A bare number is an error: the unit is mandatory.
[[nodiscard]] ParseResult parse_quantity(std::string_view text, Dimension dim);

/// Formats an SI value with a readable unit of the dimension ("2TB/s", "30min", "1.5GiB").
/// The result parses back to the same value up to 6 significant digits.
[[nodiscard]] std::string format_quantity(double si, Dimension dim);

/// "time", "size", "bandwidth", "flop rate", "power".
[[nodiscard]] std::string_view dimension_name(Dimension dim);

/// Units accepted for a dimension, for help texts: "s, ms, us, min, h, d".
[[nodiscard]] std::string_view accepted_units(Dimension dim);

// ---- strong quantity types ---------------------------------------------------------------------

template <typename Tag>
class Quantity {
public:
  constexpr Quantity() = default;
  constexpr explicit Quantity(double si) : si_(si) {}
  [[nodiscard]] constexpr double si() const { return si_; }

  constexpr Quantity operator+(Quantity o) const { return Quantity(si_ + o.si_); }
  constexpr Quantity operator-(Quantity o) const { return Quantity(si_ - o.si_); }
  constexpr Quantity operator*(double k) const { return Quantity(si_ * k); }
  constexpr Quantity operator/(double k) const { return Quantity(si_ / k); }
  constexpr double operator/(Quantity o) const { return si_ / o.si_; }
  constexpr Quantity& operator+=(Quantity o)
  {
    si_ += o.si_;
    return *this;
  }
  constexpr Quantity& operator-=(Quantity o)
  {
    si_ -= o.si_;
    return *this;
  }
  constexpr auto operator<=>(const Quantity&) const = default;

private:
  double si_ = 0.0;
};

template <typename Tag>
constexpr Quantity<Tag> operator*(double k, Quantity<Tag> q)
{
  return q * k;
}

struct SecondsTag {};
struct BytesTag {};
struct BytesPerSecondTag {};
struct FlopsTag {};
struct FlopsPerSecondTag {};
struct WattsTag {};

using Seconds = Quantity<SecondsTag>;
using Bytes = Quantity<BytesTag>;
using BytesPerSecond = Quantity<BytesPerSecondTag>;
using Flops = Quantity<FlopsTag>;
using FlopsPerSecond = Quantity<FlopsPerSecondTag>;
using Watts = Quantity<WattsTag>;

constexpr Seconds operator/(Bytes b, BytesPerSecond r) { return Seconds(b.si() / r.si()); }
constexpr Seconds operator/(Flops f, FlopsPerSecond r) { return Seconds(f.si() / r.si()); }
constexpr Bytes operator*(BytesPerSecond r, Seconds t) { return Bytes(r.si() * t.si()); }

constexpr double kMinute = 60.0;
constexpr double kHour = 3600.0;
constexpr double kDay = 86400.0;

}  // namespace fleetsim::units
