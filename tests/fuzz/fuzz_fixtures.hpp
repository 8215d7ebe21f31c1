#pragma once
// The files a fuzzed scenario can name, laid out once per process in a private temp directory that
// the fuzz targets use as the scenario's own directory (it is removed at exit). Paths in a scenario
// (`include:`, workload.trace.file, power.carbon.intensity) are relative to the scenario file, so a
// seed can write `include: hardware/a100_sxm_80gb_selene.yaml` or `file: traces/kalos_sample.csv`.
//
//   <dir>/hardware/{a100_sxm_80gb_selene,h100_sxm_80gb_grand_teton}.yaml   copies of scenarios/hardware/
//   <dir>/carbon/{solar,fossil}_heavy_grid.csv                             copies of scenarios/carbon/
//   <dir>/traces/kalos_sample.csv         the header and first 16 rows of scenarios/traces/kalos_sample.csv
//   <dir>/{fleet_kalos_sizing,young_daly_single_cause,no_failures,oversubscribed_pods}.yaml   copies
//   <dir>/traces/{helios,philly,mapped,bad_row}.csv                        small traces written here
//   <dir>/carbon/{flat,bad}.csv                                            small profiles written here
//   <dir>/fixtures/{nested,cycle_a,cycle_b,bad_value,not_a_map,fleet_jobs}.yaml, fixtures/dir/
//
// The copies are read from the source tree the target was built from (FLEETSIM_FUZZ_SOURCE_DIR).

#include <string>

namespace fleetsim::fuzz {

/// The directory (created on the first call; aborts with a message when a file cannot be laid out).
const std::string& scenario_dir();

}  // namespace fleetsim::fuzz
