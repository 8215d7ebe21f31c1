#pragma once
// The shared storage system, on SimGrid resources. Every client (a job's nodes, taken together)
// reaches the storage servers through its own link, the sum of its nodes' storage NICs; then
// through a direction cap (the servers' write or read bandwidth) and the servers' total throughput,
// which reads and writes share. SimGrid's max-min sharing divides each resource between the
// transfers that cross it, so k writers of S bytes into servers of bandwidth B take k S / B when the
// servers bind and S / (client bandwidth) when the clients do -- from the resources, with no formula
// in the actors. File opens and creates go to a metadata service: a host whose speed is the file
// operations it serves per second, shared the same way.
//
//   client "job" --[client_UP]--> storage-write --> storage-servers --> host "storage"
//   client "job" <--[client_DOWN]-- storage-read <-- storage-servers <-- host "storage"
//   host "storage-metadata": speed = storage.metadata_rate (file operations / s)
//
// A token bucket (storage.burst_bandwidth, storage.burst_bytes) lets the servers run above their
// sustained rate until the burst credit is spent (the StorageBucket actor, actors/storage_bucket.hpp).

#include "simulator/scenario/scenario.hpp"

#include <simgrid/s4u.hpp>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace fleetsim::sim {

namespace sg4 = simgrid::s4u;

/// The storage's load from time t until the next sample.
struct StorageSample {
  double t = 0;
  double write_bps = 0;     // written to the servers
  double read_bps = 0;      // read from them
  double servers_bps = 0;   // through their total (reads and writes)
  double capacity_bps = 0;  // the servers' total then (the burst rate while credit lasts)
  double credit = 0;        // burst credit left at t (bytes)
};

class StorageSystem {
public:
  /// Builds the servers, the direction caps and the metadata service in `zone` (a star zone, not
  /// yet sealed).
  StorageSystem(sg4::NetZone* zone, const scenario::StorageSpec& spec);

  /// A client of `nodes` nodes (their storage NICs make one link); call before the zone is sealed.
  /// Returns the client's index.
  int add_client(const std::string& name, long nodes);

  /// A client that only reads, at most `rate` bytes/s (a private link at the end of its route: a
  /// job's training data, read as fast as it trains and no faster); call before the zone is sealed.
  int add_reader(const std::string& name, long nodes, double rate);
  /// A client's host (a flow from the storage to it: sg4::Comm::sendto_init).
  [[nodiscard]] sg4::Host* client_host(int client) const { return clients_.at(static_cast<size_t>(client)).host; }
  [[nodiscard]] sg4::Host* host() const { return storage_; }

  /// Starts moving `bytes` between client `client` and the servers (write: to them). The caller
  /// waits for it with wait(), which also tells the observers when it starts and ends.
  [[nodiscard]] sg4::CommPtr start_transfer(int client, bool write, double bytes);
  /// Waits for a transfer started by start_transfer(); false when it was cancelled.
  bool wait(const sg4::CommPtr& transfer);
  /// Calls its function whenever a transfer starts or ends (from the actor that started or ended
  /// it), from StorageSystem::observe() until it is destroyed: the storage monitor and the data
  /// loaders wake on it. A job's data loader ends with its job, and so does its watch.
  class Watch {
  public:
    Watch(StorageSystem& storage, long id) : storage_(&storage), id_(id) {}
    Watch(const Watch&) = delete;
    Watch& operator=(const Watch&) = delete;
    Watch(Watch&& o) noexcept : storage_(std::exchange(o.storage_, nullptr)), id_(o.id_) {}
    Watch& operator=(Watch&&) = delete;
    ~Watch()
    {
      if (storage_ != nullptr)
        storage_->forget(id_);
    }

