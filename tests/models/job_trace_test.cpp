#include "models/fleet/job_trace.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fleetsim::models::fleet {
namespace {

// The columns of AcmeTrace's trace_seren.csv, in its order; the first two rows are the README's
// example rows. Line 4 is a CPU job (gpu_num 0) submitted before every GPU job; line 5 uses the
// 'T' and 'Z' form: 2023-02-28T16:30:00Z is 2023-03-01 00:30:00+08:00.
const char* const kAcme =
    "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time\n"
    "5778432,u5907,1,8,128,Other,FAILED,2023-03-01 00:18:22+08:00,2023-03-01 00:18:54+08:00,"
    "2023-03-01 00:20:51+08:00,117,32,936.0\n"
    "5778469,u5907,1,8,128,Other,COMPLETED,2023-03-01 00:23:58+08:00,2023-03-01 00:24:11+08:00,"
    "2023-03-01 01:09:04+08:00,2693,13,21544.0\n"
    "5778001,u0042,1,0,16,Other,COMPLETED,2023-02-28 23:00:00+08:00,2023-02-28 23:00:01+08:00,"
    "2023-02-28 23:01:01+08:00,60,1,0.0\n"
    "dlc1t2ypl09b8qtp,uf794,8,64,960,Pretrain,COMPLETED,2023-02-28T16:30:00Z,2023-02-28T16:30:12Z,"
    "2023-02-28T16:31:34Z,82,12.0,5248.0\n";

TraceOptions acme()
{
  TraceOptions o;
  o.preset = "acme";
  return o;
}

std::string all_errors(const TraceLoad& load)
{
  std::string out;
  for (const auto& e : load.errors)
    out += e + "\n";
  return out;
}

TEST(JobTrace, LoadsAcmeRowsRelativeToTheFirstGpuSubmitAndSkipsCpuJobs)
{
  auto options = acme();
  options.defaults.checkpoint_interval = 1800;
  options.defaults.restart_cost = 120;
  const TraceLoad load = load_trace_text(kAcme, "acme.csv", options);
  ASSERT_TRUE(load.ok()) << all_errors(load);
  ASSERT_EQ(load.jobs.size(), 3u);
  EXPECT_EQ(load.skipped_no_gpu, 1);
  EXPECT_EQ(load.skipped_state, 0);

  const auto& first = load.jobs[0];
  EXPECT_EQ(first.id, "5778432");
  EXPECT_EQ(first.user, "u5907");
  EXPECT_EQ(first.origin, "acme.csv:2");
  EXPECT_DOUBLE_EQ(first.submit, 0.0);  // the CPU job, earlier still, does not count
  EXPECT_EQ(first.gpus, 8);
  EXPECT_DOUBLE_EQ(first.work, 117.0);
  EXPECT_DOUBLE_EQ(first.checkpoint_interval, 1800.0);  // from the defaults
  EXPECT_DOUBLE_EQ(first.restart_cost, 120.0);

  EXPECT_EQ(load.jobs[1].id, "5778469");
  EXPECT_DOUBLE_EQ(load.jobs[1].submit, 336.0);  // 00:23:58 - 00:18:22
  EXPECT_DOUBLE_EQ(load.jobs[1].work, 2693.0);
  EXPECT_EQ(load.jobs[2].id, "dlc1t2ypl09b8qtp");
  EXPECT_DOUBLE_EQ(load.jobs[2].submit, 698.0);  // 00:30:00+08:00 - 00:18:22+08:00
  EXPECT_EQ(load.jobs[2].gpus, 64);
  EXPECT_EQ(load.jobs[2].origin, "acme.csv:5");
}

TEST(JobTrace, KeepsOnlyTheListedStatesIgnoringCase)
{
  auto options = acme();
  options.keep_states = {"completed", "TIMEOUT"};
  const TraceLoad load = load_trace_text(kAcme, "acme.csv", options);
  ASSERT_TRUE(load.ok()) << all_errors(load);
  ASSERT_EQ(load.jobs.size(), 2u);
  EXPECT_EQ(load.skipped_state, 1);  // the FAILED job
  EXPECT_EQ(load.skipped_no_gpu, 1);
  EXPECT_EQ(load.jobs[0].id, "5778469");
  EXPECT_DOUBLE_EQ(load.jobs[0].submit, 0.0);  // now the first job kept
  EXPECT_DOUBLE_EQ(load.jobs[1].submit, 362.0);
}

TEST(JobTrace, ReadsRenamedColumnsWithNumericTimesInMinutesAndSortsStably)
{
  TraceOptions options;
  options.columns = {{"id", "name"},        {"user", "who"},  {"submit", "t_submit"},
                     {"duration", "t_run"}, {"gpus", "ngpu"}, {"priority", "prio"}};
  options.time_unit = units::Seconds(60);
  const char* text =
      "name,ignored,t_submit,ngpu,t_run,who,prio\n"
      "a,x,10,4,30,alice,2\n"
      "b,x,5,1,0.5,bob,\n"
      "c,x,10,2,1,carol,-1\n";
  const TraceLoad load = load_trace_text(text, "mine.csv", options);
  ASSERT_TRUE(load.ok()) << all_errors(load);
  ASSERT_EQ(load.jobs.size(), 3u);
  EXPECT_EQ(load.jobs[0].id, "b");
  EXPECT_DOUBLE_EQ(load.jobs[0].submit, 0.0);
  EXPECT_DOUBLE_EQ(load.jobs[0].work, 30.0);  // 0.5 min
  EXPECT_EQ(load.jobs[0].priority, 0);        // empty cell: the default
  EXPECT_EQ(load.jobs[1].id, "a");            // a and c share a submit: file order kept
  EXPECT_EQ(load.jobs[2].id, "c");
  EXPECT_DOUBLE_EQ(load.jobs[1].submit, 300.0);
  EXPECT_DOUBLE_EQ(load.jobs[1].work, 1800.0);
  EXPECT_EQ(load.jobs[1].gpus, 4);
  EXPECT_EQ(load.jobs[1].user, "alice");
  EXPECT_EQ(load.jobs[1].priority, 2);
  EXPECT_EQ(load.jobs[2].priority, -1);
}

TEST(JobTrace, TakesWorkFromEndMinusStartWhenNoDurationIsMapped)
{
  TraceOptions options;
  options.columns = {{"submit", "s"}, {"start", "b"}, {"end", "e"}, {"nodes", "n"}};
  options.gpus_per_node = 8;
  const char* text = "s,b,e,n\n2023-05-01T08:00:00,2023-05-01T08:10:00,2023-05-01T09:10:00.5,2\n";
  const TraceLoad load = load_trace_text(text, "t.csv", options);
  ASSERT_TRUE(load.ok()) << all_errors(load);
  ASSERT_EQ(load.jobs.size(), 1u);
  EXPECT_DOUBLE_EQ(load.jobs[0].work, 3600.5);
  EXPECT_EQ(load.jobs[0].gpus, 16);  // 2 nodes x 8
  EXPECT_EQ(load.jobs[0].id, "line-2");
}

TEST(JobTrace, LetsAUserMappingOverrideOrUnmapOnePresetField)
{
  auto options = acme();
  options.columns = {{"gpus", "gpus_total"}, {"start", ""}, {"end", ""}};
  const char* text =
      "job_id,user,node_num,gpu_num,gpus_total,state,submit_time,start_time,end_time,duration\n"
      "j1,u,1,0,4,COMPLETED,100,,,50\n";
  const TraceLoad load = load_trace_text(text, "t.csv", options);
  ASSERT_TRUE(load.ok()) << all_errors(load);
  ASSERT_EQ(load.jobs.size(), 1u);
  EXPECT_EQ(load.jobs[0].gpus, 4);  // gpus_total, not gpu_num (0 would have skipped it)
}

TEST(JobTrace, ReadsThePhillyExportWithLineIdsAndItsStates)
{
  TraceOptions options;
  options.preset = "philly";
  options.keep_states = {"Pass"};
  const char* text =
      "user,vc,jobname,gpu_num,state,submit_time,start_time,end_time,duration\n"
      "6214e9,ee9e8c,j1,8,Pass,2017-10-07 01:11:39,2017-10-07 01:13:30,2017-10-09 06:53:12,192582\n"
      "6214e9,ee9e8c,j2,1,Killed,2017-10-07 01:12:00,2017-10-07 01:12:30,2017-10-07 01:13:00,30\n";
  const TraceLoad load = load_trace_text(text, "philly.csv", options);
  ASSERT_TRUE(load.ok()) << all_errors(load);
  ASSERT_EQ(load.jobs.size(), 1u);
  EXPECT_EQ(load.jobs[0].id, "line-2");
  EXPECT_EQ(load.jobs[0].gpus, 8);
  EXPECT_DOUBLE_EQ(load.jobs[0].work, 192582.0);
  EXPECT_EQ(load.skipped_state, 1);
}

TEST(JobTrace, ReadsQuotedCellsAndCountsPhysicalLinesAcrossThem)
{
  auto options = acme();
  const char* text =
      "job_id,user,node_num,gpu_num,state,submit_time,start_time,end_time,duration\r\n"
      "\r\n"
      "\"job,1\",\"u\"\"x\",1,8,COMPLETED,0,,,10\r\n"
      "j2,\"two\nlines\",1,8,COMPLETED,5,,,10\r\n"
      "   \r\n"
      "j3,u,1,-8,COMPLETED,7,,,10\r\n";
  const TraceLoad load = load_trace_text(text, "q.csv", options);
  ASSERT_EQ(load.errors.size(), 1u) << all_errors(load);
  EXPECT_EQ(load.errors[0], "q.csv:7: error: negative GPU count '-8' in column 'gpu_num'");
  EXPECT_TRUE(load.jobs.empty());

  const std::string good = std::string(text).substr(0, std::string(text).find("j3"));
  const TraceLoad ok = load_trace_text(good, "q.csv", options);
  ASSERT_TRUE(ok.ok()) << all_errors(ok);
  ASSERT_EQ(ok.jobs.size(), 2u);
  EXPECT_EQ(ok.jobs[0].id, "job,1");
  EXPECT_EQ(ok.jobs[0].user, "u\"x");
  EXPECT_EQ(ok.jobs[0].origin, "q.csv:3");
  EXPECT_EQ(ok.jobs[1].user, "two\nlines");
  EXPECT_EQ(ok.jobs[1].origin, "q.csv:4");
}

// ---- bad input ----------------------------------------------------------------------------------

std::string one_error(const std::string& text, const TraceOptions& options = acme())
{
  const TraceLoad load = load_trace_text(text, "bad.csv", options);
  EXPECT_TRUE(load.jobs.empty()) << "a trace with an error returns no job";
  EXPECT_EQ(load.errors.size(), 1u) << all_errors(load);
  return load.errors.empty() ? std::string() : load.errors[0];
}

const std::string kHeader = "job_id,user,node_num,gpu_num,state,submit_time,start_time,end_time,duration\n";
const std::string kGoodRow = "ok,u,1,8,COMPLETED,2023-05-01T08:00:00,,,10\n";

TEST(JobTrace, NamesTheMissingColumnItsFieldAndTheHeaderColumns)
{
  const std::string e = one_error("job_id,user,node_num,state,submit_time,start_time,end_time,duration\n" + kGoodRow);
  EXPECT_EQ(e.rfind("bad.csv:1: error: column 'gpu_num' (field 'gpus') is not in the header", 0), 0u) << e;
  EXPECT_NE(e.find("job_id, user, node_num, state, submit_time"), std::string::npos) << e;
}

TEST(JobTrace, RejectsABadTimeQuotingTheCellAndColumn)
{
  const std::string e = one_error(kHeader + kGoodRow + "j2,u,1,8,COMPLETED,2023-02-30 08:00:00,,,10\n");
  EXPECT_EQ(e.rfind("bad.csv:3: error: bad time '2023-02-30 08:00:00' in column 'submit_time'", 0), 0u) << e;
}

TEST(JobTrace, RejectsNegativeGpusButSkipsZero)
{
  EXPECT_EQ(one_error(kHeader + "j1,u,1,-8,COMPLETED,0,,,10\n"),
            "bad.csv:2: error: negative GPU count '-8' in column 'gpu_num'");
  const TraceLoad load = load_trace_text(kHeader + kGoodRow + "cpu,u,1,0,COMPLETED,0,,,10\n", "t.csv", acme());
  EXPECT_TRUE(load.ok()) << all_errors(load);
  EXPECT_EQ(load.skipped_no_gpu, 1);
}

TEST(JobTrace, RejectsEndBeforeStart)
{
  const std::string e = one_error(kHeader +
                                  "j1,u,1,8,FAILED,2023-05-01T08:00:00,2023-05-01T09:00:00,2023-05-01T08:59:59,10\n");
  EXPECT_EQ(e,
            "bad.csv:2: error: end is before start: '2023-05-01T08:59:59' in column 'end_time', "
            "'2023-05-01T09:00:00' in column 'start_time'");
}

TEST(JobTrace, RejectsADuplicateIdNamingTheFirstLine)
{
  EXPECT_EQ(one_error(kHeader + kGoodRow + "j2,u,1,8,COMPLETED,0,,,10\n" + kGoodRow),
            "bad.csv:4: error: duplicate job id 'ok' in column 'job_id' (first on line 2)");
}

TEST(JobTrace, RejectsNegativeAndNonFiniteDurations)
{
  EXPECT_EQ(one_error(kHeader + "j1,u,1,8,COMPLETED,0,,,-1\n"),
            "bad.csv:2: error: duration must be finite and >= 0: '-1' in column 'duration'");
  EXPECT_EQ(one_error(kHeader + "j1,u,1,8,COMPLETED,0,,,inf\n"),
            "bad.csv:2: error: duration must be finite and >= 0: 'inf' in column 'duration'");
  EXPECT_EQ(one_error(kHeader + "j1,u,1,8,COMPLETED,0,,,ten\n"),
            "bad.csv:2: error: bad duration 'ten' in column 'duration' (expected a number)");
}

TEST(JobTrace, RejectsAFractionalGpuCountAndAnEmptySubmit)
{
  EXPECT_EQ(one_error(kHeader + "j1,u,1,7.5,COMPLETED,0,,,1\n"),
            "bad.csv:2: error: not a whole number: '7.5' in column 'gpu_num'");
  EXPECT_EQ(one_error(kHeader + "j1,u,1,8,COMPLETED,,,,1\n"), "bad.csv:2: error: empty cell in column 'submit_time'");
}

TEST(JobTrace, RejectsAnEmptyFileAndAShortRowAndAnUnterminatedQuote)
{
  EXPECT_EQ(one_error(""), "bad.csv:1: error: the file is empty: no header row");
  EXPECT_EQ(one_error("\n\n"), "bad.csv:1: error: the file is empty: no header row");
  EXPECT_EQ(one_error(kHeader + "j1,u,1,8\n"), "bad.csv:2: error: the row has 4 cells but column 'state' is cell 5");
  EXPECT_EQ(one_error(kHeader + kGoodRow + "\"j2,u,1,8,COMPLETED,0,,,1\n"),
            "bad.csv:3: error: unterminated quoted cell");
}

TEST(JobTrace, RejectsAnUnknownPresetFieldAndAnIncompleteMapping)
{
  TraceOptions options;
  options.preset = "slurm";
  EXPECT_EQ(one_error(kHeader, options).rfind("bad.csv: error: unknown trace preset 'slurm'", 0), 0u);
  options.preset = "acme";
  options.columns = {{"gpu", "gpu_num"}};
  EXPECT_EQ(one_error(kHeader, options).rfind("bad.csv: error: unknown trace field 'gpu'", 0), 0u);
  TraceOptions nodes_only;
  nodes_only.columns = {{"submit", "submit_time"}, {"nodes", "node_num"}, {"duration", "duration"}};
  EXPECT_EQ(one_error(kHeader, nodes_only), "bad.csv: error: field 'nodes' without 'gpus' needs gpus_per_node > 0");
}

TEST(JobTrace, CapsTheErrorListAtTwentyAndCountsTheRest)
{
  std::string text = kHeader;
  for (int i = 0; i < 30; ++i) {  // (appended piecewise: GCC 12's -Wrestrict false positive on "j" + s + "...")
    text += 'j';
    text += std::to_string(i);
    text += ",u,1,-1,COMPLETED,0,,,1\n";
  }
  const TraceLoad load = load_trace_text(text, "many.csv", acme());
  ASSERT_EQ(load.errors.size(), 21u);
  EXPECT_EQ(load.errors[19].rfind("many.csv:21: error:", 0), 0u);
  EXPECT_EQ(load.errors[20], "many.csv: error: 10 more errors");
  EXPECT_TRUE(load.jobs.empty());
}

TEST(JobTrace, ReportsAFileThatCannotBeOpened)
{
  auto options = acme();
  options.path = "no/such/dir/trace.csv";
  const TraceLoad load = load_trace(options);
  ASSERT_EQ(load.errors.size(), 1u);
  EXPECT_EQ(load.errors[0], "no/such/dir/trace.csv: error: cannot open the file");
}

TEST(JobTrace, ExposesThePresetsMappings)
{
  EXPECT_EQ(trace_preset_names(), (std::vector<std::string>{"acme", "helios", "philly"}));
  const auto acme_columns = trace_preset("acme");
  ASSERT_TRUE(acme_columns);
  EXPECT_EQ(acme_columns->at("gpus"), "gpu_num");
  EXPECT_EQ(acme_columns->at("nodes"), "node_num");
  EXPECT_EQ(acme_columns->count("priority"), 0u);
  EXPECT_EQ(trace_preset("philly")->count("id"), 0u);
  EXPECT_FALSE(trace_preset("pai"));
}

// Fuzzing (docs/hardening.md, finding 8): a finite number times time_unit, or two finite submits far
// apart, made a job's submit infinite or NaN (1e308 minutes; -1.7e308 and 1.7e308 seconds).
// Reproducers: tests/fuzz/corpus/fuzz_job_trace/repro_time_unit_overflow.csv, ..._submit_span_overflow.csv.
TEST(JobTrace, RejectsTimesBeyond1e15SecondsInsteadOfOverflowing)
{
  auto minutes = acme();
  minutes.time_unit = units::Seconds(60);
  EXPECT_EQ(one_error(kHeader + "j1,u,1,8,COMPLETED,1e308,,,1\n", minutes),
            "bad.csv:2: error: time out of range: '1e308' in column 'submit_time' is inf s; a trace's times and "
            "durations lie within +-1e15 s");
  EXPECT_EQ(one_error(kHeader + "j1,u,1,8,COMPLETED,0,,,1\nj2,u,1,8,COMPLETED,-1.7e308,,,1\n"),
            "bad.csv:3: error: time out of range: '-1.7e308' in column 'submit_time' is -1.7e+308 s; a trace's "
            "times and durations lie within +-1e15 s");
  EXPECT_EQ(one_error(kHeader + "j1,u,1,8,COMPLETED,0,0,1,2e15\n"),
            "bad.csv:2: error: time out of range: '2e15' in column 'duration' is 2e+15 s; a trace's times and "
            "durations lie within +-1e15 s");
  EXPECT_EQ(one_error(kHeader + "j1,u,1,8,COMPLETED,0,-1e300,0,1\n"),
            "bad.csv:2: error: time out of range: '-1e300' in column 'start_time' is -1e+300 s; a trace's times "
            "and durations lie within +-1e15 s");
  // The bounds themselves are times: the spans between them stay finite.
  auto from_times = acme();
  from_times.columns["duration"] = "";
  const TraceLoad load = load_trace_text(
      kHeader + "j1,u,1,8,COMPLETED,-1e15,-1e15,1e15,\nj2,u,1,8,COMPLETED,1e15,0,1,\n", "ok.csv", from_times);
  ASSERT_TRUE(load.ok()) << all_errors(load);
  EXPECT_EQ(load.jobs[0].work, 2e15);
  EXPECT_EQ(load.jobs[1].submit, 2e15);
}
}  // namespace
}  // namespace fleetsim::models::fleet
