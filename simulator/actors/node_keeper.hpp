#pragma once
// The run's keeper of its node pool (models/resilience/node_pool.hpp): a failure of node scope is
// applied to the pool once, whichever jobs hold the nodes it strikes, and each of those jobs is told
// which of its slots it lost; the nodes go to repair for a drawn time and come back. One keeper
// serves every job of a run (the replay's one job, or a fleet's jobs), with one stream of repair
// times ("repair/times" of the run's seed): draws follow the order in which nodes fail.
//
// A node comes back through the job that held it when it failed, while that job lives (and has not
// left the keeper since: a requeued job placed again takes back only the nodes it lost since): the job's
// scheduler takes it back into the pool when it reads the message (a scheduler stopping its job
// reads it once the job has stopped). A node that no job held (a spare, a free node, a drained
// idle node), or whose job has ended, is back in the pool at its repair time, and every living job
// is told (an elastic job may grow, a job waiting for nodes may fill its slots). The failures and
// repairs of the nodes no job holds are counted for the spares' owner -- the replay's job, or a
// fleet's only replayed job, whose reserve they are -- else for the run. docs/architecture.md,
// decision 42.

#include "message.hpp"
#include "process.hpp"

#include "models/core/random_stream.hpp"
#include "models/resilience/node_pool.hpp"
#include "models/resilience/recovery_policy.hpp"
#include "simulator/scenario/scenario.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <queue>
#include <tuple>
#include <utility>
#include <vector>

namespace fleetsim::sim {

class NodeKeeper {
public:
  /// `s`: the run's failure causes and repair times (capacity.*); it outlives the keeper.
  NodeKeeper(const scenario::Scenario& s, models::NodePool& pool, std::uint64_t seed);
  NodeKeeper(const NodeKeeper&) = delete;
  NodeKeeper& operator=(const NodeKeeper&) = delete;

  /// Job `pool_job` (its slot table in the pool) lives: `scheduler` is its scheduler's inbox,
  /// `counters` where its failures and repairs are counted.
  void attach(long pool_job, Inbox<SchedulerMessage>& scheduler, models::PolicyCounters& counters);
  /// The job has ended: the nodes it lost come back to the pool directly.
  void detach(long pool_job);
  /// The job whose counters take the failures and repairs of nodes no job holds (-1: the run's).
  void set_spare_owner(long pool_job) { spare_owner_ = pool_job; }
  /// Called with each node back in the pool that no job took back (the fleet follows them).
  void on_return(std::function<void(long node)> f) { on_return_ = std::move(f); }

  /// A failure of node scope struck nodes [f.first_node, f.first_node + f.nodes): those the keeper
  /// keeps (`mine`; all when empty) that are up go to repair, and each job that held one gets `f`,
  /// numbered (`msg::Failure::strike`) for the slots it lost.
  void strike(msg::Failure f, const std::function<bool(long node)>& mine = {});
  /// The slots of job `pool_job` that strike `strike` took (once: they are forgotten).
  [[nodiscard]] std::vector<long> take_lost(long pool_job, long strike);
  /// Sends `node`, down in the pool, to repair for a time of mean `mean` (s); `through`: the slot
  /// table of the job that held it when it went down, -1 when none did. A zero repair time puts it
  /// back at once.
  void send(long node, double mean, long through);
  /// Job `pool_job`'s scheduler took `node` back into the pool (it came back through the job): the
  /// other living jobs are told, as of a node that came back directly.
  void taken_back(long node, long pool_job);

  /// The run's own counts: nodes no job's counters took (sent to repair; failures that struck none).
  [[nodiscard]] const models::PolicyCounters& run_counters() const { return run_; }

  /// The process that returns nodes at their repair time (spawn it once on the run's host).
  Process operator()();

private:
  struct Request {
    double after = 0;
    long node = 0;
    long through = -1;
    long attachment = 0;  // the attachment of `through` it was sent in (Job::attachment)
  };
  using Due = std::tuple<double, long, Request>;  // due time, order of arrival, request
  struct Later {
    bool operator()(const Due& a, const Due& b) const
    {
      return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) > std::get<0>(b) : std::get<1>(a) > std::get<1>(b);
    }
  };
  struct Job {
    Inbox<SchedulerMessage>* scheduler = nullptr;
    models::PolicyCounters* counters = nullptr;
    long attachment = 0;  // which of the run's attach() calls (a requeued job attaches again when placed)
  };
  /// The counters of a job's nodes (the run's when it is not attached).
  models::PolicyCounters& counters_of(long pool_job);
  [[nodiscard]] models::NodePool::Hit fail(const msg::Failure& f, const std::function<bool(long)>& mine);
  void back(const Request& r);
  /// Tells every living job but `except` that `node` is back in the pool.
  void tell_jobs(long node, long except);

  const scenario::Scenario& s_;
  models::NodePool& pool_;
  models::RandomStream times_;
  Inbox<Request> requests_;
  std::map<long, Job> jobs_;  // living jobs, by slot table
  // The slots each strike took, by (job, strike), until the job reads them: messages stay plain
  // values (a vector in a message's variant makes GCC 12 warn of uninitialised moves).
  std::map<std::pair<long, long>, std::vector<long>> lost_;
  long strikes_ = 0;
  long attachments_ = 0;
  long spare_owner_ = -1;
  models::PolicyCounters run_;
  std::function<void(long)> on_return_;
};

}  // namespace fleetsim::sim
