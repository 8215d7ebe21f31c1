#pragma once
// The storage section of the run and fleet reports: DIR/storage.csv (one row per change of the
// storage system's load, each row's rates held until the next row, the last until the end of the
// window) as throughput and burst-credit charts, and the time-weighted figures of the window.

#include <optional>
#include <string>
#include <vector>

namespace fleetsim::report {

/// storage.csv's columns, one entry per row, in file order (time ascending).
struct StorageSeries {
  std::string name;  // DIR/storage.csv, for messages
  std::vector<double> t, write, read, servers, capacity, credit;
  double t_end = 0;  // the end of the window: the last row holds until then
};

/// Figures of the window [0, t_end], each row weighted by the time it holds (no load before the
/// first row). Peaks are over the rows that hold for a positive time.
struct StorageStats {
  double window_s = 0;
  double mean_write = 0, mean_read = 0;  // B/s
  double peak_write = 0, peak_read = 0;
  double bytes_written = 0, bytes_read = 0;
  double min_capacity = 0, max_capacity = 0;
  double saturated_s = 0;  // servers_Bps >= 0.999 * servers_capacity_Bps (and a capacity above 0)
  double min_credit = 0, max_credit = 0;
  bool has_credit = false;  // some row has a non-zero burst credit
};

/// DIR/storage.csv, or nullopt when the directory has none (an older output directory). `t_end` is
/// the end of the window (simulated_time_s, or window_days for a fleet). Throws InputError
/// (file:line: error: ...) on a malformed file.
[[nodiscard]] std::optional<StorageSeries> load_storage(const std::string& dir, double t_end);

[[nodiscard]] StorageStats storage_stats(const StorageSeries& s);

/// The note, the throughput chart (write, read, servers' capacity), the burst-credit chart when
/// any row has credit, and the table of StorageStats. Starts with its own <h2>.
[[nodiscard]] std::string storage_section(const StorageSeries& s);

}  // namespace fleetsim::report
