#pragma once
// Fixed-point decimal text for the CSV outputs. The Llama 3 replay writes ~25,000 rows of ~10
// numbers per run, and a 1,000-replica sweep writes that a thousand times: formatting was a fifth
// of a replica's instructions with std::to_chars, and most of the rest was ostream overhead.

#include <string>

namespace fleetsim::sim {

/// Appends v with `decimals` digits after the point, byte-identical to
/// std::to_chars(..., std::chars_format::fixed, decimals) (and so to printf's %.*f): an exact
/// integer path for the usual magnitudes, std::to_chars for the rest (huge values, exact ties,
/// NaN and infinities).
void append_fixed(std::string& out, double v, int decimals);

}  // namespace fleetsim::sim
