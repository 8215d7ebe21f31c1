#include "storage_monitor.hpp"

#include "simulator/platform/storage_system.hpp"

#include <algorithm>

namespace fleetsim::sim {

// SimGrid shares the resources again once the actors of this instant have run: a sleep this short
// lets it, and lands well within SimGrid's timing precision of any real event.
constexpr double kSettle = 1e-9;

double StorageMonitor::settle() const
{
  sg4::this_actor::sleep_for(kSettle);
  return storage_.servers()->get_usage();
}

void StorageMonitor::record(double credit) const
{
  StorageSample s;
  s.t = now();
  s.write_bps = storage_.write_link()->get_usage();
  s.read_bps = storage_.read_link()->get_usage();
  s.servers_bps = storage_.servers()->get_usage();
  s.capacity_bps = storage_.servers()->get_bandwidth();
  s.credit = credit;
  // Several changes at one instant leave one sample, the last.
  if (!samples_.empty() && samples_.back().t >= s.t - 2 * kSettle)
    samples_.back() = s;
  else
    samples_.push_back(s);
}

void StorageMonitor::operator()()
{
  Inbox<int> wake;
  storage_.observe([&wake] { wake.post(1); });
  const scenario::StorageSpec& spec = storage_.spec();
  const bool bucket = spec.burst_bandwidth.si() > 0;
  const double sustained = spec.bandwidth.si();
  const double capacity = spec.burst_bytes.si();
  double credit = capacity;
  bool burst = bucket;
  double load = 0;  // the servers' load since `last`
  double last = now();
  record(credit);
  while (true) {
    double deadline = -1;  // when the credit runs out or the bucket is full, at this load
    if (bucket && burst && load > sustained)
      deadline = now() + credit / (load - sustained);
    else if (bucket && !burst && load < sustained)
      deadline = now() + (capacity - credit) / (sustained - load);
    wake.wait(deadline);
    if (bucket)
      credit = std::clamp(credit + (sustained - load) * (now() - last), 0.0, capacity);
    last = now();
    load = settle();
    if (bucket && burst && credit <= 1e-9 * capacity) {
      storage_.servers()->set_bandwidth(sustained);
      burst = false;
      load = settle();
    } else if (bucket && !burst && credit >= capacity * (1 - 1e-9)) {
      storage_.servers()->set_bandwidth(spec.burst_bandwidth.si());
      burst = true;
      load = settle();
    }
    record(credit);
  }
}

}  // namespace fleetsim::sim
