#pragma once
// A CSV file's text built in one buffer and handed to the stream in large pieces (the writers of
// timeline.csv, events.csv, storage.csv).

#include "fixed_text.hpp"

#include <charconv>
#include <ostream>
#include <string>
#include <string_view>

namespace fleetsim::sim {

// One ostream insertion per field cost more than the simulation of a row.
class CsvBuffer {
public:
  explicit CsvBuffer(std::ostream& out) : out_(out) { text_.reserve(kFlushAt + 512); }
  CsvBuffer(const CsvBuffer&) = delete;
  CsvBuffer& operator=(const CsvBuffer&) = delete;
  ~CsvBuffer() { out_.write(text_.data(), static_cast<std::streamsize>(text_.size())); }
  CsvBuffer& fixed(double v, int decimals = 6)
  {
    append_fixed(text_, v, decimals);
    return *this;
  }
  CsvBuffer& integer(long v)
  {
    char buf[24];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    text_.append(buf, static_cast<size_t>(end - buf));
    return *this;
  }
  CsvBuffer& text(std::string_view s)
  {
    text_.append(s);
    return *this;
  }
  CsvBuffer& end_row()
  {
    text_.push_back('\n');
    if (text_.size() >= kFlushAt) {
      out_.write(text_.data(), static_cast<std::streamsize>(text_.size()));
      text_.clear();
    }
    return *this;
  }

private:
  static constexpr size_t kFlushAt = 1 << 16;
  std::ostream& out_;
  std::string text_;
};

}  // namespace fleetsim::sim
