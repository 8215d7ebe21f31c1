// fleetsim_page_faults: what a first touch of memory costs on this machine, per 4 KB page.
//
//   build/fleetsim_page_faults [MB]        (default 256)
//
// A sweep forks one process per replica, and every page a replica touches for the first time is a
// page fault. On the 2-core VMs fleetsim is developed on a fault costs far more than on bare metal,
// which is why a replica grows its heap with transparent huge pages (tools/cli/replica_runner.cpp,
// docs/architecture.md decision 16). This prints the cost of touching MB megabytes of fresh
// anonymous memory three ways: page by page, pre-faulted with MAP_POPULATE, and advised
// MADV_HUGEPAGE (one fault per 2 MB where the kernel grants huge pages). Medians of 5 rounds.
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double touch(std::size_t bytes, int extra_flags, bool huge)
{
  const std::size_t align = std::size_t{2} << 20;
  const auto t0 = Clock::now();
  void* raw = mmap(nullptr, bytes + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | extra_flags, -1, 0);
  if (raw == MAP_FAILED) {
    std::perror("mmap");
    std::exit(1);
  }
  auto* p = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(raw) + align - 1) & ~(align - 1));
  if (huge)
    madvise(p, bytes, MADV_HUGEPAGE);
  std::memset(p, 1, bytes);
  munmap(raw, bytes + align);
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv)
{
  const std::size_t mb = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 256;
  const std::size_t bytes = std::max<std::size_t>(mb, 4) << 20;
  const double pages = static_cast<double>(bytes) / 4096;
  std::printf("fleetsim_page_faults: first touch of %zu MB of anonymous memory, per 4 KB page (median of 5)\n",
              bytes >> 20);
  const struct {
    const char* name;
    int flags;
    bool huge;
  } ways[] = {{"page by page (a fault per page)", 0, false},
              {"MAP_POPULATE (pre-faulted by the kernel)", MAP_POPULATE, false},
              {"MADV_HUGEPAGE (transparent huge pages)", 0, true}};
  for (const auto& w : ways) {
    std::vector<double> t;
    for (int i = 0; i < 5; ++i)
      t.push_back(touch(bytes, w.flags, w.huge));
    std::sort(t.begin(), t.end());
    std::printf("  %-44s %7.2f us per page\n", w.name, t[2] / pages * 1e6);
  }
  return 0;
}
