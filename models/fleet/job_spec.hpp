#pragma once
// One job of a fleet workload, as the fleet scheduler sees it: when it arrives, how many GPUs it
// gangs, how much work it carries and how it checkpoints and recovers. Every source of jobs (the
// scenario's job list, a CSV trace, the generator) produces these, in SI units (seconds).

#include <string>
#include <vector>

namespace fleetsim::models::fleet {

/// What happens to a job when a failure strikes one of its nodes.
enum class JobRecovery {
  Requeue,  // release every GPU and queue again (keeping the work up to its last checkpoint)
  InPlace,  // keep the healthy nodes, take replacements from spares or idle nodes; requeue if none
};

struct JobSpec {
  std::string id;                  // unique within the workload
  std::string user;                // from a trace (reporting only); may be empty
  double submit = 0;               // s since the start of the run
  long gpus = 1;                   // gang size: all of them or none
  double work = 0;                 // s of training at full speed (a trace's run time)
  int priority = 0;                // higher first (priority policy); equal priorities keep submit order
  double checkpoint_interval = 0;  // s of training between checkpoints; 0 = never checkpoints
  double checkpoint_cost = 0;      // s each checkpoint stalls the job (and a checkpoint-then-preempt)
  double restart_cost = 0;         // s from allocation to training: launch, init, checkpoint reload
  // > 0: its checkpoints are written to, and its restarts read from, the shared storage system (the
  // simulator's), and take as long as its sharing gives them; checkpoint_cost is then only the
  // scheduler's estimate. 0: each checkpoint stalls it checkpoint_cost, with no storage modelled.
  double checkpoint_bytes = 0;
  double checkpoint_files = 1;  // files per checkpoint (metadata operations)
  // With checkpoint_bytes > 0: its transfers leave from its own nodes (each node its share, through
  // the node's storage NIC, shared with the other jobs on the node) rather than from a client of its
  // own (workload.defaults.checkpoint_size_per_gpu; a declared checkpoint_size has its own client).
  bool node_storage = false;
  // With checkpoint_bytes > 0: an asynchronous checkpoint stalls the job for snapshot_cost only
  // (the device-to-host copy) and its write drains while the job trains on; it counts once drained.
  bool checkpoint_async = false;
  double snapshot_cost = 0;
  bool elastic = false;     // may run on fewer GPUs (not yet used by the fleet scheduler)
  bool preemptible = true;  // a higher-priority job may preempt it
  // > 0: it may start up to this many s after its submit; with scheduler.carbon_aware, it becomes
  // eligible at the start of the hour (or at once) whose grid is cleanest over its run.
  double deferrable = 0;
  double tokens_per_second = 0;  // > 0: a job declared by tokens trains this many per s of work
  double step_time = 0;          // > 0: its isolated step (s), for a job declared by tokens
  // On a shared fabric: the share of its isolated step that is scale-out communication; a job whose
  // traffic gets 1/k of its isolated rate runs its steps 1 + comm_fraction (k - 1) times as long.
  double comm_fraction = 0;
  JobRecovery recovery = JobRecovery::Requeue;
  // The job is replayed: while it runs, its life is the single-job replay's actors on its placement
  // (the simulator's JobRuntime: the scenario's model, checkpoints, recovery policy, stragglers,
  // lemons, data loading), which draw the failures of its nodes and of the fleet's spares and tell
  // its time at its end (FleetState::close_replayed). It waits in the queue from its submit, holds
  // its nodes from its start to its end -- once it has trained `tokens` (> 0) and checkpointed them,
  // else the window's end; work, checkpoint_* and recovery above are not used.
  bool replayed = false;
  // A replayed job that is a unit of work (a trace's or the generator's job with
  // workload.defaults.runtime: replay): no model of its own, its step a second of its work at full
  // speed; it ends once it has done `work`; its checkpoints (checkpoint_interval) stall it
  // checkpoint_cost (plus the write of checkpoint_bytes), its first start and each restart take
  // restart_cost, and `recovery` is its recovery policy (in_place: restart, requeue: requeue).
  bool work_job = false;
  double tokens = 0;   // a replayed job's token target (0: none)
  std::string origin;  // where it was declared: "workload.jobs.hero", "trace.csv:12", "generator"
};

using Workload = std::vector<JobSpec>;

}  // namespace fleetsim::models::fleet
