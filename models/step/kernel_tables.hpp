#pragma once
// Measured kernel throughput, as tables a hardware file points at (docs/models/kernels-and-memory.md):
//
//   GEMM table: the achieved fraction of peak of one GEMM by its forward shape [m x k] x [k x n]
//     (m = tokens, k = input features, n = output features) and by pass: the forward (cuBLAS layout
//     TN), the input gradient [m x n] x [n x k] (NN) and the weight gradient [n x m] x [m x k] (NT,
//     FP32 accumulation). A shape between the measured ones gets Shepard's inverse-distance weighting
//     of the measured efficiencies in log2(m), log2(k), log2(n) with power 4: exact at a measured
//     shape, never above the best nor below the worst measurement, and dominated by the nearest
//     shapes. `scale` carries a table measured on one part over to another of the same architecture
//     (the ratio of their maximum achievable matmul throughput).
//   Attention table: TFLOP/s of a fused attention kernel by kernel name, pass, causal mask, head
//     dimension and sequence length, in FlashAttention's benchmark convention: a forward pass is
//     4 s^2 d FLOPs per head and sequence (half with the causal mask), a backward pass 2.5 times the
//     forward's (it recomputes the scores), forward_backward 3.5 times. Between measured sequence
//     lengths and head dimensions, linear in their log2; beyond them, the nearest measurement.
//
// CSV files, '#' lines are comments; every row names its source. Parsing is pure (models never open
// files): the scenario loader reads the file and reports these errors at their line.

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace fleetsim::models {

enum class GemmPass { Forward = 0, InputGradient = 1, WeightGradient = 2 };

struct GemmMeasurement {
  double m = 0, k = 0, n = 0;                  // the forward GEMM's shape
  std::array<double, 3> efficiency{0, 0, 0};  // by GemmPass; 0 = not measured
  long line = 0;                              // in the CSV
};

struct GemmTable {
  std::vector<GemmMeasurement> rows;
  double scale = 1.0;  // measured efficiency x scale is this accelerator's
  [[nodiscard]] bool empty() const { return rows.empty(); }
  /// Achieved fraction of peak of a GEMM of forward shape m x k x n in `pass` (scale applied).
  [[nodiscard]] double efficiency(GemmPass pass, double m, double k, double n) const;
};

enum class AttentionPass { Forward = 0, Backward = 1, ForwardBackward = 2 };

struct AttentionMeasurement {
  std::string kernel;
  AttentionPass pass = AttentionPass::Forward;
  bool causal = true;
  double head_dim = 0;
  double seq = 0;
  double tflops = 0;
  long line = 0;
};

/// Achieved TFLOP/s of one kernel's forward and backward at one shape (FlashAttention convention).
struct AttentionRate {
  double forward = 0;
  double backward = 0;
};

struct AttentionTable {
  std::vector<AttentionMeasurement> rows;
  [[nodiscard]] bool empty() const { return rows.empty(); }
  /// Kernel names in the order they first appear (the first is the default).
  [[nodiscard]] std::vector<std::string> kernels() const;
  [[nodiscard]] bool has_kernel(std::string_view kernel) const;
  /// The forward and backward rates of `kernel` at a head dimension and sequence length: at each
  /// measured head dimension from its own passes, then interpolated between dimensions. With
  /// measured forward and backward, those; with forward and forward_backward, the backward is what
  /// the pair leaves (3.5 / T_fb - 1 / T_f seconds per forward FLOP); with forward_backward alone,
  /// both passes at that rate; with forward alone, the backward at the forward's rate.
  [[nodiscard]] AttentionRate rate(std::string_view kernel, bool causal, double head_dim, double seq) const;
  /// Empty when `kernel` has a forward or forward_backward measurement with `causal`'s mask.
  [[nodiscard]] std::string coverage_problem(std::string_view kernel, bool causal) const;
};

/// FlashAttention's FLOPs of one forward pass: 4 s^2 d per head and sequence, halved when causal.
[[nodiscard]] double attention_forward_flops(double sequences_x_heads, double seq, double head_dim, bool causal);

/// Reads a GEMM table: header m,k,n,forward,input_gradient,weight_gradient,source. Errors as
/// "<name>:<line>: error: <message>"; a table is returned only when there is none.
struct GemmTableLoad {
  GemmTable table;
  std::vector<std::string> errors;
};
[[nodiscard]] GemmTableLoad parse_gemm_table(std::string_view text, std::string_view name);

/// Reads an attention table: header kernel,pass,causal,head_dim,seq,tflops,source.
struct AttentionTableLoad {
  AttentionTable table;
  std::vector<std::string> errors;
};
[[nodiscard]] AttentionTableLoad parse_attention_table(std::string_view text, std::string_view name);

}  // namespace fleetsim::models
