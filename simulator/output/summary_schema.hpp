#pragma once
// The JSON Schema of summary.json (draft 2020-12), generated from its declaration in models/summary/:
// a single job's summary or a fleet's. `fleetsim schema` prints it; docs/summary.schema.json is its
// output, kept current by the SummarySchema tests (tests/python/summary_schema_test.py), which also
// validate every golden summary against it.

#include <nlohmann/json.hpp>

namespace fleetsim::sim {

[[nodiscard]] nlohmann::ordered_json summary_schema();

}  // namespace fleetsim::sim
