#pragma once
// Reading the replay's outputs in simulation tests: timeline.csv and events.csv rows, summary
// numbers, and the scenarios several tests start from.
#include "run_in_child.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace fleetsim::testing {

constexpr double kDay = 86400;
constexpr double kTwoPi = 6.283185307179586;
// timeline.csv and events.csv print times with 6 decimals: two printed values that should be equal
// differ by up to 1e-6.
constexpr double kPrinted = 2e-6;

inline std::vector<std::string> cells_of(const std::string& line)
{
  std::vector<std::string> cells;
  std::stringstream ls(line);
  std::string cell;
  while (std::getline(ls, cell, ','))
    cells.push_back(cell);
  if (!line.empty() && line.back() == ',')
    cells.emplace_back();
  return cells;
}

struct Row {
  double t0 = 0, t1 = 0;
  std::string state;
  bool interrupted = false;
  long active_gpus = 0;
  double step = 0;
  [[nodiscard]] double length() const { return t1 - t0; }
  [[nodiscard]] bool training() const { return state == "training"; }
};

inline std::vector<Row> timeline_rows(const std::string& csv)
{
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line,
            "t_begin_s,t_end_s,state,interrupted,productive_s,steps,tokens,goodput,active_gpus,step_time_s,it_mw,"
            "facility_mw,energy_mwh,carbon_kg");
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    const auto c = cells_of(line);
    if (c.size() != 14) {
      ADD_FAILURE() << "timeline row with " << c.size() << " cells: " << line;
      continue;
    }
    rows.push_back({std::stod(c[0]), std::stod(c[1]), c[2], c[3] == "1", std::stol(c[8]), std::stod(c[9])});
  }
  return rows;
}

struct Event {
  double t = 0;
  std::string event, cause, component, during;
  double duration = 0;
  std::string outcome;
  long gpus_down = -1;  // -1 on phase rows
};

inline std::vector<Event> events_of(const std::string& csv)
{
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "time_s,event,cause,component,during,duration_s,outcome,gpus_down");
  std::vector<Event> events;
  while (std::getline(in, line)) {
    const auto c = cells_of(line);
    if (c.size() != 8) {
      ADD_FAILURE() << "events row with " << c.size() << " cells: " << line;
      continue;
    }
    events.push_back(
        {std::stod(c[0]), c[1], c[2], c[3], c[4], std::stod(c[5]), c[6], c[7].empty() ? -1 : std::stol(c[7])});
  }
  return events;
}

inline double num(const nlohmann::json& j, const char* a, const char* b = nullptr)
{
  return b ? j.at(a).at(b).get<double>() : j.at(a).get<double>();
}

// The step of a job whose slowest node runs at `speed` (compute share c stretches, the rest does not).
inline double step_at(double uniform, double c, double speed) { return uniform * ((1 - c) + c / speed); }

// Time-weighted mean step time over training rows.
inline double mean_training_step(const std::vector<Row>& rows)
{
  double t = 0, w = 0;
  for (const auto& r : rows)
    if (r.training()) {
      t += r.length();
      w += r.length() * r.step;
    }
  return t > 0 ? w / t : 0;
}

inline std::string no_failures() { return scenario_path("scenarios/no_failures.yaml"); }
inline std::string llama3() { return scenario_path("scenarios/llama3_405b_16k.yaml"); }

// The 18 Llama 3 causes, silenced (count 0), for runs that add a cause of their own.
inline std::vector<std::string> llama3_without_failures()
{
  std::vector<std::string> sets{"run.step_model=analytic"};
  for (const char* c : {"faulty_gpu", "gpu_hbm3_memory", "software_bug", "network_switch_cable", "host_maintenance",
                        "gpu_sram_memory", "gpu_system_processor", "nic", "nccl_watchdog_timeouts",
                        "silent_data_corruption", "gpu_thermal_interface_sensor", "ssd", "power_supply",
                        "server_chassis", "io_expansion_board", "dependency", "cpu", "system_memory"})
    sets.push_back(std::string("failures.causes.") + c + ".count=0");
  return sets;
}

}  // namespace fleetsim::testing
