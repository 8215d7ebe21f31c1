#pragma once
// The measured kernel tables of a hardware file (internal to the loader): accelerator.gemm.table and
// accelerator.attention.table, CSV files read now so that a bad row is a scenario error at its line,
// and model.attention_kernel checked against the attention table (models/step/kernel_tables.hpp,
// docs/models/kernels-and-memory.md).

#include "scenario.hpp"
#include "scenario_reader.hpp"

#include <string>

namespace fleetsim::scenario::detail {

/// Reads the tables into s.step.accelerator.gemm_curve; a table's path is relative to the file that
/// names it (a hardware file that a scenario includes), `file` (the scenario) for --set.
void read_kernel_tables(Reader& r, const std::string& file, Scenario& s);

}  // namespace fleetsim::scenario::detail
