#pragma once
// Records of a CSV text as RFC 4180 writes them, each with the physical line it starts on, so that a
// diagnostic can point at the line a user sees in an editor.
//
//   - cells are separated by commas; a cell in double quotes may hold commas, newlines and quotes
//     written twice ("a ""b"" c" is  a "b" c);
//   - LF and CRLF line ends are both accepted, and a UTF-8 byte-order mark at the start is skipped;
//   - blank lines (nothing but spaces or tabs) are skipped;
//   - unquoted cells are trimmed of spaces and tabs; quoted cells are kept as written.
// The reader knows nothing of headers or columns: job_trace.cpp gives the cells their meaning.

#include <string>
#include <string_view>
#include <vector>

namespace fleetsim::models::fleet {

struct CsvRecord {
  long line = 0;  // 1-based physical line the record starts on
  std::vector<std::string> cells;
};

class CsvReader {
public:
  enum class Status {
    Record,  // `record` holds the next record
    End,     // no more records
    Error,   // the record starting on `record.line` is malformed; `error` says why (reading goes on)
  };

  explicit CsvReader(std::string_view text);

  /// Reads the next non-blank record.
  Status next(CsvRecord& record, std::string& error);

private:
  bool at_end() const { return pos_ >= text_.size(); }
  void skip_blanks();
  void skip_rest_of_line();
  bool read_quoted(std::string& cell, std::string& error);
  void read_unquoted(std::string& cell);

  std::string_view text_;
  size_t pos_ = 0;
  long line_ = 1;
};

}  // namespace fleetsim::models::fleet
