// fleetsim: replay ML training runs on a simulated fleet. See README.md and `fleetsim help`.
#include "cli/commands.hpp"

#include <exception>
#include <iostream>

int main(int argc, char** argv)
{
  using namespace fleetsim::cli;
  try {
    Options opts;
    if (!parse_options(argc, argv, opts))
      return kExitBadInput;
    if (opts.command == "run")
      return cmd_run(opts);
    if (opts.command == "validate")
      return cmd_validate(opts);
    if (opts.command == "step")
      return cmd_step(opts);
    if (opts.command == "collective")
      return cmd_collective(opts);
    if (opts.command == "compare")
      return cmd_compare(opts);
    if (opts.command == "sweep")
      return cmd_sweep(opts);
    if (opts.command == "report")
      return cmd_report(opts);
    if (opts.command == "describe")
      return cmd_describe(opts);
    print_usage();
    return kExitOk;
  } catch (const fleetsim::models::InvariantViolation& e) {
    return report_internal_error(e);
  } catch (const std::exception& e) {
    std::cerr << "fleetsim: internal error: " << e.what() << "\n";
    return kExitFailure;
  }
}
