// fleetsim report DIR [--out FILE]: one self-contained HTML page (inline CSS and SVG, no scripts,
// no network references) from a run's (a replay's or a fleet's) or a sweep's output directory. The
// page is built in memory and written through a temporary file renamed into place, so bad input
// leaves nothing behind.
#include "commands.hpp"

#include "simulator/logging/logging.hpp"

#include "report/fleet_report.hpp"
#include "report/report_inputs.hpp"
#include "report/run_report.hpp"
#include "report/sweep_report.hpp"
#include "simulator/output/run_outputs.hpp"

#include <filesystem>
#include <iostream>

namespace fleetsim::cli {

int cmd_report(const Options& opts)
{
  namespace fs = std::filesystem;
  const std::string& dir = opts.scenario;
  if (dir.empty()) {
    std::cerr << "fleetsim: error: report needs a directory: the --out DIR of 'fleetsim run' or 'fleetsim sweep'\n";
    return kExitBadInput;
  }
  if (!fs::is_directory(dir)) {
    std::cerr << "fleetsim: error: report: '" << dir << "' is not a directory (expected the output of 'fleetsim run "
              << "--out DIR', with summary.json, or of 'fleetsim sweep --out DIR', with results.csv)\n";
    return kExitBadInput;
  }
  const bool is_run = fs::exists(fs::path(dir) / "summary.json");
  if (!is_run && !fs::exists(fs::path(dir) / "results.csv")) {
    std::cerr << "fleetsim: error: report: '" << dir << "' has neither summary.json (from 'fleetsim run --out DIR') "
              << "nor results.csv (from 'fleetsim sweep --out DIR')\n";
    return kExitBadInput;
  }
  std::string html;
  const char* kind = is_run ? "run" : "sweep";
  const fs::path out = opts.out.empty() ? fs::path(dir) / "report.html" : fs::path(opts.out);
  // A fleet's replayed jobs get a run report each, beside their files; the fleet's page links them.
  std::vector<std::pair<fs::path, std::string>> job_pages;
  try {
    const bool is_fleet = is_run && report::is_fleet_dir(dir);
    if (is_fleet)
      kind = "fleet";
    std::vector<std::string> links;
    if (is_fleet)
      for (const report::ReplayedJobDir& job : report::replayed_job_dirs(dir)) {
        const fs::path page = fs::path(dir) / job.dir / "report.html";
        job_pages.emplace_back(page, report::run_report_html((fs::path(dir) / job.dir).string()));
        links.push_back(fs::relative(page, out.has_parent_path() ? out.parent_path() : fs::path(".")).string());
      }
    html = is_fleet ? report::fleet_report_html(dir, links)
           : is_run ? report::run_report_html(dir)
                    : report::sweep_report_html(dir);
  } catch (const report::InputError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
  for (const auto& job_page : job_pages)  // (not a structured binding: clang 14 cannot capture one)
    if (std::string err = sim::write_file_atomically(job_page.first.parent_path().string(),
                                                     job_page.first.filename().string(),
                                                     [&](std::ostream& o) { o << job_page.second; });
        !err.empty()) {
      std::cerr << "fleetsim: error: " << err << "\n";
      return kExitFailure;
    }
  const std::string out_dir = out.has_parent_path() ? out.parent_path().string() : ".";
  if (std::string err = sim::write_file_atomically(out_dir, out.filename().string(),
                                                   [&](std::ostream& o) { o << html; });
      !err.empty()) {
    std::cerr << "fleetsim: error: " << err << "\n";
    return kExitFailure;
  }
  FLEETSIM_LOG(Report, info, "{} report of {}: {} ({} bytes)", kind, dir, out.string(), html.size());
  if (!opts.quiet)
    std::cout << kind << " report: " << out.string() << "\n";
  return kExitOk;
}

}  // namespace fleetsim::cli
