#include "validation_report.hpp"

#include "case_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <ostream>
#include <sstream>

namespace fleetsim::validation {
namespace {

std::string number(double v, const char* format = "%.4g")
{
  if (!std::isfinite(v))
    return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v == 0 ? 0.0 : v);  // no "-0"
  return buf;
}

// "41%", "1.25x", "116.7 min", "419".
std::string with_unit(const std::string& value, const std::string& unit)
{
  if (unit.empty() || value == "n/a")
    return value;
  return unit == "%" || unit == "x" ? value + unit : value + " " + unit;
}

std::string tolerance_text(const ValidationCase& c)
{
  if (c.bound != Bound::Both) {
    const std::string op = c.bound == Bound::Lower ? ">= " : "<= ";
    if (c.tolerance.text.empty() || c.tolerance.value == 0)
      return op + with_unit(number(c.published), c.unit);
    const double slack = c.tolerance.relative ? c.tolerance.value * std::abs(c.published) : c.tolerance.value;
    const double edge = c.bound == Bound::Lower ? c.published - slack : c.published + slack;
    return op + with_unit(number(edge), c.unit);
  }
  if (c.tolerance.relative)
    return "±" + number(100 * c.tolerance.value) + "%";
  return "±" + (c.unit == "%" ? number(c.tolerance.value) + " pts" : with_unit(number(c.tolerance.value), c.unit));
}

std::string published_text(const ValidationCase& c)
{
  const std::string v = with_unit(number(c.published), c.unit);
  return c.bound == Bound::Lower ? "> " + v : c.bound == Bound::Upper ? "< " + v : v;
}

std::string simulated_text(const CaseResult& r)
{
  std::string s = with_unit(number(r.simulated), r.c->unit);
  if (r.samples > 1)
    s += " ±" + number(r.ci95, "%.2g");
  return s;
}

std::string error_text(const CaseResult& r)
{
  const double e = case_error(r);
  const double rel = case_relative_error(r);
  std::string s = number(e, "%+.3g");
  if (std::isfinite(rel))
    s += " (" + number(100 * rel, "%+.2g") + "%)";
  return s;
}

std::string kind_line(const ValidationCase& c, const std::string& inputs_dir)
{
  const std::string inputs = (std::filesystem::path(inputs_dir) / c.inputs).lexically_normal().string();
  switch (c.kind) {
    case CaseKind::Step:
      return "step: one training step of `" + inputs + "`" +
             (c.step_model.empty() ? "" : " with the " + c.step_model + " step model");
    case CaseKind::Replay:
      return "replay: `" + inputs + "` run as `fleetsim run` at seeds 1–" + std::to_string(c.seeds) +
             "; the mean, with its 95% confidence interval";
    case CaseKind::Formula: break;
  }
  const FormulaCheck* f = find_formula_check(c.check);
  std::string params;
  for (const auto& [k, v] : c.params)
    params += (params.empty() ? "" : ", ") + k + " = " + v;
  return "formula: `" + c.check + "` (" + (f != nullptr ? f->description : "") + ") at " + params;
}

void summary_table(std::ostream& o, const std::vector<CaseResult>& results)
{
  o << "| case | metric | published | simulated | error | tolerance | result |\n"
       "|---|---|---|---|---|---|---|\n";
  for (const auto& r : results)
    o << "| [" << r.c->id << "](#" << r.c->id << ") | " << r.c->metric << " | " << published_text(*r.c) << " | "
      << simulated_text(r) << " | " << error_text(r) << " | " << tolerance_text(*r.c) << " | "
      << (r.pass ? "PASS" : "**FAIL**") << " |\n";
}

void case_section(std::ostream& o, const CaseResult& r, const std::string& inputs_dir)
{
  const ValidationCase& c = *r.c;
  o << "\n<a id=\"" << c.id << "\"></a>\n### " << c.id << ": " << c.title << "\n\n";
  o << "- **Source**: " << c.source << "\n";
  o << "- **Inputs**: " << kind_line(c, inputs_dir) << "\n";
  if (!c.notes.empty())
    o << "- **Assumptions and notes**: " << c.notes << "\n";
  o << "- **Published**: " << published_text(c) << " (" << c.metric << ")\n";
  o << "- **Simulated**: " << simulated_text(r) << (r.samples > 1 ? " (95% CI)" : "")
    << (r.detail.empty() ? "" : "; " + r.detail) << "\n";
  o << "- **Error**: " << error_text(r) << "; **tolerance** " << tolerance_text(c) << "\n";
  o << "- **Result**: " << (r.pass ? "PASS" : "**FAIL**") << "\n";
}

// " (here: a4 beside a4c, ...)" for the validation cases that share model and cluster with a
// calibration case, or "".
std::string siblings_sentence(const std::vector<CaseResult>& results)
{
  std::string out;
  for (const CaseResult& r : results)
    if (!r.c->shares_model_with.empty())
      out += (out.empty() ? " (here: " : ", ") + r.c->id + " beside " + r.c->shares_model_with;
  return out.empty() ? out : out + ")";
}

void family_section(std::ostream& o, const std::vector<CaseResult>& results)
{
  const auto families = family_errors(results);
  if (families.empty())
    return;
  o << "\n## Step time error by family\n\n"
       "Every step case's error as an error of step time: simulated / published - 1 for a time, published /\n"
       "simulated - 1 for a throughput (MFU, TFLOP/s, tokens/s), so a negative error is a model that is too\n"
       "fast. Calibration cases (`role: calibration`, the only ones `fleetsim calibrate` may fit a hardware\n"
       "file's free parameters on) are summarised apart from the validation cases, which no fit has seen.\n"
       "A validation case that shares model and cluster with a calibration case, differing only in its layout,\n"
       "is a weaker test than one of a model no fit has seen: `all but siblings` is the validation error\n"
       "without them"
    << siblings_sentence(results) << ".\n\n"
       "| role | family | cases | mean absolute error | mean error (bias) | largest |\n"
       "|---|---|---:|---:|---:|---:|\n";
  for (const FamilyError& f : families)
    o << "| " << role_name(f.role) << " | " << (f.family == "all" ? "**all**" : f.family) << " | " << f.cases << " | "
      << number(100 * f.mean_absolute, "%.1f") << "% | " << number(100 * f.mean, "%+.1f") << "% | "
      << number(100 * f.largest, "%+.1f") << "% |\n";
}

constexpr const char* kAddingACase = R"(## Adding a case

1. Add an entry to `scenarios/validation/cases.yaml`: `id` (lower-case, e.g. `narayanan21-t1-1.7b`),
   `title`, `source` (citation with table or section), `kind`, `metric`, `published`, `unit`,
   `tolerance` (absolute in the unit, e.g. `4` for 4 MFU points, or relative, e.g. `10%`) or
   `bound: lower|upper` for a published "more than" or "less than", and `notes` for every assumption.
   Optional: `family` (the source family its error is summarised with; default the id up to its
   first `-`) and, for a step case, `role: calibration` (default `validation`): only calibration
   cases may be fitted to by `fleetsim calibrate`, and they are declared before any fit.
2. By kind:
   - `step`: `inputs` is a scenario under `scenarios/validation/` that `include:`s the hardware
     file of its GPU generation from `scenarios/hardware/` and gives only the model and its layout.
     It may not set a hardware key (`accelerator.*` but `accelerator.memory_check`, any key naming an efficiency, the NVLink and NIC
     figures: `hardware_keys()` in `tools/validation/validation_case.cpp`), and
     every case of one GPU generation includes the same file (the
     `ValidationCases.StepCasesShareTheirGenerationsHardwareFile` test). `metric` is one of `mfu` (%),
     `hfu` (%, recomputation included), `tflops_per_gpu` (TFLOP/s, HFU x peak: what papers that count
     recomputed FLOPs report), `megatron_tflops_per_gpu` (TFLOP/s, the hardware FLOPs of Narayanan
     et al. 2021 eq. 3 from l, h, s, V and the recomputation mode, over the step time and the GPUs:
     what Table 1 prints), `step_time_s` (s), `tokens_per_s_per_gpu` (tok/s, no FLOP convention);
     `step_model: analytic` uses the fleet law instead of
     the simulated step.
   - `replay`: `inputs` is a scenario replayed at seeds 1..`seeds`; `metric` is a run metric
     (`fleetsim sweep`'s names, e.g. `unexpected_interruptions`, `ettr`) or `summary.<path>` for any
     number in summary.json (e.g. `summary.interruptions.planned`).
   - `formula`: `check` names a registered check of `tools/validation/case_metrics.cpp` (a models/
     function) and `params` gives its parameters, with units; `metric` is the check's name.
3. Regenerate this page: `build/fleetsim reproduce --markdown docs/validation.md`, and commit it
   with the case. A new step metric or formula check is one entry of `step_metrics()` or
   `formula_checks()` in `tools/validation/case_metrics.cpp`.
)";

}  // namespace

