#pragma once
// Files written whole or not at all: a temporary name in the same directory, renamed into place, so
// that a crash or a concurrent reader never sees a half-written file under its final name.

#include <functional>
#include <iosfwd>
#include <string>

namespace fleetsim::sim {

/// Creates `dir` if needed. Returns "" or an error message.
[[nodiscard]] std::string prepare_output_dir(const std::string& dir);
/// Writes dir/name through a temporary file renamed into place. Returns "" or an error message.
[[nodiscard]] std::string write_file_atomically(const std::string& dir, const std::string& name,
                                                const std::function<void(std::ostream&)>& body);

}  // namespace fleetsim::sim
