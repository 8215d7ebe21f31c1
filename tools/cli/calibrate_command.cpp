// fleetsim calibrate HARDWARE: fits the free parameters of one GPU generation's hardware file
// (scenarios/hardware/) on the step cases of scenarios/validation/cases.yaml marked `role:
// calibration` that include it, and writes the fitted values into the file with their provenance
// (date, cases, residuals). It refuses a validation case: those are the ones the model is checked
// on, and no fit may see them (docs/validation.md, docs/models/kernels-and-memory.md).
#include "commands.hpp"

#include "simulator/run/step_source.hpp"
#include "simulator/scenario/scenario_loader.hpp"
#include "simulator/trace/atomic_file.hpp"
#include "validation/calibration.hpp"
#include "validation/case_inputs.hpp"
#include "validation/case_metrics.hpp"
#include "validation/validation_case.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

namespace fleetsim::cli {
namespace {

namespace fs = std::filesystem;
using validation::FreeParameter;
using validation::ValidationCase;

// The free parameters fitted when --fit is not given: the scale that carries the measured GEMM table
// to this part in a long run, and the compute the hidden communication slows
// (docs/models/kernels-and-memory.md, "Calibration").
const std::vector<std::string> kDefaultFits = {"accelerator.gemm.table_scale=0.6:1.2",
                                               "network.overlap_slowdown=0:0.5"};

int bad_input(const std::string& msg)
{
  std::cerr << "fleetsim: error: " << msg << "\n";
  return kExitBadInput;
}

std::string canonical(const std::string& path) { return fs::weakly_canonical(path).string(); }

struct Calibration {
  const ValidationCase* c = nullptr;
  const validation::StepMetric* metric = nullptr;
};

// The calibration cases that include `hardware`; with `named`, exactly those, each of which must be
// a calibration case that includes it. Empty with `error` set when none qualifies.
std::vector<Calibration> calibration_cases(const validation::CaseList& list, const std::vector<std::string>& named,
                                           const std::string& hardware, std::string& error)
{
  std::vector<Calibration> out;
  std::set<std::string> wanted(named.begin(), named.end());
  for (const ValidationCase& c : list.cases) {
    if (!named.empty() && wanted.erase(c.id) == 0)
      continue;
    if (c.role != validation::Role::Calibration) {
      if (!named.empty()) {
        error = "case " + c.id + " is a validation case: calibrate fits only on cases marked 'role: calibration' " +
                "(declared before the fit), never on a case the model is checked against";
        return {};
      }
      continue;
    }
    const auto r = scenario::load_scenario_file(c.inputs_path);
    const bool includes = std::any_of(r.includes.begin(), r.includes.end(),
                                      [&](const std::string& f) { return canonical(f) == hardware; });
    if (!includes) {
      if (!named.empty()) {
        error = "case " + c.id + " does not include " + hardware;
        return {};
      }
      continue;
    }
    out.push_back({&c, validation::find_step_metric(c.metric)});
  }
  if (!wanted.empty())
    error = "no case '" + *wanted.begin() + "' in " + list.file;
  else if (out.empty())
    error = "no calibration case of " + list.file + " includes " + hardware;
  return error.empty() ? out : std::vector<Calibration>{};
}

// Each case's simulated value at the parameters `x`.
std::vector<double> simulate(const std::vector<Calibration>& cases, const std::vector<FreeParameter>& params,
                             const std::vector<double>& x)
{
  std::vector<std::string> sets;
  for (size_t i = 0; i < params.size(); ++i) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.10g", x[i]);
    sets.push_back(params[i].key + "=" + (params[i].dimension ? units::format_quantity(x[i], *params[i].dimension)
                                                                 : std::string(buf)));
  }
  std::vector<double> values;
  for (const Calibration& k : cases) {
    const auto r = scenario::load_scenario_file(k.c->inputs_path, sets);
    if (!r.scenario)
      throw std::runtime_error(k.c->id + ": " + r.diagnostics.to_string());
    values.push_back(k.metric->value(sim::resolve_step(*r.scenario).breakdown, *r.scenario));
  }
  return values;
}

struct Fit {
  std::vector<FreeParameter> params;
  std::vector<double> start;  // their values in the hardware file
  std::vector<validation::LineUpdate> updates;  // their lines there
};

// The free parameters (--fit, or the defaults), each of which the hardware file must write: the fit
// goes there. False with `error` set otherwise.
bool free_parameters(const Options& opts, const std::string& hardware, Fit& fit, std::string& error)
{
  // (The generation file alone, as a scenario: its keys for other models are listed, not refused.)
  const auto hw = scenario::load_scenario_file(opts.scenario, {}, scenario::UnusedKeys::List);
  for (const std::string& text : opts.fits.empty() ? kDefaultFits : opts.fits) {
    const auto p = validation::parse_free_parameter(text, error);
    if (!p)
      return false;
    const auto v = std::find_if(hw.resolved.begin(), hw.resolved.end(), [&](const auto& r) { return r.key == p->key; });
    if (v == hw.resolved.end() || v->is_default || v->where.line <= 0 || canonical(v->where.file) != hardware) {
      error = p->key + " is not written in " + opts.scenario +
              ": write it there (marked as fitted) so that calibrate can update it in place";
      return false;
    }
    fit.params.push_back(*p);
    fit.start.push_back(p->dimension ? units::parse_quantity(v->text, *p->dimension).value : std::stod(v->text));
    fit.updates.push_back({v->where.line, "", ""});
  }
  return true;
}

std::string today()
{
  const std::time_t now = std::time(nullptr);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&now));
  return buf;
}

