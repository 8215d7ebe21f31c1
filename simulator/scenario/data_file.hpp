#pragma once
// A data file a scenario key names (a job trace, a carbon profile, a kernel table), read whole when
// the scenario loads (internal to the loader), so that its rows can be checked and reported at
// their lines before anything runs.

#include "scenario_reader.hpp"

#include <array>
#include <optional>
#include <string_view>
#include <string>

namespace fleetsim::scenario::detail {

struct DataFile {
  std::string path;  // as diagnostics show it: joined to the base's directory, normalised
  std::string text;
};

/// The keys that name data files (scenario_loader's dump writes them resolved, so a dump reloads anywhere).
extern const std::array<std::string_view, 4> kDataFileKeys;

/// The file `key` names, relative to the directory of the file that names it (an included file, or
/// `scenario_file` for the scenario itself and --set) unless absolute; nullopt after reporting at the
/// key that it is a directory, empty or unreadable.
[[nodiscard]] std::optional<DataFile> read_data_file(Reader& r, const std::string& key,
                                                     const std::string& scenario_file);

}  // namespace fleetsim::scenario::detail
