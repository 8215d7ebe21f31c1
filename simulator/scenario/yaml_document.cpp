#include "yaml_document.hpp"

#include <yaml-cpp/eventhandler.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace fleetsim::scenario {
namespace {

// True when the text holds no YAML content: only blank lines, comments, directives and document
// markers ("---", "...").
bool has_no_content(std::string_view text)
{
  size_t pos = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;  // a UTF-8 byte order mark
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    const size_t first = line.find_first_not_of(" \t\r\f\v");
    if (first == std::string_view::npos)
      continue;
    line.remove_prefix(first);
    if (line.front() == '#' || line.front() == '%')
      continue;
    if (line.substr(0, 3) == "---" || line.substr(0, 3) == "...") {
      const std::string_view rest = line.substr(3);
      const size_t next = rest.find_first_not_of(" \t\r");
      if (next == std::string_view::npos || (rest[next] == '#' && next > 0))
        continue;
    }
    return false;
  }
  return true;
}

// The marks where the text's YAML documents start. YAML::LoadAll is not used: yaml-cpp 0.7 loops
// forever, allocating, on a token that no document consumes, such as a stray ',' at document level
// (",", " ,", "{a: 1},"; upstream jbeder/yaml-cpp#1040, fixed after 0.7 by #1319). Such a token
// starts every further "document" at the same mark, which is where the walk stops with an error.
class DocumentStarts : public YAML::EventHandler {
public:
  std::vector<YAML::Mark> marks;
  bool stuck = false;

  void OnDocumentStart(const YAML::Mark& mark) override
  {
    stuck = !marks.empty() && marks.back().pos == mark.pos;
    marks.push_back(mark);
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// Where each document starts; throws YAML::ParserException like LoadAll, and also at a token that
// yaml-cpp would loop on.
std::vector<YAML::Mark> document_starts(const std::string& text)
{
  std::stringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts starts;
  while (parser.HandleNextDocument(starts)) {
    if (starts.stuck) {
      const YAML::Mark& m = starts.marks.back();
      const char c = m.pos >= 0 && static_cast<size_t>(m.pos) < text.size() ? text[m.pos] : '?';
      throw YAML::ParserException(m, std::string("unexpected '") + c + "' outside a flow collection");
    }
  }
  return starts.marks;
}

}  // namespace

SourceLocation at(const std::string& file, const YAML::Mark& m)
{
  if (m.line < 0)
    return {file, 0, 0};
  return {file, m.line + 1, m.column + 1};
}

std::optional<YAML::Node> parse_map_document(std::string_view text, const std::string& display_name,
                                             const std::string& what, Diagnostics& diags)
{
  // Nothing but blanks and comments: almost always a wrong or truncated file, and running the
  // table's defaults instead would hide it. An explicit `{}` still means "all defaults".
  if (has_no_content(text)) {
    diags.error({display_name, 1, 1}, what + " file is empty");
    return std::nullopt;
  }
  try {
    const std::string copy(text);
    const std::vector<YAML::Mark> docs = document_starts(copy);
    YAML::Node root = docs.empty() ? YAML::Node() : YAML::Load(copy);
    if (docs.size() > 1)
      diags.error(at(display_name, docs[1]),
                  "a " + what + " file holds one YAML document, found " + std::to_string(docs.size()));
    if (!root.IsMap()) {
      diags.error(at(display_name, root.Mark()), "a " + what + " must be a map of keys");
      return std::nullopt;
    }
    return root;
  } catch (const YAML::Exception& e) {
    diags.error(at(display_name, e.mark), "malformed YAML: " + e.msg);
    return std::nullopt;
  }
}

std::optional<std::string> read_text_file(const std::string& path, const std::string& what, Diagnostics& diags,
                                          SourceLocation where)
{
  if (where.file.empty())
    where = {path, 0, 0};
  const std::string prefix = where.file == path ? "" : "'" + path + "' ";
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    const bool vowel = !what.empty() && std::string_view("aeiou").find(what.front()) != std::string_view::npos;
    diags.error(where, prefix + "is a directory, not " + (vowel ? "an " : "a ") + what + " file");
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diags.error(where,
                "cannot open " + what + " file" + (prefix.empty() ? "" : " " + prefix.substr(0, prefix.size() - 1)));
    return std::nullopt;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    diags.error(where,
                "cannot read " + what + " file" + (prefix.empty() ? "" : " " + prefix.substr(0, prefix.size() - 1)));
    return std::nullopt;
  }
  return buffer.str();
}

}  // namespace fleetsim::scenario
