#include "key_facts.hpp"
#include "parameter_specs.hpp"

#include "models/network/topology.hpp"

namespace fleetsim::scenario::detail {

// The scenario's name, and the job it describes: its cluster, accelerator, model, layout and fabric.
// fleetsim-lint: table (one declaration per key)
std::vector<ParamSpec> job_parameters()
{
  const auto T = Dimension::Time;
  const auto B = Dimension::Bytes;
  const auto BW = Dimension::Bandwidth;
  return {
      text("name", "unnamed", "short name of the scenario, copied into summary.json").into([](auto& s) -> auto& {
        return s.name;
      }),
      text("description", "", "one-line description").into([](auto& s) -> auto& { return s.description; }),

      integer("cluster.gpus", "16384", "accelerators in the training job", 1, 1e8).into([](auto& s) -> auto& {
        return s.fleet.gpus;
      }),
      integer("cluster.gpus_per_node", "8", "accelerators per server (node scope of failure causes)", 1, 1024).into([
      ](auto& s) -> auto& { return s.fleet.gpus_per_node; }),
      integer("cluster.gpus_per_rack", "16",
              "accelerators behind one top-of-rack switch (rack scope of failure causes)", 1, 1e6)
          .into([](auto& s) -> auto& { return s.fleet.gpus_per_rack; }),

      text("accelerator.name", "H100-SXM-80GB", "accelerator model, for reports").into([](auto& s) -> auto& {
        return s.accelerator_name;
      }),
      quantity("accelerator.peak_flops", Dimension::FlopRate, "989TFLOPS", "peak dense BF16 throughput per accelerator")
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.accelerator.peak_flops; }),
      quantity("accelerator.memory", B, "80GB", "HBM capacity per accelerator")
          .when(is("accelerator.memory_check", {"true"}, "the memory model is read only to check the fit"))
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.accelerator.memory; }),
      quantity("accelerator.power", Dimension::Power, "700W", "board power (TDP) per accelerator").into([
      ](auto& s) -> auto& { return s.accelerator_power; }),
      real("accelerator.gemm_efficiency", "0.6",
           "achieved fraction of peak in the model's kernels, when no accelerator.gemm curve is given", 0.0, true, 1.0)
          .when(zero("accelerator.gemm.max_efficiency", "kernel times by shape replace the flat efficiency"))
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.accelerator.gemm_efficiency; }),

      real("model.parameters", "405e9", "trainable parameters", 0.0, true, std::nullopt)
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.workload.parameters; }),
      integer("model.layers", "126", "transformer layers", 1, 1e6).always_when(facts::step_runs()).into([
      ](auto& s) -> auto& { return s.step.workload.layers; }),
      integer("model.hidden", "16384", "model dimension", 1, 1e7).always_when(facts::step_runs()).into([
      ](auto& s) -> auto& { return s.step.workload.hidden; }),
      integer("model.sequence_length", "8192", "tokens per sequence", 1, 1e8).always_when(facts::step_runs()).into([
      ](auto& s) -> auto& { return s.step.workload.sequence_length; }),
      real("model.global_batch_tokens", "16777216", "tokens per optimizer step (global batch)", 0.0, true, std::nullopt)
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.workload.global_batch_tokens; }),
      integer("model.micro_batch_size", "1", "sequences per micro-batch", 1, 1e6).always_when(facts::step_runs()).into([
      ](auto& s) -> auto& { return s.step.workload.micro_batch_size; }),
      integer("model.attention_heads", "128", "query heads per layer", 1, 1e6).always_when(facts::step_runs()).into([
      ](auto& s) -> auto& { return s.step.workload.attention_heads; }),
      integer("model.kv_heads", "8",
              "key/value heads per layer (grouped-query attention); sizes context-parallel traffic", 1, 1e6)
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.workload.kv_heads; }),
      integer("model.experts", "0", "experts per MoE layer (0: dense); every layer's MLP is MoE", 0, 1e6)
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.workload.experts; }),
      integer("model.experts_per_token", "2", "experts each token is routed to (top-k)", 1, 1e6)
          .when(positive("model.experts", "a dense model"))
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.workload.experts_per_token; }),
      real("model.expert_parameters", "0", "parameters in all experts of all layers, part of model.parameters", 0.0,
           false, std::nullopt)
          .when(positive("model.experts", "a dense model"))
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.workload.expert_parameters; }),
      real("model.bytes_per_value", "2", "bytes per activation or gradient value on the wire", 0.0, true, 16.0)
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.workload.bytes_per_value; }),

      integer("parallelism.tp", "8", "tensor-parallel degree", 1, 1e6).into([](auto& s) -> auto& {
        return s.step.layout.tp;
      }),
      integer("parallelism.cp", "1",
              "context-parallel degree: each sequence split over cp GPUs (all-gather based, as Llama 3's long-context "
              "stage)",
              1, 1e6)
          .into([](auto& s) -> auto& { return s.step.layout.cp; }),
      integer("parallelism.ep", "1",
              "expert-parallel degree: experts sharded over ep data-parallel replicas (MoE models)", 1, 1e6)
          .into([](auto& s) -> auto& { return s.step.layout.ep; }),
      integer("parallelism.pp", "16", "pipeline-parallel degree", 1, 1e6).into([](auto& s) -> auto& {
        return s.step.layout.pp;
      }),
      integer("parallelism.dp", "128", "data-parallel degree", 1, 1e8).into([](auto& s) -> auto& {
        return s.step.layout.dp;
      }),
      integer("parallelism.virtual_stages", "1", "interleaved pipeline chunks per device (v)", 1, 1024)
          .when(above("parallelism.pp", 1, "one pipeline stage has no chunks to interleave"))
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.layout.virtual_stages; }),

      quantity("network.nvlink_bandwidth", BW, "450GB/s", "scale-up (NVLink) bandwidth per GPU, one direction")
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.fabric.nvlink_bandwidth; }),
      quantity("network.nvlink_latency", T, "1us", "scale-up per-message latency", 0.0, false)
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.fabric.nvlink_latency; }),
      quantity("network.nic_bandwidth", BW, "400Gbps", "scale-out NIC bandwidth per GPU, one direction")
          .when(facts::step_runs())
          .or_when(is("network.fleet_fabric", {"shared"}))
          .into([](auto& s) -> auto& { return s.step.fabric.nic_bandwidth; }),
      quantity("network.nic_latency", T, "5us", "scale-out per-message latency", 0.0, false)
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.fabric.nic_latency; }),
      real("network.dp_overlap", "0.8",
           "analytic step model only: fraction of data-parallel traffic hidden behind the backward pass (the simulated "
           "step measures it)",
           0.0, false, 1.0)
          .when(is("run.step_model", {"analytic"}, "the simulated step times the overlap itself"))
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.fabric.dp_overlap; }),
      integer("network.pod_size", "0", "GPUs per full-bisection pod of the scale-out fabric (0: one pod)", 0, 1e8)
          .when(is("run.step_model", {"simulated"}))
          .when(facts::step_runs())
          .or_when(is("network.fleet_fabric", {"shared"}))
          .or_when(facts::fleet_places_by_topology())
          .or_when(facts::a_cause_takes_pods())
          .into([](auto& s) -> auto& { return s.fabric.pod_size; }),
      real("network.pod_oversubscription", "1", "pod-to-aggregation oversubscription (7 means 1:7)", 1.0, false,
           std::nullopt)
          .when(is("run.step_model", {"simulated"}))
          .when(facts::step_runs())
          .or_when(is("network.fleet_fabric", {"shared"}))
          .always_when(positive("network.pod_size", "one pod"))
          .into([](auto& s) -> auto& { return s.fabric.pod_oversubscription; }),
      choice("network.preset", "none",
             "a named fabric whose values replace the defaults of the keys the scenario leaves unset: llama3 = 8-GPU "
             "nodes, 16-GPU racks at 1:1, 3,072-GPU pods at full bisection joined at 1:7, 400 Gbps NICs, 450 GB/s "
             "NVLink ([L3] section 3.3.1)",
             {"none", "llama3"})
          .when(facts::preset_fills_a_key()),
      registered_choice("network.topology", "clos",
                        "fabric of the simulated step: Clos of racks and pods, rail-optimized pods, or a 3-D torus "
                        "(TPU-style) (models/network/topology.hpp: the registry)",
                        models::topology_names)
          .when(facts::step_runs())
          .or_when(is("network.fleet_fabric", {"shared"}))
          .into([](auto& s) -> auto& { return s.fabric.topology; }),
      text("network.torus_dims", "",
           "torus shape XxYxZ whose product is the step's GPUs: cluster.gpus, or in a fleet the layout's tp x cp x pp "
           "x dp (network.topology torus only)")
          .when(is("network.topology", {"torus"}))
          .when(facts::step_runs()),
      quantity("network.torus_link_bandwidth", BW, "45GB/s", "each direction of each torus link (topology torus only)")
          .when(is("network.topology", {"torus"}))
          .when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.fabric.torus_link_bandwidth; }),
      quantity("network.torus_hop_latency", T, "1us", "latency of one torus hop (topology torus only)", 0.0, false)
          .when(is("network.topology", {"torus"}))
          .when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.fabric.torus_hop_latency; }),
      real("network.rack_oversubscription", "1", "rack (top-of-rack switch) uplink oversubscription within a pod", 1.0,
           false, std::nullopt)
          .when(is("run.step_model", {"simulated"}))
          .when(facts::step_runs())
          .or_when(is("network.fleet_fabric", {"shared"}))
          .into([](auto& s) -> auto& { return s.fabric.rack_oversubscription; }),
      enum_choice(
          "network.fleet_fabric", "isolated",
          "in a fleet: isolated (every job runs at its isolated speed; the fabric is not simulated) or shared "
          "(the cluster's fabric is built at node resolution and every multi-node job's scale-out traffic "
          "crosses the links of its placement as SimGrid flows: jobs that share an oversubscribed uplink "
          "slow each other, and a scattered placement slows a job; docs/models/fleet.md)",
          kFleetFabricNames, [](auto& s) -> auto& { return s.fabric.fleet; })
          .fleet_only(),
  };
}

}  // namespace fleetsim::scenario::detail
