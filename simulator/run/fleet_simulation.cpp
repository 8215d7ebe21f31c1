#include "fleet_simulation.hpp"

#include "models/core/invariant.hpp"
#include "models/core/random_stream.hpp"
#include "models/resilience/node_pool.hpp"
#include "models/resilience/run_plan.hpp"
#include "simulator/actors/failure_injector.hpp"
#include "simulator/actors/fleet_scheduler.hpp"
#include "simulator/actors/message.hpp"
#include "simulator/actors/storage_bucket.hpp"
#include "simulator/actors/storage_channel.hpp"
#include "simulator/logging/logging.hpp"
#include "simulator/platform/platform_builder.hpp"
#include "simulator/platform/storage_system.hpp"
#include "simulator/run/engine_setup.hpp"
#include "simulator/run/fleet_replayed_jobs.hpp"
#include "simulator/run/step_source.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <map>
#include <optional>
#include <variant>

namespace fleetsim::sim {

namespace mf = models::fleet;

namespace {

// workload.defaults.checkpoint_size_per_gpu > 0: every job that checkpoints and has no storage client
// of its own writes and restores through its nodes' storage NICs; its checkpoint is that many bytes
// per GPU, or for a job declared by tokens its model's (14 bytes per parameter: BF16 weights, FP32
// master weights and Adam's two moments, as scenarios/llama3_405b_16k.yaml).
void store_from_nodes(const scenario::Scenario& s, mf::Workload& w)
{
  const double per_gpu = s.workload.checkpoint_size_per_gpu;
  if (!(per_gpu > 0))
    return;
  for (mf::JobSpec& j : w) {
    if (j.replayed || j.checkpoint_bytes > 0 || !(j.checkpoint_interval > 0))
      continue;
    j.checkpoint_bytes = j.tokens_per_second > 0 ? 14 * s.step.workload.parameters : per_gpu * static_cast<double>(j.gpus);
    j.checkpoint_files = models::checkpoint_files(s.checkpoint.files, j.gpus, s.fleet.gpus_per_node);
    j.node_storage = true;
  }
}

}  // namespace

mf::Workload fleet_workload(const scenario::Scenario& s, std::uint64_t seed)
{
  const models::ParallelLayout& l = s.step.layout;
  const long layout_gpus = static_cast<long>(l.tp) * l.cp * l.pp * l.dp;
  double tokens_per_second = 0;
  double step_time = 0;
  double comm_fraction = 0;
  const bool needs_step = std::any_of(s.workload.jobs.begin(), s.workload.jobs.end(),
                                      [](const scenario::FleetJobDecl& d) { return d.tokens > 0; });
  if (needs_step) {
    // The model and layout on GPUs of their own: the step time of a job that has the layout's GPUs.
    scenario::Scenario alone = s;
    alone.fleet.gpus = layout_gpus;
    alone.workload = {};
    const ResolvedStep step = resolve_step(alone);
    const models::StepBreakdown& b = step.breakdown;
    step_time = b.step_time.si();
    tokens_per_second = b.tokens_per_step / step_time;
    // Its scale-out communication (the tensor-parallel all-reduces stay on NVLink), as a share of its step.
    comm_fraction = std::min(1.0, (b.dp_comm + b.pp_comm + b.cp_comm + b.ep_comm).si() / step_time);
  }
  mf::Workload w;
  for (const auto& d : s.workload.jobs)
    for (long k = 0; k < d.count; ++k) {
      mf::JobSpec j = d.job;
      if (d.count > 1)
        j.id = d.name + "-" + std::to_string(k + 1);
      j.submit += static_cast<double>(k) * d.every;
      if (j.gpus <= 0 && d.own) {  // a replayed job on a layout of its own
        const models::ParallelLayout& own = d.own->step.layout;
        j.gpus = static_cast<long>(own.tp) * own.cp * own.pp * own.dp;
      }
      if (j.gpus <= 0)
        j.gpus = layout_gpus;
      if (d.tokens > 0) {
        j.work = d.tokens / tokens_per_second;
        j.tokens_per_second = tokens_per_second;
        j.step_time = step_time;
      }
      if (j.comm_fraction < 0)
        j.comm_fraction = d.tokens > 0 ? comm_fraction : s.workload.default_comm_fraction;
      // The checkpoint rules of a replay (models/checkpoint/checkpoint_plan.hpp), at the job's size.
      if (j.checkpoint_async)
        j.snapshot_cost =
            models::snapshot_pause(j.checkpoint_bytes / static_cast<double>(j.gpus), s.checkpoint.snapshot_bandwidth);
      j.checkpoint_files = models::checkpoint_files(s.checkpoint.files, j.gpus, s.fleet.gpus_per_node);
      w.push_back(std::move(j));
    }
  w.insert(w.end(), s.workload.trace_jobs.begin(), s.workload.trace_jobs.end());
  if (s.workload.generator) {
    mf::Workload g = mf::generate(*s.workload.generator, seed);
    w.insert(w.end(), std::make_move_iterator(g.begin()), std::make_move_iterator(g.end()));
  }
  store_from_nodes(s, w);
  // Under a GPU power limit the compute slows (power.dvfs_exponent). A job declared by tokens has it
  // in its step already; one given as seconds at full speed computes for power.fleet_compute_fraction
  // of them, and that part stretches.
  if (const double speed = models::energy::compute_speed(s.power); speed < 1)
    for (mf::JobSpec& j : w)
      if (j.tokens_per_second <= 0)
        j.work *= s.fleet_compute_fraction / speed + (1 - s.fleet_compute_fraction);
  // In submit order; at the same instant, the replayed jobs first (they hold their nodes from 0).
  std::stable_sort(w.begin(), w.end(), [](const mf::JobSpec& a, const mf::JobSpec& b) {
    return a.submit != b.submit ? a.submit < b.submit : a.replayed && !b.replayed;
  });
  return w;
}

namespace {

namespace sg4 = simgrid::s4u;

bool has_replayed(const mf::Workload& w)
{
  return std::any_of(w.begin(), w.end(), [](const mf::JobSpec& j) { return j.replayed; });
}

// The jobs that load training data (data.bytes_per_token): those declared by tokens.
bool loads_data(const scenario::Scenario& s, const mf::JobSpec& j)
{
  return s.data.bytes_per_token.si() > 0 && j.tokens_per_second > 0 && !j.replayed;
}

mf::FleetConfig fleet_config(const scenario::Scenario& s, const mf::Workload& workload, std::uint64_t seed)
{
  mf::FleetConfig c;
  c.placement_seed = models::RandomStream(seed, "fleet/placement").next();
  const int gpn = s.fleet.gpus_per_node;
  c.nodes = (s.fleet.gpus + gpn - 1) / gpn;
  c.gpus_per_node = gpn;
  c.nodes_per_rack = std::max(1, s.fleet.gpus_per_rack / gpn);
  c.nodes_per_pod = s.fleet.gpus_per_pod / gpn;
  c.spare_nodes = s.capacity.spare_nodes;
  c.packing = s.scheduler.packing;
  c.preemption = s.scheduler.preemption;
  c.backfill_depth = static_cast<size_t>(s.scheduler.backfill_depth);
  c.horizon = s.duration.si();
  c.timeline_interval = s.scheduler.timeline_interval.si();
  for (const auto& cause : s.causes) {
    c.causes.push_back(cause.name);
    // As in a replay: the cause's own delay, else the watchdog's for a hang, else recovery.detection.
    c.detection.push_back(models::detection_delay(cause, s.recovery.detection, s.recovery.watchdog_timeout).si());
  }
  c.carbon = s.carbon.profile;
  c.carbon_aware = s.scheduler.carbon_aware && !s.carbon.profile.empty();
  if (s.fabric.fleet == scenario::FleetFabricMode::Shared)
    c.extra_causes.emplace_back("contention");  // the training a job's share of the fabric slowed
  if (has_replayed(workload)) {
    c.extra_causes.insert(c.extra_causes.end(), mf::kReplayedLossCauses.begin(), mf::kReplayedLossCauses.end());
  } else if (std::any_of(workload.begin(), workload.end(), [&](const mf::JobSpec& j) { return loads_data(s, j); })) {
    c.extra_causes.emplace_back("data_stall");  // (a replayed job's causes have it)
  }
  if (has_replayed(workload)) {
    c.spares_replayed = true;  // the spares are the replayed jobs' reserve
  }
  return c;
}

// A job larger than what the cluster schedules (a trace's or a generator's; declared ones are
// checked by the loader) could never start: it is left out and counted.
long drop_unschedulable(mf::Workload& workload, const mf::FleetConfig& config)
{
  const long schedulable = (config.nodes - config.spare_nodes) * config.gpus_per_node;
  const auto too_big = std::stable_partition(workload.begin(), workload.end(),
                                             [&](const mf::JobSpec& j) { return j.gpus <= schedulable; });
  const long rejected = workload.end() - too_big;
  workload.erase(too_big, workload.end());
  return rejected;
}

// Runs the Engine to the end of the window and closes the fleet's accounts, the replayed jobs' first
// (`close_replayed`); a broken invariant is rethrown with the scenario and seed.
void run_window(sg4::Engine& engine, mf::FleetState& fleet, const std::optional<models::InvariantViolation>& violation,
                const scenario::Scenario& s, std::uint64_t seed, const std::function<void()>& close_replayed)
{
  try {
    engine.run();
    if (violation)
      throw *violation;
    close_replayed();
    fleet.finish(s.duration.si());
    if (test_fault() == "fleet_ledger") {
      mf::GpuTime broken = fleet.total();
      broken.productive += 3600;
      mf::check_closes(broken, "the fleet");
    }
  } catch (models::InvariantViolation& e) {
    e.scenario = s.name;
    e.seed = seed;
    e.has_seed = true;
    throw;
  }
}

// What the fleet's state holds at the end of the window.
FleetResult fleet_result(const mf::FleetState& fleet, const mf::FleetConfig& config, const mf::Workload& workload,
                         std::uint64_t seed, double horizon)
{
  FleetResult r;
  r.seed = seed;
  r.horizon = horizon;
  r.gpus = fleet.gpus();
  r.nodes = config.nodes;
  r.specs = workload;
  r.jobs = fleet.jobs();
  r.total = fleet.total();
  for (int c = 0; c < fleet.loss_causes(); ++c)
    r.loss_causes.push_back(fleet.loss_cause_name(c));
  r.failure_causes = config.causes.size();
  r.timeline = fleet.timeline();
  r.failures = fleet.failures();
  r.interruptions = fleet.interruptions();
  r.failures_on_idle = fleet.failures_on_idle();
  r.preemptions = fleet.preemptions();
  r.requeues = fleet.requeues();
  r.in_place_recoveries = fleet.in_place_recoveries();
  return r;
}

// The fleet's power, energy and carbon from its timeline; a broken invariant is rethrown with the
// scenario and seed.
models::fleet::FleetEnergy account_energy(const scenario::Scenario& s, std::uint64_t seed, const FleetResult& r)
{
  try {
    return mf::fleet_energy(r.timeline, fleet_energy_inputs(s), storage_rate_by_row(r.storage, r.timeline));
  } catch (models::InvariantViolation& e) {
    e.scenario = s.name;
    e.seed = seed;
    e.has_seed = true;
    throw;
  }
}

}  // namespace

mf::FleetEnergyInputs fleet_energy_inputs(const scenario::Scenario& s)
{
  mf::FleetEnergyInputs in;
  in.power = s.power;
  in.compute_fraction = s.fleet_compute_fraction;
  const int gpn = s.fleet.gpus_per_node;
  in.gpus = (s.fleet.gpus + gpn - 1) / gpn * gpn;  // whole nodes, as fleet_config
  in.gpus_per_node = gpn;
  in.carbon = &s.carbon.profile;
  return in;
}

std::vector<double> storage_rate_by_row(const std::vector<StorageSample>& samples, const mf::FleetTimeline& timeline)
{
  if (samples.empty())
    return {};
  std::vector<double> bytes(timeline.rows(), 0.0);
  const double end = timeline.row_start(timeline.rows() - 1) + timeline.row_length(timeline.rows() - 1);
  for (size_t k = 0; k < samples.size(); ++k) {
    // Each sample's rate holds until the next sample (the last one's until the window's end).
    const double a = samples[k].t;
    const double b = std::min(end, k + 1 < samples.size() ? samples[k + 1].t : end);
    const double rate = samples[k].write_bps + samples[k].read_bps;
    for (auto i = static_cast<size_t>(std::max(0.0, a) / timeline.interval()); i < timeline.rows() && rate > 0; ++i) {
      const double lo = std::max(a, timeline.row_start(i));
      const double hi = std::min(b, timeline.row_start(i) + timeline.row_length(i));
      if (hi <= lo)
        break;
      bytes[i] += rate * (hi - lo);
    }
  }
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] /= std::max(1e-300, timeline.row_length(i));
  return bytes;
}