  private:
    StorageSystem* storage_;
    long id_;
  };
  [[nodiscard]] Watch observe(std::function<void()> f)
  {
    observers_.emplace_back(++observers_made_, std::move(f));
    return {*this, observers_made_};
  }
  /// Transfers in flight.
  [[nodiscard]] int active() const { return static_cast<int>(moving_.size()); }
  /// Keeps the storage's load over time in `samples`: a sample at every start and end of a
  /// transfer, with each transfer's bytes moved since the last one (SimGrid's own remaining
  /// amounts: rates are constant between such changes, so the record is exact).
  void record_into(std::vector<StorageSample>* samples) { samples_ = samples; }
  /// Keeps client `client`'s own load in `samples` from now on, as record_into() keeps the
  /// storage's: write_bps and read_bps its own transfers' rates; servers_bps, capacity_bps and
  /// credit the servers'. A row at every change while it moves data; each stretch in which it moves
  /// none one row, whose servers_bps is the servers' mean over it. With one client the record is
  /// record_into()'s, row for row.
  void record_client(int client, std::vector<StorageSample>* samples);
  /// Ends record_client(): its last row goes into its record.
  void stop_recording(int client);
  /// The token bucket's credit now (the StorageBucket actor keeps it).
  double credit = 0;
  /// Starts `files` file operations on the metadata service; nullptr when they cost nothing.
  [[nodiscard]] sg4::ExecPtr start_metadata(double files) const;

  /// A storage outage lasts until then: transfers wait for it (failures.causes.*.scope: storage).
  double back_at = 0;

  /// The servers' total link (reads and writes share it): its bandwidth changes with the burst credit.
  [[nodiscard]] sg4::Link* servers() const { return servers_; }
  [[nodiscard]] sg4::Link* write_link() const { return write_; }
  [[nodiscard]] sg4::Link* read_link() const { return read_; }
  [[nodiscard]] const scenario::StorageSpec& spec() const { return spec_; }

private:
  /// The servers' record at some date: spans sampled until then and bytes they moved.
  struct Mark {
    long samples = 0;
    double bytes = 0;
  };
  struct Client {
    sg4::Host* host = nullptr;
    std::vector<StorageSample>* series = nullptr;  // its own record (record_client), if kept
    StorageSample open;                            // its last row, not yet in `series`
    bool open_idle = true;                         // it moved no data during `open`
    bool fresh = true;                             // `open` is the row it was registered with
    double open_end = 0;                           // when `open` ends (its last sample)
    Mark open_mark;                                // the servers' at open.t
    Mark mark;                                     // the servers' at open_end
    bool moved = false;                            // it had a transfer in flight in this sample's span
    double write = 0;                              // its rates in this sample's span
    double read = 0;
  };
  scenario::StorageSpec spec_;
  sg4::NetZone* zone_;
  sg4::Host* storage_ = nullptr;
  sg4::Host* metadata_ = nullptr;
  sg4::Link* servers_ = nullptr;
  sg4::Link* write_ = nullptr;
  sg4::Link* read_ = nullptr;
  std::vector<Client> clients_;
  std::vector<std::pair<long, std::function<void()>>> observers_;  // by Watch id, in the order made
  long observers_made_ = 0;
  void forget(long id)
  {
    std::erase_if(observers_, [id](const auto& o) { return o.first == id; });
  }
  struct Moving {
    sg4::CommPtr comm;
    bool write = true;
    double remaining = 0;  // at the last sample
    int client = 0;
  };
  std::vector<Moving> moving_;
  std::vector<StorageSample>* samples_ = nullptr;
  double sampled_at_ = 0;
  long samples_taken_ = 0;    // spans sampled so far
  double servers_bytes_ = 0;  // moved through the servers until sampled_at_
  std::vector<int> touched_;  // the recorded clients a sample concerns
  /// Closes the sample since the last change (before the set of transfers changes), `changer` the
  /// client whose transfer starts or ends.
  void sample(int changer);
  /// Closes or extends a recorded client's row after sample `x` (its span ending now).
  void close_row(Client& c, const StorageSample& x, double now);
  void changed() const
  {
    for (const auto& o : observers_)
      o.second();
  }
};

}  // namespace fleetsim::sim