std::optional<double> evaluate_formula(const ValidationCase& c, scenario::Diagnostics& diags)
{
  const FormulaCheck* check = find_formula_check(c.check);
  if (check == nullptr) {
    diags.error(c.where, "no formula check '" + c.check + "'");
    return std::nullopt;
  }
  std::map<std::string, double> si;
  for (const auto& [name, text] : c.params)
    for (const auto& p : check->params) {
      if (name != p.name)
        continue;
      double v = 0;
      std::string why;
      if (p.dimension) {
        const auto parsed = units::parse_quantity(text, *p.dimension);
        v = parsed.value;
        why = parsed.error;
      } else {
        try {
          size_t used = 0;
          v = std::stod(text, &used);
          if (used != text.size())
            why = "expects a plain number";
        } catch (const std::exception&) {
          why = "expects a plain number";
        }
      }
      if (!why.empty()) {
        diags.error(c.where, "case " + c.id + ": params." + name + " '" + text + "': " + why);
        return std::nullopt;
      }
      si[name] = v;
    }
  return check->evaluate(si);
}

double case_error(const CaseResult& r)
{
  // Rounding noise (1e-15 of an identity) is no error: the page stays the same bytes across builds.
  const double e = r.simulated - r.c->published;
  return std::abs(e) <= 1e-12 * std::max(1.0, std::abs(r.c->published)) ? 0.0 : e;
}