namespace {

std::unique_ptr<mf::SchedulingPolicy> scheduling_policy(const scenario::Scenario& s)
{
  const mf::SchedulingPolicyEntry* entry = mf::find_scheduling_policy(s.scheduler.policy);
  models::check_invariant(entry != nullptr, "the scheduling policy is registered",
                          [&] { return "no scheduling policy '" + s.scheduler.policy + "'"; });
  return entry->make();
}

// What the fleet's state and the run's own records hold at the end, energy included.
FleetResult complete_result(const mf::FleetState& fleet, const mf::Workload& workload, const scenario::Scenario& s,
                            std::uint64_t seed, FleetResult&& partial)
{
  FleetResult r = fleet_result(fleet, fleet.config(), workload, seed, s.duration.si());
  r.replayed = std::move(partial.replayed);
  r.rejected = partial.rejected;
  r.repairs = partial.repairs;
  r.storage = std::move(partial.storage);
  r.fabric = std::move(partial.fabric);
  r.energy = account_energy(s, seed, r);
  const mf::FleetEnergyInputs energy_in = fleet_energy_inputs(s);
  for (const mf::JobRecord& job : r.jobs)
    r.job_energy.push_back(mf::job_energy(job, energy_in));
  return r;
}

// The storing jobs' channels, the storage's record and its token bucket.
template <class Daemon>
void start_storage(const scenario::Scenario& s, const Platform& platform, const std::vector<StorageClient>& clients,
                   FleetStorage& storage, std::vector<StorageSample>& samples, Daemon& daemon, ProcessHost& host)
{
  for (size_t c = 0; c < storage.queues.size(); ++c)
    host.spawn("storage-" + clients[c].name, StorageChannel(*platform.storage, static_cast<int>(c), storage.queues[c]));
  platform.storage->record_into(&samples);
  if (s.storage.burst_bandwidth.si() > 0)
    daemon("storage-bucket", StorageBucket(*platform.storage));
}

// Starts actors as daemons that keep the first broken invariant in `violation` and stop the run.
// Each actor makes itself a daemon as it starts: the fleet's scheduler creates actors while the run
// goes on (a transfer's), and SimGrid runs a new actor before its creator resumes; one that returned
// before its creator daemonized it would be counted off twice, and the run would end at once.
JobRuntime::Spawn daemon_spawner(const Platform& platform, std::optional<models::InvariantViolation>& violation)
{
  return [&platform, &violation](const std::string& name, std::function<void()> body) {
    sg4::Actor::create(name, platform.control, [&violation, body = std::move(body)] {
      sg4::Actor::self()->daemonize();
      try {
        body();
      } catch (const models::InvariantViolation& e) {
        if (!violation)
          violation = e;
        sg4::Actor::kill_all();
      }
    });
  };
}

// The failure injectors, one process per cause (the replay's, failure_injector.hpp).
void start_injectors(const EventSourceWiring& sources, ProcessHost& host)
{
  const auto& causes = sources.scenario.causes;
  for (size_t i = 0; i < causes.size(); ++i)
    host.spawn("failures-" + causes[i].name, FailureInjector(sources, static_cast<int>(i)));
}

// The fleet's platform: its control host and storage, with network.fleet_fabric: shared its fabric
// at node resolution (fleet_fabric.hpp), and a data reader per job that loads data
// (fleet_data_loading.hpp).
Platform fleet_platform(const scenario::Scenario& s, const std::vector<StorageClient>& clients,
                        const mf::FleetConfig& config, const mf::Workload& workload,
                        std::unique_ptr<FleetFabric>& fabric, std::unique_ptr<FleetDataLoading>& data)
{
  return build_platform(s, clients, [&](sg4::NetZone* zone, StorageSystem& storage) {
    // The readers' routes first: SimGrid 3.32 refuses a route without gateways in a zone that already
    // has a child zone (the shared fabric's), "nullptr is obviously a deficient gateway".
    std::map<long, std::pair<int, double>> readers;
    for (size_t j = 0; j < workload.size(); ++j)
      if (loads_data(s, workload[j])) {
        const double rate = workload[j].tokens_per_second * s.data.bytes_per_token.si();
        const long nodes = (workload[j].gpus + config.gpus_per_node - 1) / config.gpus_per_node;
        readers[static_cast<long>(j)] = {storage.add_reader(workload[j].id, nodes, rate), rate};
      }
    if (s.fabric.fleet == scenario::FleetFabricMode::Shared)
      fabric = std::make_unique<FleetFabric>(s, config.nodes, zone, workload, s.duration.si());
    if (!readers.empty())
      data = std::make_unique<FleetDataLoading>(storage, std::move(readers), s.duration.si());
  });
}

// A checkpoint that starts or ends changes what the data loading gets: its rates are read again.
StorageSystem::Watch watch_storage(StorageSystem& storage, FleetDataLoading& data, Inbox<FleetMessage>& inbox)
{
  return storage.observe([&data, &inbox] {
    data.changed(sg4::Engine::get_clock());
    inbox.post(msg::Recheck{});
  });
}

}  // namespace

