#pragma once
// Runs a shell command line and captures its standard output (and whatever the command line
// redirects into it) and exit code. For tests that exercise the fleetsim binary as a user does.

#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace fleetsim::testing {

/// Built into the sanitized tree (tools/test.sh sanitized), where the fleetsim binary runs about 30
/// times slower: a test whose point is a long run may shorten it there.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitizedBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitizedBuild = true;
#else
constexpr bool kSanitizedBuild = false;
#endif
#else
constexpr bool kSanitizedBuild = false;
#endif

struct ProcessOutput {
  int code = -1;
  std::string text;
};

inline ProcessOutput run_command(const std::string& command_line)
{
  ProcessOutput out;
  FILE* p = popen(command_line.c_str(), "r");
  if (p == nullptr)
    return out;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
    out.text.append(buf.data(), n);
  const int status = pclose(p);
  out.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

#ifdef FLEETSIM_BINARY
// `fleetsim ARGS` with stderr folded into the captured text, as a user sees it on a terminal.
inline ProcessOutput fleetsim_command(const std::string& args)
{
  return run_command(std::string(FLEETSIM_BINARY) + " " + args + " 2>&1");
}
#endif

// A fresh directory under the system temp dir, removed with everything in it at the end of the test.
class TempDir {
public:
  TempDir()
  {
    std::string pattern = (std::filesystem::temp_directory_path() / "fleetsim_test_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir()
  {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] std::string operator/(const std::string& name) const { return (path_ / name).string(); }

  /// Writes `text` to path()/name and returns that path.
  std::string write(const std::string& name, const std::string& text) const
  {
    std::ofstream(path_ / name, std::ios::binary) << text;
    return (path_ / name).string();
  }

private:
  std::filesystem::path path_;
};

// The whole content of a file ("" when it cannot be read).
inline std::string read_file(const std::filesystem::path& p)
{
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::vector<std::string> lines_of(const std::string& text)
{
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);)
    out.push_back(line);
  return out;
}

/// The comma-separated cells of one CSV line (no quoting: fleetsim's own files have none).
inline std::vector<std::string> csv_cells(const std::string& line)
{
  std::vector<std::string> out;
  std::stringstream ss(line);
  for (std::string c; std::getline(ss, c, ',');)
    out.push_back(c);
  return out;
}

/// The index of column `name` in a CSV header; header.size() when it has none (so that `.at()`
/// with it throws and the test fails).
inline std::size_t column_of(const std::vector<std::string>& header, const std::string& name)
{
  return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
}

/// A CSV file's header and rows of cells.
struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  [[nodiscard]] std::size_t col(const std::string& name) const { return column_of(header, name); }
  /// Row `row`'s cell in column `name` (throws if either is missing).
  [[nodiscard]] const std::string& cell(std::size_t row, const std::string& name) const
  {
    return rows.at(row).at(col(name));
  }
};

inline Csv read_csv(const std::filesystem::path& path)
{
  Csv csv;
  std::istringstream in(read_file(path));
  std::string line;
  std::getline(in, line);
  csv.header = csv_cells(line);
  while (std::getline(in, line))
    csv.rows.push_back(csv_cells(line));
  return csv;
}

}  // namespace fleetsim::testing