double case_relative_error(const CaseResult& r)
{
  return r.c->published == 0 ? std::numeric_limits<double>::quiet_NaN() : case_error(r) / std::abs(r.c->published);
}

double step_time_error(const CaseResult& r)
{
  const StepMetric* m = r.c->kind == CaseKind::Step ? find_step_metric(r.c->metric) : nullptr;
  if (m == nullptr || !(r.simulated > 0) || !(r.c->published > 0))
    return std::numeric_limits<double>::quiet_NaN();
  return validation::step_time_error(*m, r.c->published, r.simulated);
}

// The validation cases less those that differ from a calibration case only in layout.
constexpr const char* kAllButSiblings = "all but siblings";

std::vector<FamilyError> family_errors(const std::vector<CaseResult>& results)
{
  std::vector<FamilyError> out;
  for (const Role role : {Role::Validation, Role::Calibration}) {
    std::vector<std::string> order;
    std::map<std::string, std::vector<double>> errors;
    for (const auto& r : results) {
      const double e = step_time_error(r);
      if (r.c->role != role || !std::isfinite(e))
        continue;
      if (errors.count(r.c->family) == 0)
        order.push_back(r.c->family);
      errors[r.c->family].push_back(e);
      errors["all"].push_back(e);
      if (r.c->shares_model_with.empty())
        errors[kAllButSiblings].push_back(e);
    }
    if (!order.empty())
      order.emplace_back("all");
    if (errors["all"].size() != errors[kAllButSiblings].size() && !errors[kAllButSiblings].empty())
      order.emplace_back(kAllButSiblings);
    for (const std::string& family : order) {
      FamilyError f{role, family, 0, 0, 0, 0};
      for (double e : errors[family]) {
        f.cases++;
        f.mean_absolute += std::abs(e);
        f.mean += e;
        if (std::abs(e) > std::abs(f.largest))
          f.largest = e;
      }
      f.mean_absolute /= f.cases;
      f.mean /= f.cases;
      out.push_back(f);
    }
  }
  return out;
}

namespace {

std::string role_counts(const std::vector<CaseResult>& results)
{
  // What each case is for: a step case validates the model or calibrates it, a formula case checks a
  // formula of models/, a replay case the replay's accounting.
  struct Count {
    const char* name;
    int passed = 0, cases = 0;
  };
  std::vector<Count> counts = {{"validation"}, {"calibration"}, {"formula"}, {"replay"}};
  for (const CaseResult& r : results) {
    const size_t at = r.c->kind == CaseKind::Formula  ? 2
                      : r.c->kind == CaseKind::Replay ? 3
                      : r.c->role == Role::Calibration ? 1
                                                        : 0;
    counts[at].cases++;
    counts[at].passed += r.pass ? 1 : 0;
  }
  std::string out;
  for (const Count& c : counts)
    if (c.cases > 0)
      out += (out.empty() ? "" : "; ") + std::string(c.name) + " " + std::to_string(c.passed) + " of " +
             std::to_string(c.cases);
  return out;
}

}  // namespace

std::string result_table(const std::vector<CaseResult>& results)
{
  std::ostringstream o;
  size_t width = 4, metric_width = 6;
  for (const auto& r : results) {
    width = std::max(width, r.c->id.size());
    metric_width = std::max(metric_width, r.c->metric.size());
  }
  char line[512];
  std::snprintf(line, sizeof line, "  %-*s  %-*s %12s %16s %18s %12s  %s\n", static_cast<int>(width), "case",
                static_cast<int>(metric_width), "metric", "published", "simulated", "error", "tolerance", "result");
  o << line;
  int passed = 0;
  for (const auto& r : results) {
    passed += r.pass ? 1 : 0;
    std::snprintf(line, sizeof line, "  %-*s  %-*s %12s %16s %18s %12s  %s\n", static_cast<int>(width), r.c->id.c_str(),
                  static_cast<int>(metric_width), r.c->metric.c_str(), published_text(*r.c).c_str(),
                  simulated_text(r).c_str(), error_text(r).c_str(), tolerance_text(*r.c).c_str(),
                  r.pass ? "PASS" : "FAIL");
    o << line;
  }
  o << "  total: " << passed << " of " << results.size() << " cases pass";
  if (passed != static_cast<int>(results.size()))
    o << ", " << results.size() - static_cast<size_t>(passed) << " fail";
  o << " (" << role_counts(results) << ")\n";
  const auto families = family_errors(results);
  if (!families.empty())
    o << "  step time error by family (negative: the model is too fast):\n";
  for (const FamilyError& f : families) {
    std::snprintf(line, sizeof line, "    %-11s %-16s %3d cases  mean |error| %5.1f%%  mean %+6.1f%%  largest %+6.1f%%\n",
                  role_name(f.role), f.family.c_str(), f.cases, 100 * f.mean_absolute, 100 * f.mean, 100 * f.largest);
    o << line;
  }
  return o.str();
}