FleetResult run_fleet(const scenario::Scenario& s, std::uint64_t seed)
{
  const auto wall0 = std::chrono::steady_clock::now();
  mf::Workload workload = fleet_workload(s, seed);  // before the Engine: a simulated step forks
  const std::unique_ptr<mf::SchedulingPolicy> policy = scheduling_policy(s);
  const mf::FleetConfig config = fleet_config(s, workload, seed);
  FleetResult partial;
  partial.rejected = drop_unschedulable(workload, config);
  FleetReplayedJobs replayed(s, workload, seed);
  mf::FleetState fleet(config, workload, *policy);

  auto engine = make_engine();
  std::vector<StorageClient> clients;
  FleetStorage storage = storing_jobs(workload, config.gpus_per_node, config.nodes, clients);
  replayed.add_clients(workload, clients);
  std::unique_ptr<FleetFabric> fabric;
  std::unique_ptr<FleetDataLoading> data;
  const Platform platform = fleet_platform(s, clients, config, workload, fabric, data);
  // The cluster's nodes, the spares included: the injectors thin their draws against it (a node in
  // repair cannot fail again; lemon weights apply as in a replay), and the replayed jobs hold theirs
  // in it. The fleet's state keeps the other jobs' nodes in step with it.
  models::NodePool pool = make_cluster_pool(s, config.nodes, seed);
  const long others = replayed.use_pool(pool, config, seed);
  scenario::Scenario sources_view = s;
  sources_view.capacity.spare_nodes = 0;  // cluster.gpus already counts the spare nodes
  Inbox<FleetMessage> inbox;
  Inbox<SchedulerMessage> unused;
  std::optional<models::InvariantViolation> violation;
  const auto daemon = daemon_spawner(platform, violation);
  const double horizon = s.duration.si();
  // The processes of the fleet's event sources and of its replayed jobs (process.hpp).
  ProcessHost host;
  const auto start_replayed = [&](long j) { replayed.start(j, fleet, platform, daemon, host, inbox); };
  FleetScheduler scheduler(s, seed, fleet, pool, inbox, partial.repairs, storage, *platform.storage, start_replayed,
                           fabric.get(), daemon, data.get());
  scheduler.hold_repaired_in(others);
  scheduler.on_replayed([&](long j) { replayed.end(j, fleet); }, [&](long n) { replayed.node_back(n, fleet); },
                        [&](long j) { replayed.requeue(j, fleet); });
  host.spawn("fleet-scheduler", std::move(scheduler));
  if (!replayed.empty())
    host.spawn("node-keeper", [&replayed] { return replayed.keeper()(); });
  std::optional<StorageSystem::Watch> data_watch;
  if (data)
    data_watch.emplace(watch_storage(*platform.storage, *data, inbox));
  if (!storage.queues.empty() || !replayed.empty() || storage.first_node_client >= 0)
    start_storage(s, platform, clients, storage, partial.storage, daemon, host);
  host.spawn("arrivals", [&workload, &inbox, horizon]() -> Process {
    for (size_t j = 0; j < workload.size() && workload[j].submit < horizon; ++j) {
      co_await sleep_until(workload[j].submit);
      inbox.post(msg::Submit{static_cast<long>(j)});
    }
  });
  // A failure of node scope is drawn once: the keeper applies it to the replayed jobs' nodes and
  // the spares, the fleet's state to the other jobs' nodes (it leaves the former alone).
  const auto route = [&](msg::Failure f) {
    replayed.strike(f);
    inbox.post(f);
  };
  start_injectors(EventSourceWiring{sources_view, pool, seed, horizon, unused, route}, host);
  daemon("processes", [&host] { host.run(); });
  sg4::Actor::create("horizon", platform.control, [horizon] { sg4::this_actor::sleep_until(horizon); });
  FLEETSIM_LOG(Run, info, "{} seed {}: a fleet of {} jobs on {} GPUs for {:.1f} days", s.name, seed, workload.size(),
               fleet.gpus(), horizon / 86400);
  run_window(*engine, fleet, violation, s, seed, [&] { replayed.finish(fleet, partial, horizon); });
  if (fabric)
    partial.fabric = fabric->use(horizon);
  partial.repairs += replayed.keeper().run_counters().repairs;
  FleetResult r = complete_result(fleet, workload, s, seed, std::move(partial));
  r.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return r;
}

}  // namespace fleetsim::sim
