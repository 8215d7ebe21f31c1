#pragma once
// The MPI side of `fleetsim sweep`, behind an interface that does not expose MPI: when fleetsim is
// started by mpirun (or another PMI launcher), the sweep spreads its replicas over the ranks, every
// rank runs its share as child processes, and rank 0 gathers the figures and writes the results.
// Built without MPI (-DFLEETSIM_WITH_MPI=OFF), launched_by_mpi() still detects the launcher so that
// the sweep can refuse clearly instead of running K copies of the whole sweep.

#include <memory>
#include <string>
#include <vector>

namespace fleetsim::cli {

/// True when the process was started by an MPI launcher (Open MPI's mpirun, PMI, PMIx).
bool launched_by_mpi();

class MpiWorld {
public:
  virtual ~MpiWorld() = default;
  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  /// True on every rank iff `mine` is true on every rank.
  [[nodiscard]] virtual bool all(bool mine) = 0;
  /// Rank 0 receives every rank's vector, in rank order; the others receive nothing.
  [[nodiscard]] virtual std::vector<std::vector<double>> gather(const std::vector<double>& mine) = 0;
  /// Rank 0's text, on every rank.
  [[nodiscard]] virtual std::string broadcast(const std::string& from_rank0) = 0;
};

/// Initialises MPI (once per process). Returns nullptr with `error` set when this build has no MPI.
std::unique_ptr<MpiWorld> join_mpi(std::string& error);

}  // namespace fleetsim::cli
