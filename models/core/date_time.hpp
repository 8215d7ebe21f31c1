#pragma once
// Calendar dates and ISO 8601 date-times as job traces write them, turned into seconds since
// 1970-01-01T00:00:00Z without the C library's locale- and time-zone-dependent functions:
//
//   2023-05-01T08:00:00        2023-05-01 08:00:00.250      2023-03-01 00:18:22+08:00
//   2023-05-01T08:00:00Z       2023-05-01T08:00             2023-05-01T08:00:00-05:30
//
// A date, 'T' (or 't', or one space), hh:mm with optional :ss and an optional fraction of a
// second ('.' or ','), then an optional 'Z' or a +hh:mm / -hh:mm offset from UTC. No offset means
// UTC. Dates are proleptic Gregorian; leap seconds (:60) are not accepted.

#include <optional>
#include <string_view>

namespace fleetsim::models::fleet {

/// Days from 1970-01-01 to year-month-day (month 1..12, day 1..31), negative before 1970
/// (H. Hinnant's days_from_civil, http://howardhinnant.github.io/date_algorithms.html).
[[nodiscard]] constexpr long days_from_civil(long year, unsigned month, unsigned day)
{
  year -= month <= 2 ? 1 : 0;
  const long era = (year >= 0 ? year : year - 399) / 400;
  const auto year_of_era = static_cast<unsigned>(year - era * 400);                            // [0, 399]
  const unsigned day_of_year = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;  // [0, 365]
  const unsigned day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + static_cast<long>(day_of_era) - 719468;
}

/// Days in a month of a year of the proleptic Gregorian calendar.
[[nodiscard]] constexpr unsigned days_in_month(long year, unsigned month)
{
  constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

/// Seconds since 1970-01-01T00:00:00Z of an ISO 8601 date-time (the forms above), or nullopt when
/// the text is not one (including out-of-range fields such as 2023-02-30 or 24:00).
[[nodiscard]] std::optional<double> parse_date_time(std::string_view text);

}  // namespace fleetsim::models::fleet
