#include "storage_bucket.hpp"

#include "simulator/platform/storage_system.hpp"

#include <algorithm>

namespace fleetsim::sim {

// SimGrid shares the resources again once the actors of this instant have run: a sleep this short
// lets it, and lands well within SimGrid's timing precision of any real event.
constexpr double kSettle = 1e-9;

double StorageBucket::settle() const
{
  sg4::this_actor::sleep_for(kSettle);
  return storage_.servers()->get_usage();
}

void StorageBucket::operator()()
{
  Inbox<int> wake;
  const StorageSystem::Watch watch = storage_.observe([&wake] { wake.post(1); });
  const scenario::StorageSpec& spec = storage_.spec();
  const double sustained = spec.bandwidth.si();
  const double capacity = spec.burst_bytes.si();
  double& credit = storage_.credit;
  credit = capacity;
  bool burst = true;
  double load = 0;  // the servers' load since `last`
  double last = now();
  while (true) {
    double deadline = -1;  // when the credit runs out or the bucket is full, at this load
    if (burst && load > sustained)
      deadline = now() + credit / (load - sustained);
    else if (!burst && load < sustained)
      deadline = now() + (capacity - credit) / (sustained - load);
    wake.wait(deadline);
    credit = std::clamp(credit + (sustained - load) * (now() - last), 0.0, capacity);
    last = now();
    load = settle();
    if (burst && credit <= 1e-9 * capacity) {
      storage_.servers()->set_bandwidth(sustained);
      burst = false;
      load = settle();
    } else if (!burst && credit >= capacity * (1 - 1e-9)) {
      storage_.servers()->set_bandwidth(spec.burst_bandwidth.si());
      burst = true;
      load = settle();
    }
  }
}

}  // namespace fleetsim::sim
