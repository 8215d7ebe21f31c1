#include "outcome_outputs.hpp"

#include "fleet_outputs.hpp"
#include "run_outputs.hpp"

namespace fleetsim::sim {

std::string write_outputs(const std::string& dir, const scenario::Scenario& s, const Outcome& o, bool traces)
{
  if (const FleetResult* fleet = o.fleet())
    return write_fleet_outputs(dir, s, *fleet, traces);
  return write_outputs(dir, s, *o.job(), traces);
}

nlohmann::ordered_json summary_json(const scenario::Scenario& s, const Outcome& o)
{
  if (const FleetResult* fleet = o.fleet())
    return fleet_summary_json(s, *fleet);
  return summary_json(s, *o.job());
}

void write_timeline_csv(std::ostream& out, const Outcome& o)
{
  if (const FleetResult* fleet = o.fleet())
    write_fleet_timeline_csv(out, *fleet);
  else
    write_timeline_csv(out, *o.job());
}

void write_events_csv(std::ostream& out, const Outcome& o)
{
  if (const FleetResult* fleet = o.fleet())
    write_jobs_csv(out, *fleet);
  else
    write_events_csv(out, *o.job());
}

void print_table(std::ostream& out, const scenario::Scenario& s, const Outcome& o)
{
  if (const FleetResult* fleet = o.fleet())
    print_fleet_table(out, s, *fleet);
  else
    print_run_table(out, s, *o.job());
}

std::string output_files(const Outcome& o)
{
  return o.fleet() != nullptr ? "summary.json, jobs.csv, timeline.csv"
                              : "summary.json, timeline.csv, events.csv, storage.csv";
}

}  // namespace fleetsim::sim
