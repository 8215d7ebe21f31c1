// libFuzzer target: the sweep file reader (read_sweep). It reads a path, so each input is written to
// one file in a private temp directory. Its diagnostics go to std::cerr, which is counted here and
// not printed.
// Checks: a rejected file printed a diagnostic and an accepted one printed nothing; an accepted
// sweep has a base, 1 or more replicas, values on every axis, zipped keys as many values as their
// axis, no axis value holding one of , " / = or a line break (they name run directories and CSV
// cells), and only known metrics.
#include "cli/sweep_plan.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <streambuf>
#include <string>
#include <unistd.h>

namespace {

// Swallows what is written, counting the characters.
class CountingBuffer : public std::streambuf {
public:
  std::size_t count = 0;

protected:
  int overflow(int c) override
  {
    ++count;
    return c;
  }
  std::streamsize xsputn(const char*, std::streamsize n) override
  {
    count += static_cast<std::size_t>(n);
    return n;
  }
};

CountingBuffer g_err;
std::string g_path;

void check(bool ok, const char* what)
{
  if (!ok) {
    std::fprintf(stderr, "fuzz_sweep_file: contract broken: %s\n", what);
    std::abort();
  }
}

void check_values(const std::vector<std::string>& values, std::size_t expected)
{
  check(!values.empty() && values.size() == expected, "every axis and zipped key has its values");
  for (const auto& v : values)
    check(v.find_first_of(",\"/=\n\r") == std::string::npos, "axis values hold no , \" / = or line break");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
  std::cerr.rdbuf(&g_err);
  std::string dir = (std::filesystem::temp_directory_path() / "fleetsim_fuzz_XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr)
    std::abort();
  g_path = dir + "/sweep.yaml";
  std::atexit([] {
    std::error_code ec;
    std::filesystem::remove_all(std::filesystem::path(g_path).parent_path(), ec);
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  FILE* f = std::fopen(g_path.c_str(), "wb");
  if (f == nullptr || std::fwrite(data, 1, size, f) != size || std::fclose(f) != 0)
    std::abort();
  g_err.count = 0;
  const auto sweep = fleetsim::cli::read_sweep(g_path);
  check(sweep.has_value() == (g_err.count == 0), "a rejected file printed a diagnostic, an accepted one nothing");
  if (!sweep)
    return 0;
  check(!sweep->base.empty() && sweep->replicas >= 1, "an accepted sweep has a base and replicas");
  for (const auto& a : sweep->axes) {
    check_values(a.values, a.values.size());
    for (const auto& [key, values] : a.zipped)
      check_values(values, a.values.size());
  }
  for (const auto& m : sweep->metrics)
    check(fleetsim::cli::find_metric(m) != nullptr, "only known metrics");
  return 0;
}
