#include "atomic_file.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace fleetsim::sim {

std::string prepare_output_dir(const std::string& dir)
{
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  return ec ? "cannot create output directory '" + dir + "': " + ec.message() : "";
}

std::string write_file_atomically(const std::string& dir, const std::string& name,
                                  const std::function<void(std::ostream&)>& body)
{
  namespace fs = std::filesystem;
  const fs::path final_path = fs::path(dir) / name;
  // One temporary name per process: several processes (shards, MPI ranks) may write the same file
  // (runs.manifest, sweep.json) at once, each renaming its own complete copy into place.
  const fs::path tmp = fs::path(dir) / ("." + name + ".tmp-" + std::to_string(getpid()));
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!f)
      return "cannot write '" + tmp.string() + "'";
    body(f);
    if (!f.good()) {
      f.close();
      std::error_code ignored;
      fs::remove(tmp, ignored);
      return "error while writing '" + tmp.string() + "'";
    }
  }
  std::error_code ec;
  fs::rename(tmp, final_path, ec);
  return ec ? "cannot rename '" + tmp.string() + "': " + ec.message() : "";
}

}  // namespace fleetsim::sim
