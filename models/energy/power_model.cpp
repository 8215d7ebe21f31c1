#include "power_model.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim::models::energy {

std::string_view gpu_state_name(GpuState s)
{
  switch (s) {
    case GpuState::Compute: return "compute";
    case GpuState::Communicate: return "communicate";
    case GpuState::Idle: return "idle";
    case GpuState::Checkpoint: return "checkpoint";
    case GpuState::Off: return "off";
  }
  return "compute";
}

double gpu_draw(const PowerSpec& p, GpuState s)
{
  const double w = p.gpu_w[static_cast<size_t>(s)];
  return p.gpu_power_limit_w > 0 ? std::min(w, p.gpu_power_limit_w) : w;
}

double compute_speed(const PowerSpec& p)
{
  const double compute = p.gpu_w[static_cast<size_t>(GpuState::Compute)];
  const double idle = p.gpu_w[static_cast<size_t>(GpuState::Idle)];
  if (p.gpu_power_limit_w <= 0 || p.gpu_power_limit_w >= compute || compute <= idle)
    return 1.0;
  const double headroom = std::max(0.0, p.gpu_power_limit_w - idle) / (compute - idle);
  return std::pow(headroom, 1.0 / p.dvfs_exponent);
}

double PowerDraw::gpus() const
{
  double s = 0;
  for (double w : gpu_w)
    s += w;
  return s;
}

double PowerDraw::it() const { return gpus() + floor_w + node_w + network_w + storage_w; }

double PowerDraw::facility() const { return it() + overhead_w; }

PowerDraw& PowerDraw::operator+=(const PowerDraw& o)
{
  for (size_t i = 0; i < gpu_w.size(); ++i)
    gpu_w[i] += o.gpu_w[i];
  floor_w += o.floor_w;
  node_w += o.node_w;
  network_w += o.network_w;
  storage_w += o.storage_w;
  overhead_w += o.overhead_w;
  return *this;
}

PowerDraw PowerDraw::scaled(double k) const
{
  PowerDraw d = *this;
  for (double& w : d.gpu_w)
    w *= k;
  d.floor_w *= k;
  d.node_w *= k;
  d.network_w *= k;
  d.storage_w *= k;
  d.overhead_w *= k;
  return d;
}

PowerDraw draw(const PowerSpec& p, const Activity& a)
{
  PowerDraw d;
  for (GpuState s : kAllGpuStates) {
    const auto i = static_cast<size_t>(s);
    const double w = gpu_draw(p, s);
    d.gpu_w[i] = (a.job[i] + a.other[i]) * w;
    if (a.floor_held && s != GpuState::Off && p.power_floor_w > w)
      d.floor_w += a.job[i] * (p.power_floor_w - w);
  }
  d.node_w = a.nodes * p.node_w;
  d.network_w = 8.0 * (a.scale_up_bps * p.scale_up_j_per_bit + a.scale_out_bps * p.scale_out_j_per_bit);
  d.storage_w = p.storage_w + a.storage_bps * p.storage_j_per_byte;
  d.overhead_w = d.it() * (p.pue - 1.0);
  return d;
}

}  // namespace fleetsim::models::energy
