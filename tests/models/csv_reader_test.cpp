#include "models/core/csv_reader.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fleetsim::models::fleet {
namespace {

struct Read {
  std::vector<CsvRecord> records;
  std::vector<std::pair<long, std::string>> errors;
};

Read read_all(std::string_view text)
{
  CsvReader reader(text);
  Read out;
  CsvRecord record;
  std::string error;
  for (;;) {
    const auto status = reader.next(record, error);
    if (status == CsvReader::Status::End)
      return out;
    if (status == CsvReader::Status::Error)
      out.errors.emplace_back(record.line, error);
    else
      out.records.push_back(record);
  }
}

TEST(CsvReader, SplitsQuotedAndUnquotedCellsAsRfc4180Says)
{
  const auto r = read_all("a, b ,\"c,d\",\"e \"\"f\"\"\",\n");
  ASSERT_EQ(r.records.size(), 1u);
  EXPECT_EQ(r.records[0].cells, (std::vector<std::string>{"a", "b", "c,d", "e \"f\"", ""}));
}

TEST(CsvReader, SkipsBlankLinesAndAByteOrderMarkAndAcceptsCrlf)
{
  const auto r = read_all("\xEF\xBB\xBFh1,h2\r\n\r\n  \t\r\n1,2\r\n3,\"4\"\r\n\n");
  ASSERT_EQ(r.records.size(), 3u);
  EXPECT_EQ(r.records[0].cells, (std::vector<std::string>{"h1", "h2"}));
  EXPECT_EQ(r.records[1].line, 4);
  EXPECT_EQ(r.records[1].cells, (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(r.records[2].line, 5);
  EXPECT_EQ(r.records[2].cells, (std::vector<std::string>{"3", "4"}));
}

TEST(CsvReader, NumbersRecordsByTheirFirstPhysicalLine)
{
  const auto r = read_all("x\n\"one\ntwo\nthree\"\ny\n\"\"\n");
  ASSERT_EQ(r.records.size(), 4u);
  EXPECT_EQ(r.records[1].line, 2);
  EXPECT_EQ(r.records[1].cells[0], "one\ntwo\nthree");
  EXPECT_EQ(r.records[2].line, 5);
  EXPECT_EQ(r.records[3].line, 6);  // a quoted empty cell is a record, not a blank line
  EXPECT_EQ(r.records[3].cells, (std::vector<std::string>{""}));
}

TEST(CsvReader, ReportsTextAfterAClosingQuoteAndGoesOnWithTheNextLine)
{
  const auto r = read_all("\"a\"b,c\nd,e\n\"unterminated\n");
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.errors[0], (std::pair<long, std::string>{1, "text after the closing quote of a cell"}));
  EXPECT_EQ(r.errors[1], (std::pair<long, std::string>{3, "unterminated quoted cell"}));
  ASSERT_EQ(r.records.size(), 1u);
  EXPECT_EQ(r.records[0].line, 2);
  EXPECT_EQ(r.records[0].cells, (std::vector<std::string>{"d", "e"}));
}

}  // namespace
}  // namespace fleetsim::models::fleet
