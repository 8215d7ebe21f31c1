#pragma once
// A SimGrid zone that routes a whole GPU cluster by arithmetic instead of by nested zones.
//
// Why a custom zone: SimGrid 3.32 checks every new link's name against every zone of the platform,
// so the natural build -- one zone per 8-GPU node, one per rack, one per pod -- spends 11-15 s at
// 16,384 GPUs just creating links (measured in ../shared/notes/simgrid.md, section 5). Here every
// host and link lives in one zone and a route is computed from the two ranks' positions:
//
//   same node (NVLink island):  [nvlink(a) up, nvlink(b) down]
//   otherwise:                  [nic(a) up, level uplinks of a going up ..., level uplinks of b
//                                going down ..., nic(b) down]
//
// where a level (rack, pod, or rail group) contributes its two groups' uplinks only when a and b
// sit in different groups of that level. The NVSwitch itself is non-blocking, so only the GPUs'
// NVLink ports appear. A torus instead links every rank to its neighbours in each dimension and
// routes dimension by dimension (x, then y, then z), the shorter way round each ring.
// Subclassing NetZoneImpl is public API in 3.32 (the stock zones do the same); links are created
// through the s4u interface, so nothing internal is touched.

#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u.hpp>

#include <string>
#include <vector>

namespace fleetsim::sim {

/// One aggregation level of the cluster: groups of `size` consecutive ranks sharing an uplink.
/// A rail level splits each group further by the GPU's index in its node (rail r of every node in
/// the group shares one leaf switch): group = (rank / size) * gpus_per_node + rank % gpus_per_node.
struct ClusterLevel {
  int size = 0;         // ranks per group (per block of rails for a rail level)
  double capacity = 0;  // uplink bandwidth of one group, each direction (bytes/s)
  std::string name;     // "rack", "pod", "rail": link names are <name><group>-uplink
  bool rail = false;
};

enum class ClusterTopology { Clos, Torus };

struct ClusterLayout {
  int ranks = 0;
  double gpu_flops = 0;
  double nic_bandwidth = 0;  // per GPU, each direction
  double nic_latency = 0;    // end to end through the scale-out fabric
  int gpus_per_node = 1;     // > 1 with nvlink_bandwidth > 0: NVLink islands
  double nvlink_bandwidth = 0;
  double nvlink_latency = 0;
  std::vector<ClusterLevel> levels;  // innermost first (rack, then pod); Clos only
  ClusterTopology topology = ClusterTopology::Clos;
  std::vector<int> torus_dims;      // Torus: x, y, z (product = ranks); rank = x + X (y + Y z)
  double torus_link_bandwidth = 0;  // each direction of each link
  double torus_hop_latency = 0;
  double storage_write_bandwidth = 0;  // > 0: a "storage" host at the core (see build())
  double storage_read_bandwidth = 0;
};

class ClusterZone final : public simgrid::kernel::routing::NetZoneImpl {
public:
  /// Creates the zone, its hosts (named rank<i>) and links. The zone must be the platform's root
  /// or be given a parent by the caller before build(); build() seals it.
  explicit ClusterZone(const std::string& name) : NetZoneImpl(name) {}
  void build(const ClusterLayout& layout);

  [[nodiscard]] const std::vector<simgrid::s4u::Host*>& hosts() const { return hosts_; }
  [[nodiscard]] simgrid::s4u::Host* storage() const { return storage_; }
  [[nodiscard]] int group_count(size_t level) const { return static_cast<int>(uplinks_[level].size()); }
  [[nodiscard]] int group_of(size_t level, int rank) const;
  [[nodiscard]] const ClusterLayout& layout() const { return layout_; }

  void get_local_route(const simgrid::kernel::routing::NetPoint* src, const simgrid::kernel::routing::NetPoint* dst,
                       simgrid::kernel::routing::Route* into, double* latency) override;

private:
  struct Port {  // one split-duplex link, as the two impl pointers a route holds
    simgrid::kernel::resource::StandardLinkImpl* up = nullptr;
    simgrid::kernel::resource::StandardLinkImpl* down = nullptr;
    double latency = 0;  // of each direction
  };
  Port make_port(const std::string& name, double bandwidth, double latency);
  static void push(simgrid::kernel::routing::Route* into, double* latency,
                   simgrid::kernel::resource::StandardLinkImpl* link, double link_latency);

  ClusterLayout layout_;
  std::vector<simgrid::s4u::Host*> hosts_;
  std::vector<int> rank_of_id_;  // netpoint id (index in this zone) -> rank, -1 for non-hosts
  std::vector<Port> nic_;
  std::vector<Port> nvlink_;                // empty without NVLink islands
  std::vector<std::vector<Port>> uplinks_;  // per level, per group
  std::vector<std::vector<Port>> torus_;    // per dimension, per rank: the link to its + neighbour
  simgrid::s4u::Host* storage_ = nullptr;
  int storage_id_ = -1;  // netpoint id of the storage host
  Port storage_port_;    // up: into storage (writes), down: out of it (reads)
  void route_to_core(int rank, bool up, simgrid::kernel::routing::Route* into, double* latency) const;
  void build_torus();
  void torus_route(int a, int b, simgrid::kernel::routing::Route* into, double* latency) const;
};

}  // namespace fleetsim::sim