std::string percent(double e)
{
  char buf[16];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * e);
  return buf;
}

// The provenance block of the fit (date, cases, step-time errors before and after), printed too, and
// each updated line's value and comment set.
std::vector<std::string> record_fit(const std::vector<Calibration>& cases, Fit& fit, const std::vector<double>& fitted,
                                    const Options& opts)
{
  const auto before = simulate(cases, fit.params, fit.start);
  const auto after = simulate(cases, fit.params, fitted);
  const std::string date = today();
  std::vector<std::string> provenance = {"Fitted on " + date + " by `fleetsim calibrate` on the calibration cases of "
                                         "scenarios/validation/cases.yaml that include this file",
                                         "(role: calibration; no validation case is fitted to). Step-time error, "
                                         "before -> after:"};
  std::string fitted_keys = "Free parameters (value -> fitted, within bounds):";
  for (size_t i = 0; i < fit.params.size(); ++i)
    fitted_keys += std::string(i == 0 ? " " : "; ") + fit.params[i].key + " " +
                   validation::parameter_text(fit.params[i], fit.start[i]) + " -> " +
                   validation::parameter_text(fit.params[i], fitted[i]) + " in [" +
                   validation::parameter_text(fit.params[i], fit.params[i].low) + ", " +
                   validation::parameter_text(fit.params[i], fit.params[i].high) + "]";
  std::ostringstream table;
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& k = cases[i];
    const double e0 = validation::step_time_error(*k.metric, k.c->published, before[i]);
    const double e1 = validation::step_time_error(*k.metric, k.c->published, after[i]);
    char line[200];
    std::snprintf(line, sizeof line, "  %s: %s published %.4g, simulated %.4g (%s -> %s)", k.c->id.c_str(),
                  k.c->metric.c_str(), k.c->published, after[i], percent(e0).c_str(), percent(e1).c_str());
    provenance.emplace_back(line);
    table << line << "\n";
  }
  for (size_t i = 0; i < fit.params.size(); ++i) {
    fit.updates[i].value = validation::parameter_text(fit.params[i], fitted[i]);
    fit.updates[i].comment = "FITTED by fleetsim calibrate on " + date + " (the calibration block above)";
    table << "  " << fit.params[i].key << ": " << validation::parameter_text(fit.params[i], fit.start[i]) << " -> "
          << fit.updates[i].value << "\n";
  }
  provenance.push_back(fitted_keys);
  if (!opts.quiet)
    std::cout << opts.scenario << ": " << cases.size() << " calibration cases\n" << table.str();
  return provenance;
}

// The hardware file with the fitted lines and the provenance block, written atomically; "" or why not.
std::string write_fit(const std::string& file, const std::vector<validation::LineUpdate>& updates,
                      const std::vector<std::string>& provenance)
{
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  std::string error;
  const std::string rewritten = validation::rewrite_hardware_text(text.str(), updates, provenance, error);
  if (rewritten.empty())
    return file + ": " + error;
  const fs::path path(file);
  return sim::write_file_atomically(path.parent_path().string(), path.filename().string(),
                                    [&](std::ostream& o) { o << rewritten; });
}

}  // namespace

int cmd_calibrate(const Options& opts)
{
  if (opts.scenario.empty())
    return bad_input("calibrate needs the hardware file to fit (e.g. scenarios/hardware/h100_sxm_80gb.yaml)");
  if (!fs::is_regular_file(opts.scenario))
    return bad_input("cannot read the hardware file '" + opts.scenario + "'");
  const std::string hardware = canonical(opts.scenario);
  const std::string file = opts.cases_file.empty() ? default_source_path("scenarios/validation/cases.yaml")
                                                   : opts.cases_file;
  scenario::Diagnostics diags;
  const validation::CaseList list = validation::read_case_list(file, diags);
  if (!diags.empty()) {
    scenario::report(diags, std::cerr);
    return kExitBadInput;
  }
  std::string error;
  const auto cases = calibration_cases(list, opts.case_ids, hardware, error);
  if (cases.empty())
    return bad_input(error);
  // Validation apart by construction: a calibration case whose resolved inputs equal a validation
  // case's would fit the model to that validation case (validation/case_inputs.hpp).
  for (const std::string& problem : validation::shared_input_problems(list))
    for (const Calibration& k : cases)
      if (problem.find("calibration case " + k.c->id + "'s") != std::string::npos)
        return bad_input("calibrate will not fit on " + k.c->id + ": " + problem);
  Fit fit;
  if (!free_parameters(opts, hardware, fit, error))
    return bad_input(error);
  try {
    auto objective = [&](const std::vector<double>& x) {
      const auto values = simulate(cases, fit.params, x);
      double sum = 0;
      for (size_t i = 0; i < cases.size(); ++i) {
        const double e = std::log(validation::step_time_error(*cases[i].metric, cases[i].c->published, values[i]) + 1);
        sum += e * e;
      }
      return sum;
    };
    std::vector<double> fitted = validation::fit_parameters(fit.params, fit.start, objective);
    for (size_t i = 0; i < fit.params.size(); ++i)
      fitted[i] = validation::rounded(fit.params[i], fitted[i]);
    const std::vector<std::string> provenance = record_fit(cases, fit, fitted, opts);
    if (opts.dry_run)
      return kExitOk;
    if (std::string err = write_fit(opts.scenario, fit.updates, provenance); !err.empty()) {
      std::cerr << "fleetsim: error: " << err << "\n";
      return kExitFailure;
    }
  } catch (const std::exception& e) {
    std::cerr << "fleetsim: error: " << e.what() << "\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace fleetsim::cli
