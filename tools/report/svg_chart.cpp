#include "svg_chart.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace fleetsim::report {
namespace {

std::string printf_g(double v, int significant)
{
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*g", significant, v);
  return buf;
}

std::string printf_f(double v, int decimals)
{
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s == "-0" || s.rfind("-0.", 0) == 0) {  // "-0.00" -> "0.00"
    if (s.find_first_not_of("-0.") == std::string::npos)
      s.erase(0, 1);
  }
  return s;
}

// {scale, suffix} for |v| >= 1e4, or {1, ""}.
std::pair<double, const char*> si_prefix(double v)
{
  const double a = std::fabs(v);
  if (a >= 1e12)
    return {1e12, "T"};
  if (a >= 1e9)
    return {1e9, "G"};
  if (a >= 1e6)
    return {1e6, "M"};
  if (a >= 1e4)
    return {1e3, "k"};
  return {1, ""};
}

}  // namespace

std::string html_escape(std::string_view s)
{
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string format_number(double v, int significant)
{
  if (!std::isfinite(v))
    return "n/a";
  if (v == 0)
    return "0";
  const auto [scale, suffix] = si_prefix(v);
  const double scaled = v / scale;
  // %g would switch to an exponent for 140 at 2 significant digits: round to an integer instead.
  if (std::fabs(scaled) >= std::pow(10.0, significant))
    return printf_f(scaled, 0) + suffix;
  return printf_g(scaled, significant) + suffix;
}

std::string format_tick(double v, double step)
{
  if (v == 0)
    return "0";
  const auto [scale, suffix] = si_prefix(std::max(std::fabs(v), std::fabs(step)));
  const double s = step / scale;
  const int decimals = s >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(s) - 1e-9));
  return printf_f(v / scale, std::clamp(decimals, 0, 9)) + suffix;
}

std::string fixed(double v, int decimals) { return printf_f(v, decimals); }

std::string percent(double v, int decimals) { return printf_f(100 * v, decimals) + "%"; }

std::string grouped(double v, int decimals)
{
  const std::string s = printf_f(v, decimals);
  const std::size_t begin = s[0] == '-' ? 1 : 0;
  const std::size_t end = std::min(s.find('.'), s.size());
  std::string out = s.substr(0, begin);
  for (std::size_t i = begin; i < end; ++i) {
    if (i > begin && (end - i) % 3 == 0)
      out += ',';
    out += s[i];
  }
  return out + s.substr(end);
}

double nice_step(double span, int target)
{
  if (!(span > 0) || !std::isfinite(span))
    return 1;
  const double raw = span / std::max(target, 1);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / mag;
  const double m = norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10;
  return m * mag;
}

Domain nice_domain(double lo, double hi, int target)
{
  if (!std::isfinite(lo) || !std::isfinite(hi))
    return {0, 1};
  if (hi <= lo && lo == 0) {
    hi = 1;
  } else if (hi <= lo) {
    const double pad = std::fabs(lo) * 0.05;
    lo -= pad;
    hi += pad;
  }
  const double step = nice_step(hi - lo, target);
  return {std::floor(lo / step + 1e-9) * step, std::ceil(hi / step - 1e-9) * step};
}

std::vector<double> nice_ticks(double lo, double hi, int target)
{
  if (hi <= lo) {
    const Domain d = nice_domain(lo, hi, target);
    lo = d.lo;
    hi = d.hi;
  }
  const double step = nice_step(hi - lo, target);
  std::vector<double> out;
  const long first = static_cast<long>(std::ceil(lo / step - 1e-9));
  const long last = static_cast<long>(std::floor(hi / step + 1e-9));
  for (long k = first; k <= last; ++k)
    out.push_back(static_cast<double>(k) * step);
  return out;
}

Scale Scale::linear(double lo, double hi, double px0, double px1) { return {Kind::Linear, lo, hi, px0, px1}; }
Scale Scale::log2(double lo, double hi, double px0, double px1) { return {Kind::Log2, lo, hi, px0, px1}; }
Scale Scale::categorical(std::size_t n, double px0, double px1)
{
  return {Kind::Categorical, 0, static_cast<double>(std::max<std::size_t>(n, 1)), px0, px1};
}

