#include "commands.hpp"

#include "simulator/logging/logging.hpp"

#include <exception>
#include <iostream>

namespace fleetsim::cli {

int main(int argc, char** argv)
{
  try {
    Options opts;
    if (!parse_options(argc, argv, opts))
      return kExitBadInput;
    const int code = run_command(opts);
    log::flush();
    return code;
  } catch (const models::InvariantViolation& e) {
    return report_internal_error(e);
  } catch (const std::exception& e) {
    std::cerr << "fleetsim: internal error: " << e.what() << "\n";
    return kExitFailure;
  }
}

}  // namespace fleetsim::cli