void write_result_csv(std::ostream& o, const std::vector<CaseResult>& results)
{
  o << "id,kind,metric,unit,published,bound,tolerance,simulated,ci95,samples,error,relative_error,result,role,family,"
       "step_time_error\n";
  for (const auto& r : results) {
    const ValidationCase& c = *r.c;
    o << c.id << ',' << kind_name(c.kind) << ',' << c.metric << ',' << c.unit << ',' << number(c.published, "%.10g")
      << ',' << bound_name(c.bound) << ',' << c.tolerance.text << ',' << number(r.simulated, "%.10g") << ','
      << number(r.ci95, "%.10g") << ',' << r.samples << ',' << number(case_error(r), "%.10g") << ','
      << number(case_relative_error(r), "%.10g") << ',' << (r.pass ? "pass" : "fail") << ',' << role_name(c.role)
      << ',' << c.family << ',' << (std::isfinite(step_time_error(r)) ? number(step_time_error(r), "%.10g") : "")
      << '\n';
  }
}

std::string validation_page(const std::vector<CaseResult>& results, const std::string& cases_file,
                            const std::string& inputs_dir)
{
  std::ostringstream o;
  int passed = 0;
  for (const auto& r : results)
    passed += r.pass ? 1 : 0;
  o << "<!-- GENERATED by `build/fleetsim reproduce --markdown docs/validation.md` from " << cases_file
    << ". Do not edit: change the cases or the code and run that command again (the\n"
       "     Docs.ValidationPageIsUpToDate test fails when this page is stale). -->\n"
       "# Validation against published results\n\n"
       "`fleetsim reproduce` runs every published case of `"
    << cases_file
    << "` and compares the simulated value with the\n"
       "published one. A case passes within its tolerance; the command exits 1 when one fails. Step\n"
       "cases share the hardware file of their GPU generation (`scenarios/hardware/`): no case is tuned\n"
       "on its own. Their training stack's choices (kernels, overlap, recomputation, pipeline details)\n"
       "are quoted from each case's source on their line, or come from its stack's one file of declared\n"
       "defaults (`scenarios/validation/stacks/`), the same for every case of that stack; the\n"
       "`ValidationCases.StackKnobsComeFromTheSourceOrTheStacksFile` test checks both. Every run is\n"
       "deterministic, so this page is the same bytes at every run of the same code.\n\n"
       "The `Docs.ValidationPageIsUpToDate` test (`tests/tools/validation_page_test.cpp`, label `extensive`)\n"
       "regenerates this page by running the whole suite (about 2 s with every step in the step cache, 35 s\n"
       "cold on a 2-core machine, one process at a time) and fails when it differs from the committed page; it accepts "
       "exit 1, so a\n"
       "failing case is recorded here, not hidden. The quick `ReproduceCli.*` tests run only a cheap subset\n"
       "(the formula cases, one replay at two seeds, the step metrics with the analytic step model).\n"
       "Replay cases whose scenario is calibrated to the published count are consistency checks of the\n"
       "replay's accounting, not independent validations; their notes say so.\n\n"
       "```sh\n"
       "build/fleetsim reproduce                      # every case: the table, exit 1 if one fails\n"
       "build/fleetsim reproduce daly06 'llama3-*'    # the cases whose id starts with daly06, or matches the glob\n"
       "build/fleetsim reproduce --out DIR            # also DIR/validation.csv\n"
       "build/fleetsim reproduce --markdown docs/validation.md   # this page\n"
       "```\n\n"
       "## Summary\n\n"
    << passed << " of " << results.size() << " cases pass: " << role_counts(results)
    << " (a step case validates the model or calibrates its hardware file; a formula case checks a formula; a "
       "replay case, the replay's accounting).\n\n";
  summary_table(o, results);
  family_section(o, results);
  o << "\n## Cases\n";
  for (const auto& r : results)
    case_section(o, r, inputs_dir);
  o << "\n" << kAddingACase;
  return o.str();
}

}  // namespace fleetsim::validation
