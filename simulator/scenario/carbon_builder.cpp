#include "carbon_builder.hpp"

#include "data_file.hpp"
#include "models/energy/carbon.hpp"

namespace fleetsim::scenario::detail {
namespace {

// power.carbon.intensity: read now, so that a bad row is a scenario error at its line of the CSV.
void read_profile(Reader& r, const std::string& file, Scenario& s)
{
  const std::string key = "power.carbon.intensity";
  if (!r.has(key))
    return;
  const auto data = read_data_file(r, key, file);
  if (!data)
    return;
  models::energy::ProfileLoad load = models::energy::load_profile_text(data->text, data->path);
  r.file_errors(load.errors, key + ": ");
  if (!load.ok())
    return;
  s.carbon.file = data->path;
  s.carbon.profile = models::energy::CarbonProfile(std::move(load.g_per_kwh), r.integer("power.carbon.start_hour"));
}

}  // namespace

void read_carbon(Reader& r, const std::string& file, Scenario& s)
{
  read_profile(r, file, s);
  s.carbon.embodied.gpu_kg = r.number("power.embodied.gpu_kg");
  s.carbon.embodied.node_kg = r.number("power.embodied.node_kg");
  s.carbon.embodied.lifetime_s = r.number("power.embodied.lifetime");
  if (s.scheduler.carbon_aware && !r.has("power.carbon.intensity"))
    r.error_at_first_given({"scheduler.carbon_aware"},
                           "scheduler.carbon_aware needs the grid's carbon intensity: give power.carbon.intensity "
                           "(an hourly CSV, e.g. scenarios/carbon/solar_heavy_grid.csv)");
}

}  // namespace fleetsim::scenario::detail
