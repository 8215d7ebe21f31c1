#pragma once
// Job traces in CSV: one job a row, read through a column mapping (which column holds which field)
// into the JobSpec every workload source produces (docs/models/workload.md).
//
// Fields a mapping can name: id, user, submit, start, end, duration, gpus, nodes, state, priority.
//   - submit is required. Submit times are made relative to the earliest submit of the jobs
//     returned: the first job arrives at t = 0, whatever the calendar date in the file.
//   - gpus comes from the gpus column or, when only nodes is mapped, from nodes x gpus_per_node.
//     A row with 0 GPUs (a CPU job, as AcmeTrace and Helios have many) is skipped and counted.
//   - work is the duration column when mapped, else end - start.
//   - id, when not mapped, is "line-<n>"; every job's origin is "<name>:<line>".
//   - with keep_states, only rows whose state is one of them (ASCII case-insensitive) are kept.
// A time cell is a number (times time_unit seconds; time_unit also scales a numeric duration) or an
// ISO 8601 date-time (date_time.hpp); without a UTC offset it is read as UTC. Times and durations
// lie within +-1e15 s once scaled, so that their sums and differences stay finite. A row that is
// skipped (0 GPUs, filtered state) has its other cells left unchecked.
//
// Built-in mappings (presets); a user mapping overrides single fields, "" unmaps one:
//   acme    AcmeTrace (Shanghai AI Lab, Hu et al., NSDI '24), data/job_trace/trace_{seren,kalos}.csv
//           of https://github.com/InternLM/AcmeTrace (schema in its README.md): job_id, user,
//           node_num, gpu_num, state, submit_time, start_time, end_time (with a +08:00 or +00:00
//           offset), duration (s). States: COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL.
//   helios  Helios (SenseTime, Hu et al., SC '21), data/<cluster>/cluster_log.csv of
//           https://github.com/S-Lab-System-Group/HeliosData (schema in its README.md): the same
//           column names as acme (times without offset); same five states.
//   philly  Microsoft Philly (Jeon et al., ATC '19). https://github.com/msr-fiddle/philly-traces
//           ships JSON only (cluster_job_log); the preset reads the flattened CSV that
//           S-Lab-System-Group/HeliosArtifact made of it ("analysis/1_compare with Philly
//           trace/philly_trace.csv", shipped again by AcmeTrace as data/job_trace/
//           trace_previous_work/philly_trace.csv): user, gpu_num, state, submit_time, start_time,
//           end_time, duration. Its readers never use a job id column, so the preset maps none
//           (set columns.id if your export has one). States: Pass, Killed, Failed.
//
// Bad input is reported, never thrown: every error as "<name>:<line>: error: <message>" (line =
// 1-based physical line of the file), at most 20 of them and then "N more errors"; when there is
// any error, no job is returned.

#include "job_spec.hpp"
#include "models/core/units.hpp"

#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fleetsim::models::fleet {

/// Field name ("gpus") -> column name ("gpu_num").
using ColumnMapping = std::map<std::string, std::string>;

struct TraceOptions {
  std::string path;                      // the CSV file (load_trace)
  std::string preset;                    // "acme", "helios", "philly", or "" for the columns alone
  ColumnMapping columns;                 // field -> column, over the preset's; a "" column unmaps the field
  units::Seconds time_unit{1};           // seconds per unit of a numeric time or duration cell
  long gpus_per_node = 0;                // for gpus = nodes * gpus_per_node when gpus is not mapped
  std::vector<std::string> keep_states;  // if non-empty, only rows whose state is one of these
  JobSpec defaults;                      // checkpoint, restart, priority, ... for everything the trace does not give
};

struct TraceLoad {
  Workload jobs;  // sorted by submit (stable: rows with equal submits keep file order)
  std::vector<std::string> errors;
  long skipped_no_gpu = 0;  // rows with 0 GPUs
  long skipped_state = 0;   // rows whose state is not in keep_states
  [[nodiscard]] bool ok() const { return errors.empty(); }
};

/// The fields a mapping can name, in the order the header above lists them.
[[nodiscard]] const std::vector<std::string>& trace_field_names();

/// The presets' names: acme, helios, philly.
[[nodiscard]] std::vector<std::string> trace_preset_names();

/// A preset's column mapping, or nullopt for an unknown name.
[[nodiscard]] std::optional<ColumnMapping> trace_preset(std::string_view name);

/// Reads the CSV file at options.path; errors are named after the path as given.
[[nodiscard]] TraceLoad load_trace(const TraceOptions& options);

/// Reads CSV text (options.path is ignored); errors are named after `name` ("<name>:<line>").
[[nodiscard]] TraceLoad load_trace_text(std::string_view text, std::string_view name, const TraceOptions& options);

/// Writes jobs as a CSV in the acme layout (the columns the acme preset maps, in AcmeTrace's order:
/// job_id, user, node_num, gpu_num, state, submit_time, start_time, end_time, duration), times in
/// seconds, each number written so that it reads back exactly: submit_time = start_time = submit,
/// end_time = submit + work (a trace of demand, not of a schedule: no queueing), duration = work,
/// state COMPLETED, node_num = gpus / gpus_per_node rounded up. The acme preset reads it back.
void write_trace_csv(const Workload& jobs, std::ostream& out, long gpus_per_node = 8);

}  // namespace fleetsim::models::fleet
