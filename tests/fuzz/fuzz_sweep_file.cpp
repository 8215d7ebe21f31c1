// libFuzzer target: the sweep file reader (read_sweep). It reads a path, so each input is written to
// one file in a private temp directory. Its diagnostics go to std::cerr, which is muted here.
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

class NullBuffer : public std::streambuf {
protected:
  int overflow(int c) override { return c; }
};

std::string g_path;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
  static NullBuffer null;
  std::cerr.rdbuf(&null);
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
  const auto sweep = fleetsim::cli::read_sweep(g_path);
  if (sweep && (sweep->base.empty() || sweep->replicas < 1))
    std::abort();
  for (const auto& a : sweep ? sweep->axes : std::vector<fleetsim::cli::Axis>{})
    if (a.values.empty())
      std::abort();
  return 0;
}
