#pragma once
// Inline SVG charts for `fleetsim report`: scales (linear, log2, categorical), round axis ticks,
// min/max downsampling of long traces, slices of step series, HTML escaping, and a Plot that
// accumulates SVG elements over one plot area. Pure text: no I/O, and the same calls give the same bytes.

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fleetsim::report {

/// Escapes & < > " ' for HTML text and attribute values.
[[nodiscard]] std::string html_escape(std::string_view s);

/// `v` with `significant` digits, no exponent below 1e6, SI suffixes (k, M, G, T) at 1e4 and above.
[[nodiscard]] std::string format_number(double v, int significant = 4);
/// A tick label: as many decimals as `step` needs; SI suffixes from 1e4.
[[nodiscard]] std::string format_tick(double v, double step);
/// `v` with `decimals` decimals (no "-0").
[[nodiscard]] std::string fixed(double v, int decimals);
/// A fraction as a percentage: percent(0.1234) is "12.3%".
[[nodiscard]] std::string percent(double v, int decimals = 1);
/// `v` with `decimals` decimals and commas between thousands: grouped(11496577.3) is "11,496,577".
[[nodiscard]] std::string grouped(double v, int decimals = 0);

/// The unit a set of durations up to `max_s` reads best in: s, min, h or d.
struct TimeUnit {
  double seconds;
  const char* name;
};
[[nodiscard]] TimeUnit time_unit_for(double max_s);

/// A round step (1, 2 or 5 times a power of ten) that splits `span` into about `target` parts.
[[nodiscard]] double nice_step(double span, int target);
/// The multiples of nice_step(hi - lo, target) within [lo, hi] (a widened range when hi <= lo).
[[nodiscard]] std::vector<double> nice_ticks(double lo, double hi, int target = 5);

/// [lo, hi] widened outwards to multiples of nice_step (and made non-empty).
struct Domain {
  double lo = 0;
  double hi = 1;
};
[[nodiscard]] Domain nice_domain(double lo, double hi, int target = 5);

/// Maps data values to pixels. Categorical scales map the index i of n categories to the middle
/// of the i-th of n equal slots.
class Scale {
public:
  enum class Kind { Linear, Log2, Categorical };
  Scale() = default;
  [[nodiscard]] static Scale linear(double lo, double hi, double px0, double px1);
  [[nodiscard]] static Scale log2(double lo, double hi, double px0, double px1);
  [[nodiscard]] static Scale categorical(std::size_t n, double px0, double px1);

  [[nodiscard]] double operator()(double v) const;
  /// Tick positions in data units: nice_ticks (linear), powers of two (log2), every index (categorical).
  [[nodiscard]] std::vector<double> ticks(int target = 5) const;
  [[nodiscard]] Kind kind() const { return kind_; }
  [[nodiscard]] double lo() const { return lo_; }
  [[nodiscard]] double hi() const { return hi_; }

private:
  Scale(Kind k, double lo, double hi, double px0, double px1) : kind_(k), lo_(lo), hi_(hi), px0_(px0), px1_(px1) {}
  Kind kind_ = Kind::Linear;
  double lo_ = 0;
  double hi_ = 1;
  double px0_ = 0;
  double px1_ = 1;
};

struct XY {
  double x = 0;
  double y = 0;
};

/// At most two points per bucket of equal width over [x0, x1]: each bucket's lowest and highest
/// point, in their original order. `pts` must be sorted by x; the result is too.
[[nodiscard]] std::vector<XY> downsample_min_max(const std::vector<XY>& pts, double x0, double x1, int buckets);

/// One slice of a piecewise-constant series: the time-weighted mean over the part of the slice the
/// series covers, the lowest and highest value held for a positive time in it, and that time.
struct StepBin {
  double mean = 0;
  double min = 0;
  double max = 0;
  double covered = 0;
};
/// The series value[i], held from t[i] until t[i + 1] (the last until t_end), cut into `bins` equal
/// slices of [t0, t1]. `t` must be ascending. A slice the series does not reach has covered == 0.
[[nodiscard]] std::vector<StepBin> step_bins(const std::vector<double>& t, const std::vector<double>& value,
                                             double t_end, double t0, double t1, int bins);

class Plot;
/// The SVG path data of one field of `bins` (one slice per pixel column from the plot's left edge to
/// its right) divided by `unit`, as a step outline of H and V commands, one run per value; slices
/// with covered == 0 break it. With `area`, each run is closed down to the x axis.
[[nodiscard]] std::string step_outline(const Plot& p, const std::vector<StepBin>& bins, double StepBin::*field,
                                       double unit, bool area);
/// The SVG path data of the region between each slice's min and max (divided by `unit`), as
/// closed step outlines: left to right along the max, back along the min. Slices with covered == 0 break it.
[[nodiscard]] std::string step_envelope(const Plot& p, const std::vector<StepBin>& bins, double unit);

/// Appends the parts to `out` (without `"literal" + std::string` temporaries, which GCC 12 warns about).
void append(std::string& out, std::initializer_list<std::string_view> parts);

/// A number as SVG coordinate text (one decimal).
[[nodiscard]] std::string px(double v);

struct Tick {
  double value = 0;
  std::string label;
};
/// `values` (evenly spaced, as nice_ticks gives them) labelled by format_tick with their spacing.
[[nodiscard]] std::vector<Tick> labelled_ticks(const std::vector<double>& values);

/// One plot area inside an SVG canvas: margins hold the axes' labels and titles.
class Plot {
public:
  Plot(double width, double height, double left, double right, double top, double bottom);

  [[nodiscard]] double left() const { return left_; }
  [[nodiscard]] double right() const { return width_ - right_; }
  [[nodiscard]] double top() const { return top_; }
  [[nodiscard]] double bottom() const { return height_ - bottom_; }
  void set_scales(const Scale& x, const Scale& y);
  [[nodiscard]] double x(double v) const { return x_(v); }
  [[nodiscard]] double y(double v) const { return y_(v); }

  /// Horizontal grid lines at the y ticks, the two axis lines, tick labels and axis titles.
  void axes(const std::vector<Tick>& xt, const std::vector<Tick>& yt, const std::string& x_title,
            const std::string& y_title);
  void polyline(const std::vector<XY>& pts, const std::string& color, double width, bool dashed = false);
  /// The region between two curves over the same x values.
  void band(const std::vector<XY>& lower, const std::vector<XY>& upper, const std::string& color, double opacity);
  void circles(const std::vector<XY>& pts, const std::string& color, double r);
  /// A rectangle in pixels, with an optional tooltip.
  void rect_px(double x, double y, double w, double h, const std::string& color, const std::string& tip = "");
  void text_px(double x, double y, const std::string& text, const char* anchor = "start", const char* cls = "lbl");
  void raw(const std::string& svg) { body_ += svg; }
  [[nodiscard]] std::string svg(const std::string& label) const;

private:
  double width_, height_, left_, right_, top_, bottom_;
  Scale x_, y_;
  std::string body_;
};

/// The categorical palette (colour-blind friendly, distinct from the state colours' greens).
[[nodiscard]] const std::string& palette(std::size_t i);

/// A number with a unit suffix, "10min" -> {10, "min"}, "4096" -> {4096, ""}; nullopt otherwise.
struct NumberWithUnit {
  double value = 0;
  std::string unit;
};
[[nodiscard]] std::optional<NumberWithUnit> parse_number_with_unit(std::string_view text);

}  // namespace fleetsim::report
