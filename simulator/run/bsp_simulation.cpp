#include "bsp_simulation.hpp"

#include "models/core/random_stream.hpp"
#include "simulator/run/engine_setup.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace fleetsim::sim {

namespace sg4 = simgrid::s4u;

namespace {

constexpr double kNominalSpeed = 1e12;  // flop/s of a uniform worker; only ratios matter here

struct Shared {
  models::StragglerSpec spec;
  long steps = 0;
  double flops = 0;  // one worker's work in one step
  sg4::BarrierPtr barrier;
  std::vector<char> slowed_now;  // per worker, this step
  long slowed_steps = 0;
  double total = 0;
};

class Worker {
public:
  Worker(Shared& shared, int index, std::uint64_t seed, double host_factor)
      : shared_(shared),
        index_(index),
        random_(seed, "stragglers/transient/" + std::to_string(index)),
        host_factor_(host_factor)
  {}
  void operator()()
  {
    const auto i = static_cast<size_t>(index_);
    for (long step = 0; step < shared_.steps; ++step) {
      const double t0 = sg4::Engine::get_clock();
      const bool slowed = shared_.spec.transient_probability > 0 &&
                          random_.uniform() < shared_.spec.transient_probability;
      shared_.slowed_now[i] = slowed ? 1 : 0;
      // The host runs at host_factor of nominal; the model says how fast this step runs.
      const double speed = models::step_speed(shared_.spec, host_factor_, slowed);
      sg4::this_actor::execute(shared_.flops * host_factor_ / speed);
      shared_.barrier->wait();
      if (index_ == 0) {
        shared_.total += sg4::Engine::get_clock() - t0;
        if (std::any_of(shared_.slowed_now.begin(), shared_.slowed_now.end(), [](char c) { return c != 0; }))
          ++shared_.slowed_steps;
      }
      shared_.barrier->wait();  // everyone has been counted before the next step overwrites its flag
    }
  }

private:
  Shared& shared_;
  int index_;
  models::RandomStream random_;
  double host_factor_;
};

}  // namespace

BspResult run_bsp(const models::StragglerSpec& spec, int workers, long steps, double step_compute_s, std::uint64_t seed)
{
  const auto wall0 = std::chrono::steady_clock::now();
  auto engine = make_engine();
  auto* zone = sg4::create_star_zone("bsp");
  Shared shared;
  shared.spec = spec;
  shared.steps = steps;
  shared.flops = step_compute_s * kNominalSpeed;
  shared.barrier = sg4::Barrier::create(static_cast<unsigned>(workers));
  shared.slowed_now.assign(static_cast<size_t>(workers), 0);
  const long persistent = models::persistent_stragglers(spec, workers);
  std::vector<std::pair<sg4::Host*, double>> hosts;
  for (int w = 0; w < workers; ++w) {
    // Persistent stragglers are the first nodes: slower hosts, not slower work.
    const double factor = w < persistent ? spec.persistent_speed : 1.0;
    hosts.emplace_back(zone->create_host("node" + std::to_string(w), kNominalSpeed * factor), factor);
  }
  zone->seal();
  for (int w = 0; w < workers; ++w)
    sg4::Actor::create("worker" + std::to_string(w), hosts[static_cast<size_t>(w)].first,
                       Worker(shared, w, seed, hosts[static_cast<size_t>(w)].second));
  engine->run();
  BspResult r;
  r.steps = steps;
  r.mean_step_s = steps > 0 ? shared.total / static_cast<double>(steps) : 0;
  r.slowed_fraction = steps > 0 ? static_cast<double>(shared.slowed_steps) / static_cast<double>(steps) : 0;
  r.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return r;
}

}  // namespace fleetsim::sim
