#include "mpi_world.hpp"

#include <cstdlib>

#ifdef FLEETSIM_WITH_MPI
#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>

#include <functional>
#endif

namespace fleetsim::cli {

bool launched_by_mpi()
{
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"})
    if (std::getenv(v) != nullptr)
      return true;
  return false;
}

#ifdef FLEETSIM_WITH_MPI
namespace {

class BoostMpiWorld final : public MpiWorld {
public:
  [[nodiscard]] int rank() const override { return world_.rank(); }
  [[nodiscard]] int size() const override { return world_.size(); }
  bool all(bool mine) override
  {
    bool every = false;
    boost::mpi::all_reduce(world_, mine, every, std::logical_and<>());
    return every;
  }
  std::vector<std::vector<double>> gather(const std::vector<double>& mine) override
  {
    std::vector<std::vector<double>> all;
    if (world_.rank() == 0)
      boost::mpi::gather(world_, mine, all, 0);
    else
      boost::mpi::gather(world_, mine, 0);
    return all;
  }
  std::string broadcast(const std::string& from_rank0) override
  {
    std::string text = from_rank0;
    boost::mpi::broadcast(world_, text, 0);
    return text;
  }

private:
  boost::mpi::environment env_{false};  // MPI_Init here, MPI_Finalize at exit (replicas _exit)
  boost::mpi::communicator world_;
};

}  // namespace

std::unique_ptr<MpiWorld> join_mpi(std::string& error)
{
  error.clear();
  // Ranks fork their replicas after MPI_Init. On InfiniBand, libibverbs must be told before it
  // registers memory that the process will fork (the children never touch MPI and only _exit).
  setenv("RDMAV_FORK_SAFE", "1", 0);
  setenv("IBV_FORK_SAFE", "1", 0);
  return std::make_unique<BoostMpiWorld>();
}
#else
std::unique_ptr<MpiWorld> join_mpi(std::string& error)
{
  error =
      "this fleetsim was built without MPI (cmake -DFLEETSIM_WITH_MPI=ON needs libboost-mpi-dev and "
      "libopenmpi-dev); run the sweep without mpirun, or split it with --shard i/n";
  return nullptr;
}
#endif

}  // namespace fleetsim::cli
