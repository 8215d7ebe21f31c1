#pragma once
// How a job checkpoints, one set of rules for the single-job replay and a fleet's jobs: the
// checkpoint section and the storage it writes to (checkpoint.* and storage.*, in SI units), the
// plan a job follows (strategy, fixed cost, snapshot pause, host buffers, files per checkpoint),
// the time one checkpoint costs training (Young's and Daly's delta), the inputs of the interval
// policy, and the steps between checkpoints and snapshots at a given step time.

#include "interval_policy.hpp"

#include "models/core/names.hpp"
#include "models/core/units.hpp"

#include <optional>
#include <string>

namespace fleetsim::models {

/// The shared storage system (simulator/platform/storage_system.hpp). 0 = not given (the write and
/// read bandwidths always are: Llama 3's Tectonic by default).
struct StorageSpec {
  units::BytesPerSecond write_bandwidth{2e12};
  units::BytesPerSecond read_bandwidth{2e12};
  units::BytesPerSecond bandwidth{0};         // servers' total, reads and writes together
  units::BytesPerSecond burst_bandwidth{0};   // token bucket: the rate while credit lasts
  units::Bytes burst_bytes{0};                // token bucket: the credit
  units::BytesPerSecond client_bandwidth{0};  // per node
  double metadata_rate = 0;                   // file operations per second
};

enum class CheckpointStrategy { Sync, Async, MultiLevel };
inline constexpr NameTable<CheckpointStrategy, 3> kCheckpointStrategyNames{
    {{"sync", CheckpointStrategy::Sync},
     {"async", CheckpointStrategy::Async},
     {"multi_level", CheckpointStrategy::MultiLevel}}};
enum class CheckpointFiles { PerRank, PerNode, Consolidated };
inline constexpr NameTable<CheckpointFiles, 3> kCheckpointFilesNames{
    {{"per_rank", CheckpointFiles::PerRank},
     {"per_node", CheckpointFiles::PerNode},
     {"consolidated", CheckpointFiles::Consolidated}}};

/// The scenario's checkpoint section.
struct CheckpointSpec {
  units::Seconds interval{1800};      // training time between checkpoints
  units::Bytes state_per_gpu{400e6};  // bytes written per accelerator
  units::Seconds write_overhead{0};   // fixed part of each checkpoint
  std::string policy = "fixed";       // fixed | young | daly | adaptive (interval_policy.hpp)
  units::Seconds prior_mtbf{86400};   // adaptive
  double prior_weight = 1;            // adaptive
  CheckpointStrategy strategy = CheckpointStrategy::Sync;
  units::BytesPerSecond snapshot_bandwidth{25e9};  // device-to-host, per GPU
  int host_buffers = 1;
  int remote_every = 4;  // multi_level
  CheckpointFiles files = CheckpointFiles::PerRank;
  double corrupt_probability = 0;
};

/// How one job checkpoints (checkpoint.strategy), at its size.
struct CheckpointPlan {
  CheckpointStrategy strategy = CheckpointStrategy::Sync;
  double write_overhead = 0;  // the fixed part of a checkpoint (s)
  double snapshot_s = 0;      // async: the device-to-host copy (s), after the fixed part
  int host_buffers = 1;       // async: snapshots host memory holds while they drain
  int remote_every = 1;       // multi_level: every k-th snapshot also drains to remote storage
  double bytes = 0;           // whole-job checkpoint size
  double files = 1;           // files per checkpoint (metadata operations)
};

/// Files one checkpoint of a job of `gpus` GPUs writes (one metadata operation each).
[[nodiscard]] double checkpoint_files(CheckpointFiles files, long gpus, int gpus_per_node);

/// An asynchronous snapshot's pause: every GPU copies its own share, `bytes_per_gpu`, to host
/// memory at once (0 when no snapshot bandwidth is given).
[[nodiscard]] double snapshot_pause(double bytes_per_gpu, units::BytesPerSecond snapshot_bandwidth);

/// The plan of a job of `gpus` GPUs whose checkpoint is `bytes` in all.
[[nodiscard]] CheckpointPlan make_checkpoint_plan(const CheckpointSpec& c, double bytes, long gpus, int gpus_per_node);

/// Uncontended time of one blocking checkpoint: fixed overhead + bytes / write bandwidth (delta).
[[nodiscard]] units::Seconds checkpoint_write_time(units::Bytes bytes, units::BytesPerSecond write_bandwidth,
                                                   units::Seconds overhead);

/// The training time one checkpoint costs (Young's and Daly's delta): the whole write when training
/// waits for it, the pause alone when the write drains in the background.
[[nodiscard]] double checkpoint_cost(const CheckpointPlan& p, const StorageSpec& storage);

/// The interval policy's inputs (checkpoint.policy and its keys): an asynchronous checkpoint costs
/// training only its pause, but its write must drain before the host buffers are needed again, so
/// no interval is shorter than that.
[[nodiscard]] IntervalPolicySpec interval_spec(const CheckpointPlan& p, const CheckpointSpec& c,
                                               const StorageSpec& storage);

/// The rate one read gets with the storage to itself: the read cap, the servers' total, the job's
/// NICs (client bandwidth per node).
[[nodiscard]] double alone_read_rate(const StorageSpec& storage, long gpus, int gpus_per_node);

/// Steps between checkpoints: the interval rounded to whole steps, at least one.
[[nodiscard]] long steps_per_checkpoint(units::Seconds interval, units::Seconds step_time);

/// Steps between host-memory snapshots taken every `every` seconds of training (0: every step).
[[nodiscard]] long steps_per_snapshot(double every, double step_time);

}  // namespace fleetsim::models