double Scale::operator()(double v) const
{
  double f = 0.5;
  switch (kind_) {
    case Kind::Linear:
      if (hi_ > lo_)
        f = (v - lo_) / (hi_ - lo_);
      break;
    case Kind::Log2:
      if (hi_ > lo_ && v > 0)
        f = (std::log2(v) - std::log2(lo_)) / (std::log2(hi_) - std::log2(lo_));
      break;
    case Kind::Categorical: f = (v + 0.5) / hi_; break;
  }
  return px0_ + f * (px1_ - px0_);
}

std::vector<double> Scale::ticks(int target) const
{
  std::vector<double> out;
  if (kind_ == Kind::Categorical) {
    for (int i = 0; i < static_cast<int>(hi_); ++i)
      out.push_back(i);
  } else if (kind_ == Kind::Log2) {
    const int a = static_cast<int>(std::ceil(std::log2(lo_) - 1e-9));
    const int b = static_cast<int>(std::floor(std::log2(hi_) + 1e-9));
    const int every = std::max(1, (b - a) / std::max(target * 2, 1) + 1);
    for (int e = a; e <= b; e += every)
      out.push_back(std::ldexp(1.0, e));
  } else {
    out = nice_ticks(lo_, hi_, target);
  }
  return out;
}

std::vector<XY> downsample_min_max(const std::vector<XY>& pts, double x0, double x1, int buckets)
{
  std::vector<XY> out;
  if (pts.empty() || buckets < 1)
    return out;
  const double span = x1 > x0 ? x1 - x0 : 1;
  auto bucket_of = [&](double x) {
    const double b = std::floor((x - x0) / span * buckets);
    return static_cast<int>(std::clamp(b, 0.0, static_cast<double>(buckets - 1)));
  };
  std::size_t i = 0;
  while (i < pts.size()) {
    const int b = bucket_of(pts[i].x);
    std::size_t lo = i;
    std::size_t hi = i;
    std::size_t j = i + 1;
    for (; j < pts.size() && bucket_of(pts[j].x) == b; ++j) {
      if (pts[j].y < pts[lo].y)
        lo = j;
      if (pts[j].y > pts[hi].y)
        hi = j;
    }
    out.push_back(pts[std::min(lo, hi)]);
    if (lo != hi)
      out.push_back(pts[std::max(lo, hi)]);
    i = j;
  }
  return out;
}

std::vector<StepBin> step_bins(const std::vector<double>& t, const std::vector<double>& value, double t_end, double t0,
                               double t1, int bins)
{
  std::vector<StepBin> out(static_cast<std::size_t>(std::max(bins, 1)));
  if (!(t1 > t0) || t.size() != value.size())
    return out;
  const double dt = (t1 - t0) / static_cast<double>(out.size());
  const auto last = static_cast<long>(out.size()) - 1;
  std::vector<double> sum(out.size(), 0);
  for (std::size_t i = 0; i < t.size(); ++i) {
    const double a = std::max(t[i], t0);
    const double b = std::min(i + 1 < t.size() ? t[i + 1] : t_end, t1);
    if (!(b > a))
      continue;
    const long c0 = std::clamp(static_cast<long>(std::floor((a - t0) / dt)), 0L, last);
    const long c1 = std::clamp(static_cast<long>(std::floor((b - t0) / dt)), 0L, last);
    for (long c = c0; c <= c1; ++c) {
      const double w = std::min(b, t0 + static_cast<double>(c + 1) * dt) -
                       std::max(a, t0 + static_cast<double>(c) * dt);
      if (!(w > 0))
        continue;
      StepBin& s = out[static_cast<std::size_t>(c)];
      s.min = s.covered > 0 ? std::min(s.min, value[i]) : value[i];
      s.max = s.covered > 0 ? std::max(s.max, value[i]) : value[i];
      s.covered += w;
      sum[static_cast<std::size_t>(c)] += value[i] * w;
    }
  }
  for (std::size_t c = 0; c < out.size(); ++c)
    if (out[c].covered > 0)
      out[c].mean = sum[c] / out[c].covered;
  return out;
}

std::string px(double v) { return printf_f(v, 1); }

std::vector<Tick> labelled_ticks(const std::vector<double>& values)
{
  const double step = values.size() > 1 ? values[1] - values[0] : 1;
  std::vector<Tick> out;
  for (double v : values)
    out.push_back({v, format_tick(v, step)});
  return out;
}

void append(std::string& out, std::initializer_list<std::string_view> parts)
{
  for (auto part : parts)
    out.append(part);
}

