#include "csv_reader.hpp"

namespace fleetsim::models::fleet {
namespace {

// A carriage return counts as a blank: CRLF ends a line like LF does.
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

}  // namespace

CsvReader::CsvReader(std::string_view text) : text_(text)
{
  if (text_.substr(0, 3) == "\xEF\xBB\xBF")
    pos_ = 3;
}

void CsvReader::skip_blanks()
{
  while (!at_end() && is_blank(text_[pos_]))
    ++pos_;
}

void CsvReader::skip_rest_of_line()
{
  while (!at_end() && text_[pos_] != '\n')
    ++pos_;
}

bool CsvReader::read_quoted(std::string& cell, std::string& error)
{
  ++pos_;  // the opening quote
  for (;;) {
    if (at_end()) {
      error = "unterminated quoted cell";
      return false;
    }
    const char c = text_[pos_++];
    if (c == '"') {
      if (at_end() || text_[pos_] != '"')
        break;
      ++pos_;  // "" is one quote
    } else if (c == '\n') {
      ++line_;
    }
    cell.push_back(c);
  }
  skip_blanks();
  if (!at_end() && text_[pos_] != ',' && text_[pos_] != '\n') {
    error = "text after the closing quote of a cell";
    return false;
  }
  return true;
}

void CsvReader::read_unquoted(std::string& cell)
{
  const size_t begin = pos_;
  while (!at_end() && text_[pos_] != ',' && text_[pos_] != '\n')
    ++pos_;
  size_t end = pos_;
  while (end > begin && is_blank(text_[end - 1]))
    --end;
  cell.assign(text_.substr(begin, end - begin));
}

CsvReader::Status CsvReader::next(CsvRecord& record, std::string& error)
{
  while (!at_end()) {
    record.line = line_;
    record.cells.clear();
    bool quoted = false;
    bool failed = false;
    for (;;) {
      std::string cell;
      skip_blanks();
      if (!at_end() && text_[pos_] == '"') {
        quoted = true;
        failed = !read_quoted(cell, error);
      } else {
        read_unquoted(cell);
      }
      record.cells.push_back(std::move(cell));
      if (failed || at_end() || text_[pos_] != ',')
        break;
      ++pos_;  // the comma
    }
    if (failed)
      skip_rest_of_line();
    if (!at_end()) {  // the line feed
      ++pos_;
      ++line_;
    }
    if (failed)
      return Status::Error;
    if (!quoted && record.cells.size() == 1 && record.cells[0].empty())
      continue;  // a blank line
    return Status::Record;
  }
  return Status::End;
}

}  // namespace fleetsim::models::fleet
