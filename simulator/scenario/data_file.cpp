#include "data_file.hpp"

#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fleetsim::scenario::detail {

const std::array<std::string_view, 4> kDataFileKeys = {"accelerator.gemm.table", "accelerator.attention.table",
                                                        "workload.trace.file", "power.carbon.intensity"};

std::optional<DataFile> read_data_file(Reader& r, const std::string& key, const std::string& scenario_file)
{
  const std::string given = r.text(key);
  const SourceLocation at = r.where(key);  // the file that names it (the scenario for --set)
  const std::filesystem::path dir = std::filesystem::path(at.line > 0 ? at.file : scenario_file).parent_path();
  const std::string shown = (std::filesystem::path(given).is_absolute() ? std::filesystem::path(given) : dir / given)
                                .lexically_normal()
                                .string();
  std::error_code ec;
  if (!given.empty() && std::filesystem::is_directory(shown, ec)) {
    r.error(key, key + ": '" + shown + "' is a directory, not a CSV file");
    return std::nullopt;
  }
  std::ifstream in(shown, std::ios::binary);
  if (given.empty() || !in) {
    r.error(key, key + ": cannot read '" + shown + "'");
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  return DataFile{shown, text.str()};
}

}  // namespace fleetsim::scenario::detail
