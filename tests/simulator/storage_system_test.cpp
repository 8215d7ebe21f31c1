// The shared storage system on its SimGrid resources: k clients writing at once share the servers'
// bandwidth, or are held back by their own NICs, as max-min sharing dictates; metadata operations
// share the metadata service; reads and writes share the servers' total throughput.
#include "run_in_child.hpp"

#include "simulator/actors/storage_bucket.hpp"
#include "simulator/actors/storage_channel.hpp"
#include "simulator/platform/platform_builder.hpp"
#include "simulator/platform/storage_system.hpp"
#include "simulator/run/child_process.hpp"
#include "simulator/run/engine_setup.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace fleetsim::testing {
namespace {

namespace sg4 = simgrid::s4u;

struct Transfer {
  int client = 0;
  bool write = true;
  double bytes = 0;
  double files = 1;
  double start = 0;
};

// Runs the transfers on a platform with `nodes[i]` nodes for client i, in a child process; returns
// each transfer's completion time. With `records`, each client's own record
// (StorageSystem::record_client, from 0) goes there: per client, its rows' t, write, read and servers
// rates.
std::vector<double> finish_times(const scenario::StorageSpec& spec, const std::vector<long>& nodes,
                                 const std::vector<Transfer>& transfers,
                                 std::vector<std::vector<std::vector<double>>>* records = nullptr)
{
  auto child = sim::ChildProcess::start([&] {
    auto engine = sim::make_engine();
    scenario::Scenario s;
    s.storage = spec;
    std::vector<sim::StorageClient> clients;
    for (size_t i = 0; i < nodes.size(); ++i)
      clients.push_back({"job" + std::to_string(i), nodes[i]});
    const sim::Platform platform = sim::build_platform(s, clients);
    std::vector<std::vector<sim::StorageSample>> own(nodes.size());
    for (size_t i = 0; records != nullptr && i < nodes.size(); ++i)
      platform.storage->record_client(static_cast<int>(i), &own[i]);
    std::deque<sim::StorageQueue> queues(transfers.size());
    std::deque<sim::Inbox<sim::msg::IoDone>> replies(transfers.size());
    std::vector<double> done(transfers.size(), -1);
    if (spec.burst_bandwidth.si() > 0)
      sg4::Actor::create("bucket", platform.control, sim::StorageBucket(*platform.storage))->daemonize();
    sim::ProcessHost host;  // the channels are processes (simulator/actors/process.hpp)
    for (size_t i = 0; i < transfers.size(); ++i) {
      const Transfer t = transfers[i];
      host.spawn("channel" + std::to_string(i), sim::StorageChannel(*platform.storage, t.client, queues[i]));
      sg4::Actor::create("requester" + std::to_string(i), platform.control, [&, i, t] {
        sg4::this_actor::sleep_until(t.start);
        auto& reply = replies[i];
        queues[i].requests.post(
            {static_cast<long>(i + 1), t.write, t.bytes, t.files, [&reply](sim::msg::IoDone d) { reply.post(d); }});
        reply.wait(-1);  // the run lasts until every transfer is done
        done[i] = sim::now();
      });
    }
    sg4::Actor::create("processes", platform.control, [&host] { host.run(); })->daemonize();
    engine->run();
    std::ostringstream out;
    out.precision(17);
    for (double d : done)
      out << d << ' ';
    for (size_t i = 0; records != nullptr && i < nodes.size(); ++i) {
      platform.storage->stop_recording(static_cast<int>(i));
      out << "| " << own[i].size() << ' ';
      for (const sim::StorageSample& x : own[i])
        out << x.t << ' ' << x.write_bps << ' ' << x.read_bps << ' ' << x.servers_bps << ' ';
    }
    return out.str();
  });
  std::vector<double> times;
  if (!child)
    return times;
  int status = 0;
  const auto text = child->finish(&status);
  if (!text)
    return times;
  std::istringstream in(*text);
  for (double d = 0; in >> d;)
    times.push_back(d);
  in.clear();
  for (std::string bar; records != nullptr && in >> bar;) {
    size_t rows = 0;
    in >> rows;
    auto& client = records->emplace_back();
    for (size_t r = 0; r < rows; ++r) {
      std::vector<double> row(4);
      for (double& v : row)
        in >> v;
      client.push_back(row);
    }
  }
  return times;
}

scenario::StorageSpec storage(double write, double read, double client = 0)
{
  scenario::StorageSpec s;
  s.write_bandwidth = units::BytesPerSecond(write);
  s.read_bandwidth = units::BytesPerSecond(read);
  s.client_bandwidth = units::BytesPerSecond(client);
  return s;
}

constexpr double kS = 100e9;  // each job's checkpoint

TEST(StorageSystem, KJobsWritingAtOnceIntoBoundStorageEachTakeKTimesSOverB)
{
  const double b = 50e9;  // servers' write bandwidth; clients' NICs are far faster
  for (int k : {1, 2, 4, 8}) {
    std::vector<long> nodes(static_cast<size_t>(k), 64);
    std::vector<Transfer> t;
    for (int i = 0; i < k; ++i)
      t.push_back({i, true, kS});
    const auto done = finish_times(storage(b, b, 25e9), nodes, t);
    ASSERT_EQ(done.size(), static_cast<size_t>(k));
    for (double d : done)
      EXPECT_NEAR(d, k * kS / b, 1e-6 * k * kS / b) << k << " jobs";
  }
}

TEST(StorageSystem, WhenTheClientsBindEachJobTakesSOverItsClientLimit)
{
  // 4 jobs of 2 nodes at 5 GB/s each (10 GB/s per job) into 1 TB/s servers: each job's NICs bind.
  std::vector<long> nodes{2, 2, 2, 2};
  std::vector<Transfer> t;
  for (int i = 0; i < 4; ++i)
    t.push_back({i, true, kS});
  const auto done = finish_times(storage(1e12, 1e12, 5e9), nodes, t);
  ASSERT_EQ(done.size(), 4U);
  for (double d : done)
    EXPECT_NEAR(d, kS / 10e9, 1e-6 * kS / 10e9);
  // A job with more nodes has more NICs: twice the nodes, half the time.
  const auto wide = finish_times(storage(1e12, 1e12, 5e9), {4}, {{0, true, kS}});
  ASSERT_EQ(wide.size(), 1U);
  EXPECT_NEAR(wide[0], kS / 20e9, 1e-6);
}

TEST(StorageSystem, AWriterThatStartsLateSharesOnlyWhileBothRun)
{
  // 100 GB at 50 GB/s alone takes 2 s; a second writer at t = 1 s halves the rate of both.
  const auto done = finish_times(storage(50e9, 50e9), {8, 8}, {{0, true, kS, 1, 0}, {1, true, kS, 1, 1}});
  ASSERT_EQ(done.size(), 2U);
  EXPECT_NEAR(done[0], 1 + 50e9 / 25e9, 1e-6);        // 50 GB left at 25 GB/s
  EXPECT_NEAR(done[1], done[0] + 50e9 / 50e9, 1e-6);  // then alone
}

// Each client's own record: its rates while it moves data (a row at each change, the others' too),
// one row for each stretch it moves none, whose servers rate is the servers' mean over it.
TEST(StorageSystem, EachClientsRecordIsItsOwnLoad)
{
  // 10 GB servers-bound at 1 GB/s: client 0 writes 10 GB at 0, client 1 10 GB at 5, client 2 1 GB at 30.
  // Client 0 alone until 5, then both at 0.5 GB/s until client 0 ends at 15, client 1 alone until 20.
  std::vector<std::vector<std::vector<double>>> records;
  const auto done = finish_times(storage(1e9, 1e9), {8, 8, 8},
                                 {{0, true, 10e9, 1, 0}, {1, true, 10e9, 1, 5}, {2, true, 1e9, 1, 30}}, &records);
  ASSERT_EQ(done.size(), 3U);
  EXPECT_NEAR(done[0], 15, 1e-6);
  EXPECT_NEAR(done[1], 20, 1e-6);
  EXPECT_NEAR(done[2], 31, 1e-6);
  ASSERT_EQ(records.size(), 3U);
  using Rows = std::vector<std::vector<double>>;
  const auto expect_rows = [](const Rows& got, const Rows& want, int client) {
    ASSERT_EQ(got.size(), want.size()) << "client " << client;
    for (size_t r = 0; r < want.size(); ++r)
      for (size_t k = 0; k < 4; ++k)
        EXPECT_NEAR(got[r][k], want[r][k], 1e-6 * std::max(1.0, want[r][k])) << "client " << client << " row " << r;
  };
  // t, write, read, servers: client 0 from its write (its first row, of no length, at 0).
  expect_rows(records[0], {{0, 0, 0, 0}, {0, 1e9, 0, 1e9}, {5, 0.5e9, 0, 1e9}}, 0);
  // Client 1 idle until 5 (the servers busy with client 0), then its share, then alone.
  expect_rows(records[1], {{0, 0, 0, 1e9}, {5, 0.5e9, 0, 1e9}, {15, 1e9, 0, 1e9}}, 1);
  // Client 2 idle for 30 s, the servers' mean over them 20 GB / 30 s; then its write, alone.
  expect_rows(records[2], {{0, 0, 0, 20e9 / 30}, {30, 1e9, 0, 1e9}}, 2);
}

// A client idle since its last write that starts one at the instant another client started one
// still gets its idle row (it lost it, and its last write's rate seemed to last until then).
TEST(StorageSystem, AClientStartingJustAfterAnotherKeepsItsIdleRow)
{
  // 1 GB/s servers. Client 0: 10 GB at 0 (until 10), 1 GB at 12; client 1: 1 GB at 12, first.
  std::vector<std::vector<std::vector<double>>> records;
  const auto done = finish_times(storage(1e9, 1e9), {8, 8},
                                 {{0, true, 10e9, 1, 0}, {1, true, 1e9, 1, 12}, {0, true, 1e9, 1, 12}}, &records);
  ASSERT_EQ(done.size(), 3U);
  EXPECT_NEAR(done[2], 14, 1e-6);
  ASSERT_EQ(records.size(), 2U);
  const std::vector<std::vector<double>> want0{{0, 0, 0, 0}, {0, 1e9, 0, 1e9}, {10, 0, 0, 0}, {12, 0.5e9, 0, 1e9}};
  const std::vector<std::vector<double>> want1{{0, 0, 0, 10e9 / 12}, {12, 0.5e9, 0, 1e9}};
  for (size_t c = 0; c < 2; ++c) {
    const auto& want = c == 0 ? want0 : want1;
    ASSERT_EQ(records[c].size(), want.size()) << "client " << c;
    for (size_t r = 0; r < want.size(); ++r)
      for (size_t k = 0; k < 4; ++k)
        EXPECT_NEAR(records[c][r][k], want[r][k], 1e-6 * std::max(1.0, want[r][k])) << c << " row " << r;
  }
}

TEST(StorageSystem, ReadsAndWritesShareTheServersTotal)
{
  // Separate 50 GB/s write and read caps under a 60 GB/s total: a read and a write at once get 30 each.
  scenario::StorageSpec s = storage(50e9, 50e9);
  s.bandwidth = units::BytesPerSecond(60e9);
  const auto both = finish_times(s, {8}, {{0, true, 60e9}, {0, false, 60e9}});
  ASSERT_EQ(both.size(), 2U);
  EXPECT_NEAR(both[0], 2.0, 1e-6);
  EXPECT_NEAR(both[1], 2.0, 1e-6);
  // A total at the sum of the caps: the directions no longer contend.
  s.bandwidth = units::BytesPerSecond(100e9);
  const auto apart = finish_times(s, {8}, {{0, true, 50e9}, {0, false, 50e9}});
  ASSERT_EQ(apart.size(), 2U);
  EXPECT_NEAR(apart[0], 1.0, 1e-6);
  EXPECT_NEAR(apart[1], 1.0, 1e-6);
  // Without one, the total is the larger cap: reads and writes contend above it.
  const auto shared = finish_times(storage(50e9, 50e9), {8}, {{0, true, 50e9}, {0, false, 50e9}});
  ASSERT_EQ(shared.size(), 2U);
  EXPECT_NEAR(shared[0], 2.0, 1e-6);
}

// A watch calls its function at each start and end of a transfer until it is destroyed: a job's
// data loader that ends with its job stops being told (it was told forever, into a freed inbox).
TEST(StorageSystem, AWatchIsToldOfTransfersUntilItIsDestroyed)
{
  const std::string text = in_child([] {
    auto engine = sim::make_engine();
    scenario::Scenario s;
    s.storage = storage(1e9, 1e9);
    const sim::Platform platform = sim::build_platform(s, {{"job", 8}});
    int kept = 0;
    int dropped = 0;
    const sim::StorageSystem::Watch keep = platform.storage->observe([&kept] { ++kept; });
    auto drop = std::make_unique<sim::StorageSystem::Watch>(platform.storage->observe([&dropped] { ++dropped; }));
    sg4::Actor::create("writer", platform.control, [&] {
      platform.storage->wait(platform.storage->start_transfer(0, true, 1e9));  // told twice each
      drop.reset();
      platform.storage->wait(platform.storage->start_transfer(0, true, 1e9));  // only `keep` told
    });
    engine->run();
    return std::to_string(kept) + " " + std::to_string(dropped);
  });
  EXPECT_EQ(text, "4 2");
}

TEST(StorageSystem, FileOpensShareTheMetadataService)
{
  // 10,000 files at 20,000 operations/s: 0.5 s alone, 1 s each for two jobs at once, before the data.
  scenario::StorageSpec s = storage(1e12, 1e12);
  s.metadata_rate = 20000;
  const auto alone = finish_times(s, {8}, {{0, true, 1e9, 10000}});
  ASSERT_EQ(alone.size(), 1U);
  EXPECT_NEAR(alone[0], 0.5 + 1e9 / 1e12, 1e-6);
  const auto two = finish_times(s, {8, 8}, {{0, true, 1e9, 10000}, {1, true, 1e9, 10000}});
  ASSERT_EQ(two.size(), 2U);
  for (double d : two)
    EXPECT_NEAR(d, 1.0 + 2e9 / 1e12, 1e-6);
}

TEST(StorageSystem, ATokenBucketRunsAtTheBurstRateUntilTheCreditIsSpent)
{
  // 2 TB/s sustained, 7 TB/s burst, 5 TB of credit (spent at 5 TB/s of excess: 1 s of burst).
  // 10 TB: 7 TB in the first second, the other 3 TB at 2 TB/s: 2.5 s.
  scenario::StorageSpec s = storage(10e12, 10e12);
  s.bandwidth = units::BytesPerSecond(2e12);
  s.burst_bandwidth = units::BytesPerSecond(7e12);
  s.burst_bytes = units::Bytes(5e12);
  const auto big = finish_times(s, {2048}, {{0, true, 10e12}});
  ASSERT_EQ(big.size(), 1U);
  EXPECT_NEAR(big[0], 2.5, 1e-6);
  // A burst that fits in the credit runs at the burst rate throughout.
  const auto small = finish_times(s, {2048}, {{0, true, 3.5e12}});
  ASSERT_EQ(small.size(), 1U);
  EXPECT_NEAR(small[0], 0.5, 1e-6);
  // Spent, the credit refills at 2 TB/s while the servers idle: 2.5 s later the next burst is whole.
  const auto again = finish_times(s, {2048}, {{0, true, 10e12}, {0, true, 3.5e12, 1, 5.0}});
  ASSERT_EQ(again.size(), 2U);
  EXPECT_NEAR(again[1], 5.5, 1e-6);
}

}  // namespace
}  // namespace fleetsim::testing
