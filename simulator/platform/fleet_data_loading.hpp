#pragma once
// Data loading in a fleet (data.bytes_per_token with jobs declared by tokens; docs/models/fleet.md):
// while such a job holds its nodes, its training data streams from the shared storage system at the
// rate it trains at full speed (tokens/s x bytes per token), as one SimGrid flow to a reader client
// of its own whose route ends in a private link of that capacity (a flow asks no more than its
// job consumes). The flow shares the storage servers and their read cap with every checkpoint
// transfer and every other job's data; when it gets less than its rate, the job trains at the share
// it gets (its prefetch hides bursts, not a rate it never gets): FleetState::set_data_ratio.
//
// The rates are read back as the shared fabric reads its flows (fleet_fabric.hpp): the flows'
// remaining bytes at every change of the storage's transfers or of the jobs' placements and
// kMeasure later, the ratios applied at the scheduler's next update.

#include "models/fleet/fleet_state.hpp"
#include "simulator/platform/storage_system.hpp"

#include <simgrid/s4u.hpp>

#include <map>
#include <optional>
#include <vector>

namespace fleetsim::sim {

class FleetDataLoading {
public:
  static constexpr double kMeasure = 1e-3;  // s between a change and the rates' reading

  /// `readers`: job -> (its reader client, its rate at full speed in bytes/s); `horizon`: the window.
  FleetDataLoading(StorageSystem& storage, std::map<long, std::pair<int, double>> readers, double horizon);

  /// The storage's transfers changed at t (a checkpoint started or ended): the rates change.
  void changed(double t);
  /// After the fleet's state changed at t: the ratios read since the last call are applied (to the
  /// jobs whose placement did not change), then the flows follow the jobs that started or stopped.
  void update(models::fleet::FleetState& fleet, double t, const std::vector<long>& placement_changes);
  [[nodiscard]] std::optional<double> due() const { return due_; }
  /// Reads the flows' rates since the last change (call at due()).
  void read(double t);
  /// True when `job` loads data (it has a reader).
  [[nodiscard]] bool loads(long job) const { return readers_.count(job) > 0; }

private:
  struct Flow {
    simgrid::s4u::CommPtr comm;
    double snapshot = 0;
  };
  void snapshot(double t);
  StorageSystem& storage_;
  std::map<long, std::pair<int, double>> readers_;
  double horizon_ = 0;
  std::map<long, Flow> flows_;
  std::map<long, double> ratios_;  // read, not yet applied
  std::optional<double> due_;
  double changed_at_ = 0;
};

}  // namespace fleetsim::sim
