// fleetsim: replay ML training runs on a simulated fleet. See README.md and `fleetsim help`.
#include "cli/commands.hpp"

int main(int argc, char** argv) { return fleetsim::cli::main(argc, argv); }