Plot::Plot(double width, double height, double left, double right, double top, double bottom)
    : width_(width), height_(height), left_(left), right_(right), top_(top), bottom_(bottom)
{}

void Plot::set_scales(const Scale& x, const Scale& y)
{
  x_ = x;
  y_ = y;
}

void Plot::axes(const std::vector<Tick>& xt, const std::vector<Tick>& yt, const std::string& x_title,
                const std::string& y_title)
{
  for (const auto& t : yt) {
    const std::string yy = px(y(t.value));
    body_ += "<line class=\"grid\" x1=\"" + px(left()) + "\" x2=\"" + px(right()) + "\" y1=\"" + yy + "\" y2=\"" + yy +
             "\"/>";
    text_px(left() - 6, y(t.value) + 4, t.label, "end", "tick");
  }
  for (const auto& t : xt) {
    const std::string xx = px(x(t.value));
    body_ += "<line class=\"axis\" x1=\"" + xx + "\" x2=\"" + xx + "\" y1=\"" + px(bottom()) + "\" y2=\"" +
             px(bottom() + 4) + "\"/>";
    text_px(x(t.value), bottom() + 16, t.label, "middle", "tick");
  }
  body_ += "<line class=\"axis\" x1=\"" + px(left()) + "\" x2=\"" + px(right()) + "\" y1=\"" + px(bottom()) +
           "\" y2=\"" + px(bottom()) + "\"/>";
  body_ += "<line class=\"axis\" x1=\"" + px(left()) + "\" x2=\"" + px(left()) + "\" y1=\"" + px(top()) + "\" y2=\"" +
           px(bottom()) + "\"/>";
  if (!x_title.empty())
    text_px((left() + right()) / 2, height_ - 6, x_title, "middle", "atitle");
  if (!y_title.empty()) {
    const std::string cx = px(14);
    const std::string cy = px((top() + bottom()) / 2);
    body_ += "<text class=\"atitle\" text-anchor=\"middle\" transform=\"translate(" + cx + "," + cy +
             ") rotate(-90)\">" + html_escape(y_title) + "</text>";
  }
}

void Plot::polyline(const std::vector<XY>& pts, const std::string& color, double width, bool dashed)
{
  if (pts.empty())
    return;
  std::string p;
  for (const auto& q : pts)
    append(p, {p.empty() ? "" : " ", px(x(q.x)), ",", px(y(q.y))});
  body_ += "<polyline fill=\"none\" stroke=\"" + color + "\" stroke-width=\"" + px(width) + "\"" +
           (dashed ? " stroke-dasharray=\"4 3\"" : "") + " points=\"" + p + "\"/>";
}

void Plot::band(const std::vector<XY>& lower, const std::vector<XY>& upper, const std::string& color, double opacity)
{
  if (lower.empty() || lower.size() != upper.size())
    return;
  std::string p;
  for (const auto& q : upper)
    append(p, {p.empty() ? "" : " ", px(x(q.x)), ",", px(y(q.y))});
  for (auto it = lower.rbegin(); it != lower.rend(); ++it)
    append(p, {" ", px(x(it->x)), ",", px(y(it->y))});
  body_ += "<polygon fill=\"" + color + "\" fill-opacity=\"" + printf_f(opacity, 2) + "\" stroke=\"none\" points=\"" +
           p + "\"/>";
}

void Plot::circles(const std::vector<XY>& pts, const std::string& color, double r)
{
  for (const auto& q : pts)
    body_ += "<circle cx=\"" + px(x(q.x)) + "\" cy=\"" + px(y(q.y)) + "\" r=\"" + px(r) + "\" fill=\"" + color + "\"/>";
}

void Plot::rect_px(double x, double y, double w, double h, const std::string& color, const std::string& tip)
{
  body_ += "<rect x=\"" + px(x) + "\" y=\"" + px(y) + "\" width=\"" + px(w) + "\" height=\"" + px(h) + "\" fill=\"" +
           color + "\"";
  body_ += tip.empty() ? "/>" : "><title>" + html_escape(tip) + "</title></rect>";
}

void Plot::text_px(double x, double y, const std::string& text, const char* anchor, const char* cls)
{
  body_ += "<text class=\"" + std::string(cls) + "\" x=\"" + px(x) + "\" y=\"" + px(y) + "\" text-anchor=\"" + anchor +
           "\">" + html_escape(text) + "</text>";
}

