#include "date_time.hpp"

namespace fleetsim::models::fleet {
namespace {

// Reads the text left to right; every read fails (and returns false) without moving on a mismatch.
class Cursor {
public:
  explicit Cursor(std::string_view text) : text_(text) {}

  bool done() const { return pos_ == text_.size(); }
  bool peek(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  bool eat(char c)
  {
    if (!peek(c))
      return false;
    ++pos_;
    return true;
  }
  bool eat_any(std::string_view chars, char& which)
  {
    if (pos_ >= text_.size() || chars.find(text_[pos_]) == std::string_view::npos)
      return false;
    which = text_[pos_++];
    return true;
  }
  /// Exactly n decimal digits.
  bool digits(int n, long& value)
  {
    if (text_.size() - pos_ < static_cast<size_t>(n))
      return false;
    long v = 0;
    for (int i = 0; i < n; ++i) {
      const char c = text_[pos_ + i];
      if (c < '0' || c > '9')
        return false;
      v = v * 10 + (c - '0');
    }
    pos_ += n;
    value = v;
    return true;
  }
  /// One or more digits after a decimal separator, as a fraction in [0, 1).
  bool fraction(double& value)
  {
    double scale = 0.1;
    value = 0;
    const size_t begin = pos_;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      value += (text_[pos_++] - '0') * scale;
      scale /= 10;
    }
    return pos_ > begin;
  }

private:
  std::string_view text_;
  size_t pos_ = 0;
};

// "Z", "+hh:mm", "-hh:mm" or nothing; the offset is added to local time to get UTC.
bool parse_offset(Cursor& in, long& offset_seconds)
{
  offset_seconds = 0;
  char sign = 0;
  if (in.eat('Z') || in.eat('z') || in.done())
    return in.done();
  if (!in.eat_any("+-", sign))
    return false;
  long hours = 0;
  long minutes = 0;
  if (!in.digits(2, hours) || !in.eat(':') || !in.digits(2, minutes) || hours > 23 || minutes > 59)
    return false;
  offset_seconds = (hours * 3600 + minutes * 60) * (sign == '+' ? -1 : 1);
  return in.done();
}

}  // namespace

std::optional<double> parse_date_time(std::string_view text)
{
  Cursor in(text);
  long year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  char separator = 0;
  if (!in.digits(4, year) || !in.eat('-') || !in.digits(2, month) || !in.eat('-') || !in.digits(2, day))
    return std::nullopt;
  if (month < 1 || month > 12 || day < 1 || day > static_cast<long>(days_in_month(year, month)))
    return std::nullopt;
  if (!in.eat_any("Tt ", separator) || !in.digits(2, hour) || !in.eat(':') || !in.digits(2, minute))
    return std::nullopt;
  double fraction = 0;
  if (in.eat(':')) {
    if (!in.digits(2, second))
      return std::nullopt;
    if ((in.eat('.') || in.eat(',')) && !in.fraction(fraction))
      return std::nullopt;
  }
  if (hour > 23 || minute > 59 || second > 59)
    return std::nullopt;
  long offset = 0;
  if (!parse_offset(in, offset))
    return std::nullopt;
  const long days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  const long seconds = days * 86400 + hour * 3600 + minute * 60 + second + offset;
  return static_cast<double>(seconds) + fraction;
}

}  // namespace fleetsim::models::fleet
