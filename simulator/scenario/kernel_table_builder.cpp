#include "kernel_table_builder.hpp"

#include "data_file.hpp"
#include "models/step/kernel_tables.hpp"

#include <memory>
#include <optional>

namespace fleetsim::scenario::detail {
namespace {

void read_gemm_table(Reader& r, const std::string& file, models::GemmCurve& curve)
{
  const std::string key = "accelerator.gemm.table";
  if (!r.has(key))
    return;
  const auto data = read_data_file(r, key, file);
  if (!data)
    return;
  models::GemmTableLoad load = models::parse_gemm_table(data->text, data->path);
  r.file_errors(load.errors, key + ": ");
  if (!load.errors.empty())
    return;
  load.table.scale = r.number("accelerator.gemm.table_scale");
  if (!(curve.max_efficiency > 0))
    r.error(key, key + " needs accelerator.gemm.max_efficiency, the ceiling of its efficiencies");
  curve.table = std::make_shared<const models::GemmTable>(std::move(load.table));
}

void read_attention_table(Reader& r, const std::string& file, Scenario& s)
{
  const std::string key = "accelerator.attention.table";
  models::Workload& w = s.step.workload;
  if (!r.has(key)) {
    if (!w.attention_kernel.empty())
      r.error("model.attention_kernel", "model.attention_kernel needs measurements: accelerator.attention.table");
    return;
  }
  const auto data = read_data_file(r, key, file);
  if (!data)
    return;
  models::AttentionTableLoad load = models::parse_attention_table(data->text, data->path);
  r.file_errors(load.errors, key + ": ");
  if (!load.errors.empty())
    return;
  const std::string kernel = w.attention_kernel.empty() ? load.table.kernels().front() : w.attention_kernel;
  if (!load.table.has_kernel(kernel)) {
    std::string known;
    for (const std::string& k : load.table.kernels())
      known += (known.empty() ? "" : ", ") + k;
    r.error("model.attention_kernel", "model.attention_kernel: '" + kernel + "' is not in " + data->path +
                                          " (it measures " + known + ")");
    return;
  }
  if (const std::string problem = load.table.coverage_problem(kernel, true); !problem.empty()) {
    r.error(key, key + ": " + problem);
    return;
  }
  s.step.accelerator.gemm_curve.attention = std::make_shared<const models::AttentionTable>(std::move(load.table));
}

}  // namespace

void read_kernel_tables(Reader& r, const std::string& file, Scenario& s)
{
  read_gemm_table(r, file, s.step.accelerator.gemm_curve);
  read_attention_table(r, file, s);
}

}  // namespace fleetsim::scenario::detail
