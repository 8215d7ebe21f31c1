#pragma once
// Runs a shell command line and captures its standard output (and whatever the command line
// redirects into it) and exit code. For tests that exercise the fleetsim binary as a user does.

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace fleetsim::testing {

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

}  // namespace fleetsim::testing
