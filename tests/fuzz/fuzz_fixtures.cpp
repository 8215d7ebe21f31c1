#include "fuzz_fixtures.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <utility>
#include <vector>

namespace fleetsim::fuzz {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& what)
{
  std::fprintf(stderr, "fuzz fixtures: %s\n", what.c_str());
  std::abort();
}

void write(const fs::path& path, const std::string& text)
{
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  if (!(out << text))
    fail("cannot write " + path.string());
}

// The first `max_lines` lines of a file of the source tree (all of it when max_lines is 0).
std::string source_file(const std::string& relative, int max_lines = 0)
{
  const fs::path path = fs::path(FLEETSIM_FUZZ_SOURCE_DIR) / relative;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail("cannot read " + path.string() + " (the fixtures copy it from the source tree)");
  std::string out;
  int lines = 0;
  for (std::string line; (max_lines == 0 || lines < max_lines) && std::getline(in, line); ++lines)
    out += line + "\n";
  return out;
}

// Files written here: small enough to read on every input, each showing one form or one error.
const std::vector<std::pair<const char*, const char*>> kWritten = {
    {"traces/helios.csv",
     "job_id,user,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration\n"
     "1,u1,8,48,1,COMPLETED,2020-04-01 00:00:07,2020-04-01 00:00:10,2020-04-01 01:00:10,3600\n"
     "2,u2,0,4,1,COMPLETED,2020-04-01 00:01:00,2020-04-01 00:01:01,2020-04-01 00:02:01,60\n"
     "3,u1,16,96,2,FAILED,2020-04-01 00:02:00,2020-04-01 00:03:00,2020-04-01 00:13:00,600\n"},
    {"traces/philly.csv",
     "user,vc,jobname,gpu_num,state,submit_time,start_time,end_time,duration\n"
     "6214e9,ee9e8c,j1,8,Pass,2017-10-07 01:11:39,2017-10-07 01:13:30,2017-10-07 06:53:12,20382\n"
     "6214e9,ee9e8c,j2,1,Killed,2017-10-07 01:12:00,2017-10-07 01:12:30,2017-10-07 01:13:00,30\n"},
    {"traces/mapped.csv",
     "jid,owner,queued,began,ended,n_nodes,status,prio\n"
     "a,x,0,1,61,1,done,2\n"
     "b,y,5,6,66,2,failed,0\n"
     "c,x,7,8,9,0,done,1\n"},
    {"traces/bad_row.csv",
     "job_id,user,node_num,gpu_num,state,submit_time,start_time,end_time,duration\n"
     "j1,u,1,8,COMPLETED,0,0,100,100\n"
     "j2,u,1,-8,COMPLETED,yesterday,0,100,-1\n"},
    {"carbon/flat.csv", "# one value, repeated\nhour,gco2_per_kwh\n0,400\n"},
    {"carbon/bad.csv", "hour,gco2_per_kwh\n0,100\n2,-5\n"},
    {"fixtures/nested.yaml",
     "include: ../hardware/a100_sxm_80gb_selene.yaml\ncluster: {gpus: 64}\nparallelism: {tp: 8, pp: 1, dp: 8}\n"},
    {"fixtures/cycle_a.yaml", "include: cycle_b.yaml\nname: a\n"},
    {"fixtures/cycle_b.yaml", "include: cycle_a.yaml\nname: b\n"},
    {"fixtures/bad_value.yaml", "cluster:\n  gpus: -3\naccelerator:\n  power: 700\n"},
    {"fixtures/not_a_map.yaml", "- a\n- b\n"},
    {"fixtures/fleet_jobs.yaml",
     "cluster: {gpus: 64, gpus_per_node: 8, gpus_per_rack: 16}\n"
     "workload:\n  jobs:\n    big: {gpus: 32, work: 2h, count: 2, every: 1h}\n    small: {gpus: 8, work: 30min}\n"},
    {"fixtures/dir/.keep", ""},
};

const std::vector<std::pair<const char*, const char*>> kCopied = {
    {"hardware/a100_sxm_80gb.yaml", "scenarios/hardware/a100_sxm_80gb.yaml"},
    {"hardware/a100_sxm_80gb_selene.yaml", "scenarios/hardware/a100_sxm_80gb_selene.yaml"},
    {"hardware/a100_sxm_80gb_jean_zay.yaml", "scenarios/hardware/a100_sxm_80gb_jean_zay.yaml"},
    {"hardware/h100_sxm_80gb.yaml", "scenarios/hardware/h100_sxm_80gb.yaml"},
    {"hardware/h100_sxm_80gb_grand_teton.yaml", "scenarios/hardware/h100_sxm_80gb_grand_teton.yaml"},
    {"carbon/solar_heavy_grid.csv", "scenarios/carbon/solar_heavy_grid.csv"},
    {"carbon/fossil_heavy_grid.csv", "scenarios/carbon/fossil_heavy_grid.csv"},
    {"fleet_kalos_sizing.yaml", "scenarios/fleet_kalos_sizing.yaml"},
    {"young_daly_single_cause.yaml", "scenarios/young_daly_single_cause.yaml"},
    {"no_failures.yaml", "scenarios/no_failures.yaml"},
    {"oversubscribed_pods.yaml", "scenarios/oversubscribed_pods.yaml"},
};

std::string lay_out()
{
  std::string dir = (fs::temp_directory_path() / "fleetsim_fuzz_XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr)
    fail("cannot create a temp directory");
  const fs::path root(dir);
  for (const auto& [to, from] : kCopied)
    write(root / to, source_file(from));
  write(root / "traces/kalos_sample.csv", source_file("scenarios/traces/kalos_sample.csv", 17));
  for (const auto& [to, text] : kWritten)
    write(root / to, text);
  return dir;
}

std::string g_dir;

}  // namespace

const std::string& scenario_dir()
{
  if (g_dir.empty()) {
    g_dir = lay_out();
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(g_dir, ec);
    });
  }
  return g_dir;
}

}  // namespace fleetsim::fuzz
