#include "fixed_text.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>

namespace fleetsim::sim {
namespace {

constexpr double kPow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
constexpr std::uint64_t kIntPow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};

void append_to_chars(std::string& out, double v, int decimals)
{
  char buf[400];  // %.9f of the largest double fits
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  out.append(ec == std::errc() ? std::string_view(buf, static_cast<size_t>(end - buf)) : std::string_view("nan"));
}

// Writes n's decimal digits, at least min_width of them, ending just before `end`; returns the first.
char* put_digits(char* end, std::uint64_t n, int min_width)
{
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  char* p = end;
  while (n >= 100) {
    const auto pair = static_cast<size_t>(n % 100) * 2;
    n /= 100;
    *--p = kPairs[pair + 1];
    *--p = kPairs[pair];
  }
  if (n >= 10) {
    *--p = kPairs[n * 2 + 1];
    *--p = kPairs[n * 2];
  } else {
    *--p = static_cast<char>('0' + n);
  }
  while (end - p < min_width)
    *--p = '0';
  return p;
}

}  // namespace

void append_fixed(std::string& out, double v, int decimals)
{
  if (decimals < 0 || decimals > 9 || !std::isfinite(v))
    return append_to_chars(out, v, decimals);
  // |v| * 10^d is exact for d = 0; otherwise its rounding error is at most half an ulp, 2^-11
  // below 2^43. Only a fraction within that distance of one half could round the wrong way, so a
  // band of 1/128 around it goes to std::to_chars, as do exact ties (round half to even).
  const double scaled = std::fabs(v) * kPow10[decimals];
  if (scaled >= (decimals == 0 ? 0x1p53 : 0x1p43))
    return append_to_chars(out, v, decimals);
  const double whole = std::floor(scaled);
  const double frac = scaled - whole;  // exact
  if (decimals == 0 ? frac == 0.5 : std::fabs(frac - 0.5) < 1.0 / 128)
    return append_to_chars(out, v, decimals);
  const std::uint64_t r = static_cast<std::uint64_t>(whole) + (frac > 0.5 ? 1 : 0);
  char buf[48];
  char* const end = buf + sizeof buf;
  char* p = end;
  if (decimals > 0) {
    p = put_digits(p, r % kIntPow10[decimals], decimals);
    *--p = '.';
  }
  p = put_digits(p, r / kIntPow10[decimals], 1);
  if (std::signbit(v))
    *--p = '-';  // as to_chars: -0.000000 for a negative value that rounds to zero
  out.append(p, static_cast<size_t>(end - p));
}

}  // namespace fleetsim::sim
