// fleetsim reproduce: the published cases of scenarios/validation/cases.yaml, each simulated and
// compared with its published value (tools/validation/). Step cases resolve their step as `fleetsim
// step` does (a forked child, cached); replay cases run their seeds as `fleetsim compare` does, one
// process per seed, in a temporary directory that is removed afterwards; formula cases evaluate a
// models/ function. Nothing is written before every case has its value.
#include "commands.hpp"
#include "replica_runner.hpp"

#include "models/core/statistics.hpp"
#include "simulator/metrics/metric_registry.hpp"
#include "simulator/run/step_source.hpp"
#include "simulator/scenario/scenario_loader.hpp"
#include "simulator/trace/atomic_file.hpp"
#include "validation/case_inputs.hpp"
#include "validation/case_metrics.hpp"
#include "validation/validation_report.hpp"

#include <nlohmann/json.hpp>

#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <set>

namespace fleetsim::cli {
namespace {

namespace fs = std::filesystem;
using validation::CaseKind;
using validation::CaseResult;
using validation::ValidationCase;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A path as the page shows it: relative to the source tree when it lies inside it.
std::string shown_path(const std::string& path)
{
#ifdef FLEETSIM_SOURCE_DIR
  const std::string root = std::string(FLEETSIM_SOURCE_DIR) + "/";
  if (path.rfind(root, 0) == 0)
    return path.substr(root.size());
#endif
  return path;
}

// Every scenario the selected cases read, loaded and checked before anything runs.
class Inputs {
public:
  bool load(const std::vector<const ValidationCase*>& cases)
  {
    bool ok = true;
    for (const ValidationCase* c : cases) {
      if (c->kind == CaseKind::Formula)
        continue;
      const std::string key = c->inputs_path + "|" + c->step_model;
      if (scenarios_.count(key) != 0)
        continue;
      std::vector<std::string> sets;
      if (!c->step_model.empty())
        sets.push_back("run.step_model=" + c->step_model);
      auto loaded = scenario::load_scenario_file(c->inputs_path, sets);
      if (!loaded.diagnostics.empty()) {
        scenario::report(loaded.diagnostics, std::cerr, "case " + c->id);
        ok = false;
        continue;
      }
      scenarios_[key] = std::make_unique<scenario::Scenario>(std::move(*loaded.scenario));
    }
    return ok;
  }
  [[nodiscard]] const scenario::Scenario& of(const ValidationCase& c) const
  {
    return *scenarios_.at(c.inputs_path + "|" + c.step_model);
  }

private:
  std::map<std::string, std::unique_ptr<scenario::Scenario>> scenarios_;
};

std::string step_detail(const models::StepBreakdown& b, const scenario::Scenario& s)
{
  char buf[160];
  const double hfu = validation::find_step_metric("hfu")->value(b, s);
  std::snprintf(buf, sizeof buf, "%s step model, %ld GPUs, step %.3f s, MFU %.1f%%, HFU %.1f%%, binding: %s",
                b.model.c_str(), s.fleet.gpus, b.step_time.si(), 100 * b.mfu, hfu, b.binding_term.c_str());
  return buf;
}

// The replays of every replay case, each (scenario, seed) once, in a temporary directory.
class Replays {
public:
  ~Replays()
  {
    std::error_code ec;
    if (!dir_.empty())
      fs::remove_all(dir_, ec);
  }
  // Runs them; "" or an error message.
  std::string run(const std::vector<const ValidationCase*>& cases, const Inputs& inputs, int jobs, bool* internal)
  {
    std::vector<ReplicaTask> tasks;
    for (const ValidationCase* c : cases) {
      if (c->kind != CaseKind::Replay)
        continue;
      if (dir_.empty() && !make_dir())
        return "cannot create a temporary directory";
      const scenario::Scenario& s = inputs.of(*c);
      for (int seed = 1; seed <= c->seeds; ++seed) {
        const std::string d = task_dir(s, seed);
        if (dirs_.count(d) == 0)
          tasks.push_back({&s, static_cast<std::uint64_t>(seed), d});
        dirs_.insert(d);
      }
    }
    if (tasks.empty())
      return "";
    return run_replicas(tasks, RunnerOptions{jobs, false, false, internal});
  }
  // The case's metric at each of its seeds; nullopt after saying why.
  std::optional<std::vector<double>> values(const ValidationCase& c, const scenario::Scenario& s) const
  {
    std::vector<double> out;
    const metrics::Metric* m = metrics::find_metric(c.metric);
    for (int seed = 1; seed <= c.seeds; ++seed) {
      const std::string file = task_dir(s, seed) + "/summary.json";
      std::ifstream in(file);
      nlohmann::json sum;
      try {
        sum = nlohmann::json::parse(in);
      } catch (const std::exception& e) {
        std::cerr << "fleetsim: error: case " << c.id << ": cannot read the run's summary.json: " << e.what() << "\n";
        return std::nullopt;
      }
      const double v = m != nullptr ? m->read(sum) : at_path(sum, c.metric.substr(validation::kSummaryPrefix.size()));
      if (!std::isfinite(v)) {
        std::cerr << c.where.file << ":" << c.where.line << ":" << c.where.column << ": error: case " << c.id
                  << ": the run's summary.json has no number at '" << c.metric << "'\n";
        return std::nullopt;
      }
      out.push_back(v);
    }
    return out;
  }

private:
  bool make_dir()
  {
    std::string pattern = (fs::temp_directory_path() / "fleetsim_reproduce_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr)
      return false;
    dir_ = pattern;
    return true;
  }
  [[nodiscard]] std::string task_dir(const scenario::Scenario& s, int seed) const
  {
    const auto id = std::hash<std::string>{}(s.source);
    return dir_ + "/" + std::to_string(id) + "/seed-" + std::to_string(seed);
  }
  static double at_path(const nlohmann::json& j, const std::string& dotted)
  {
    const nlohmann::json* node = &j;
    for (size_t pos = 0; pos <= dotted.size();) {
      const size_t dot = std::min(dotted.find('.', pos), dotted.size());
      const std::string key = dotted.substr(pos, dot - pos);
      if (!node->is_object() || !node->contains(key))
        return kNaN;
      node = &(*node)[key];
      pos = dot + 1;
    }
    return node->is_number() ? node->get<double>() : kNaN;
  }
  std::string dir_;
  std::set<std::string> dirs_;
};

// Each case's value, in the order of the cases; nullopt (after saying why) with the exit code.
std::optional<std::vector<CaseResult>> evaluate(const std::vector<const ValidationCase*>& cases, const Inputs& inputs,
                                                Replays& replays, int& code)
{
  std::vector<CaseResult> results;
  for (const ValidationCase* c : cases) {
    CaseResult r{c, kNaN, 0, 1, "", false};
    if (c->kind == CaseKind::Formula) {
      scenario::Diagnostics diags;
      const auto v = validation::evaluate_formula(*c, diags);
      if (!v) {
        scenario::report(diags, std::cerr);
        code = kExitBadInput;
        return std::nullopt;
      }
      r.simulated = *v;
    } else if (c->kind == CaseKind::Step) {
      const scenario::Scenario& s = inputs.of(*c);
      const sim::ResolvedStep step = sim::resolve_step(s);
      r.simulated = validation::find_step_metric(c->metric)->value(step.breakdown, s);
      r.detail = step_detail(step.breakdown, s);
    } else {
      const auto values = replays.values(*c, inputs.of(*c));
      if (!values) {
        code = kExitFailure;
        return std::nullopt;
      }
      const models::SampleSummary sum = models::summarize(*values);
      r.simulated = sum.mean;
      r.ci95 = sum.ci95;
      r.samples = static_cast<int>(sum.n);
      char detail[96];
      std::snprintf(detail, sizeof detail, "sd %.3g over %ld seeds", sum.sd, sum.n);
      r.detail = detail;
    }
    r.pass = validation::passes(*c, r.simulated);
    results.push_back(std::move(r));
  }
  return results;
}

int write_outputs(const Options& opts, const std::vector<CaseResult>& results, const validation::CaseList& list)
{
  if (!opts.out.empty()) {
    const auto body = [&](std::ostream& o) { validation::write_result_csv(o, results); };
    std::string err = sim::prepare_output_dir(opts.out);
    if (err.empty())
      err = sim::write_file_atomically(opts.out, "validation.csv", body);
    if (!err.empty()) {
      std::cerr << "fleetsim: error: " << err << "\n";
      return kExitFailure;
    }
  }
  if (!opts.markdown_file.empty()) {
    const fs::path page(opts.markdown_file);
    const std::string cases_file = shown_path(list.file);
    const std::string page_text = validation::validation_page(results, cases_file,
                                                              fs::path(cases_file).parent_path().string());
    const auto body = [&](std::ostream& o) { o << page_text; };
    const std::string dir = page.parent_path().empty() ? "." : page.parent_path().string();
    if (std::string err = sim::write_file_atomically(dir, page.filename().string(), body); !err.empty()) {
      std::cerr << "fleetsim: error: " << err << "\n";
      return kExitFailure;
    }
  }
  return kExitOk;
}

}  // namespace

int cmd_reproduce(const Options& opts)
{
  const std::string file = opts.cases_file.empty() ? default_source_path("scenarios/validation/cases.yaml")
                                                   : opts.cases_file;
  scenario::Diagnostics diags;
  validation::CaseList list = validation::read_case_list(file, diags);
  if (diags.empty())  // the validation cases that differ from a calibration case only in layout: a group
    for (const auto& [id, calibration] : validation::layout_siblings(list))
      for (ValidationCase& c : list.cases)
        if (c.id == id)
          c.shares_model_with = calibration;
  const auto selected = diags.empty() ? validation::select_cases(list, opts.case_ids, diags)
                                      : std::vector<const ValidationCase*>{};
  if (!diags.empty()) {
    scenario::report(diags, std::cerr);
    return kExitBadInput;
  }
  Inputs inputs;
  if (!inputs.load(selected))
    return kExitBadInput;
  Replays replays;
  bool internal = false;
  int code = kExitOk;
  std::optional<std::vector<CaseResult>> results;
  try {
    if (std::string err = replays.run(selected, inputs, opts.jobs, &internal); !err.empty()) {
      std::cerr << "fleetsim: error: " << err << "\n";
      return internal ? kExitInternal : kExitFailure;
    }
    results = evaluate(selected, inputs, replays, code);
  } catch (const std::exception& e) {
    std::cerr << "fleetsim: error: " << e.what() << "\n";
    return kExitFailure;
  }
  if (!results)
    return code;
  if (const int written = write_outputs(opts, *results, list); written != kExitOk)
    return written;
  if (!opts.quiet)
    std::cout << shown_path(list.file) << ": " << results->size() << " cases\n" << validation::result_table(*results);
  const bool all_pass = std::all_of(results->begin(), results->end(), [](const CaseResult& r) { return r.pass; });
  return all_pass ? kExitOk : kExitFailure;
}

}  // namespace fleetsim::cli
