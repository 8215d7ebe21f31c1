// fleetsim: replay ML training runs on a simulated fleet. See README.md and `fleetsim help`.
#include "cli/commands.hpp"

#include "simulator/logging/logging.hpp"

#include <exception>
#include <iostream>

int main(int argc, char** argv)
{
  using namespace fleetsim::cli;
  try {
    Options opts;
    if (!parse_options(argc, argv, opts))
      return kExitBadInput;
    const int code = run_command(opts);
    fleetsim::log::flush();
    return code;
  } catch (const fleetsim::models::InvariantViolation& e) {
    return report_internal_error(e);
  } catch (const std::exception& e) {
    std::cerr << "fleetsim: internal error: " << e.what() << "\n";
    return kExitFailure;
  }
}