std::string Plot::svg(const std::string& label) const
{
  return "<svg width=\"" + px(width_) + "\" height=\"" + px(height_) + "\" viewBox=\"0 0 " + px(width_) + " " +
         px(height_) + "\" role=\"img\" aria-label=\"" + html_escape(label) + "\">" + body_ + "</svg>\n";
}

std::string step_outline(const Plot& p, const std::vector<StepBin>& bins, double StepBin::*field, double unit,
                         bool area)
{
  std::string d;
  if (bins.empty())
    return d;
  const double colw = (p.right() - p.left()) / static_cast<double>(bins.size());
  bool open = false;
  double last_y = 0;
  const auto close = [&](double x) {
    append(d, {"H", px(x)});
    if (area)
      append(d, {"V", px(p.bottom()), "Z"});
    open = false;
  };
  for (std::size_t c = 0; c < bins.size(); ++c) {
    const double x = p.left() + static_cast<double>(c) * colw;
    if (!(bins[c].covered > 0)) {
      if (open)
        close(x);
      continue;
    }
    const double y = p.y(bins[c].*field / unit);
    if (!open) {
      append(d, {"M", px(x), ",", px(area ? p.bottom() : y)});
      if (area)
        append(d, {"V", px(y)});
      open = true;
    } else if (px(y) != px(last_y)) {
      append(d, {"H", px(x), "V", px(y)});
    }
    last_y = y;
  }
  if (open)
    close(p.right());
  return d;
}

std::string step_envelope(const Plot& p, const std::vector<StepBin>& bins, double unit)
{
  std::string d;
  if (bins.empty())
    return d;
  const double colw = (p.right() - p.left()) / static_cast<double>(bins.size());
  const auto x_at = [&](std::size_t c) { return px(p.left() + static_cast<double>(c) * colw); };
  std::size_t c = 0;
  while (c < bins.size()) {
    if (!(bins[c].covered > 0)) {
      ++c;
      continue;
    }
    std::size_t e = c;  // the run of covered slices [c, e)
    while (e < bins.size() && bins[e].covered > 0)
      ++e;
    append(d, {"M", x_at(c), ",", px(p.y(bins[c].max / unit))});
    for (std::size_t k = c + 1; k < e; ++k)
      if (px(p.y(bins[k].max / unit)) != px(p.y(bins[k - 1].max / unit)))
        append(d, {"H", x_at(k), "V", px(p.y(bins[k].max / unit))});
    append(d, {"H", x_at(e), "V", px(p.y(bins[e - 1].min / unit))});
    for (std::size_t k = e - 1; k > c; --k)
      if (px(p.y(bins[k - 1].min / unit)) != px(p.y(bins[k].min / unit)))
        append(d, {"H", x_at(k), "V", px(p.y(bins[k - 1].min / unit))});
    append(d, {"H", x_at(c), "Z"});
    c = e;
  }
  return d;
}

const std::string& palette(std::size_t i)
{
  static const std::array<std::string, 10> colors = {"#1f6fb4", "#e8710a", "#7b3fa0", "#c2185b", "#00897b",
                                                     "#8d6e00", "#455a64", "#d84315", "#3949ab", "#6d4c41"};
  return colors[i % colors.size()];
}

std::optional<NumberWithUnit> parse_number_with_unit(std::string_view text)
{
  std::size_t end = 0;
  while (end < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.' || text[end] == '-' ||
          text[end] == '+' ||
          ((text[end] == 'e' || text[end] == 'E') && end > 0 && end + 1 < text.size() &&
           (std::isdigit(static_cast<unsigned char>(text[end + 1])) || text[end + 1] == '-' || text[end + 1] == '+'))))
    ++end;
  if (end == 0)
    return std::nullopt;
  NumberWithUnit out;
  auto [p, ec] = std::from_chars(text.data(), text.data() + end, out.value);
  if (ec != std::errc() || p != text.data() + end || !std::isfinite(out.value))
    return std::nullopt;
  std::string_view unit = text.substr(end);
  while (!unit.empty() && unit.front() == ' ')
    unit.remove_prefix(1);
  for (char c : unit)
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != '/' && c != '%')
      return std::nullopt;
  out.unit = std::string(unit);
  return out;
}

TimeUnit time_unit_for(double max_s)
{
  if (max_s < 90)
    return {1, "s"};
  if (max_s < 90 * 60)
    return {60, "min"};
  if (max_s < 2 * 86400)
    return {3600, "h"};
  return {86400, "d"};
}

}  // namespace fleetsim::report
