#include "queueing.hpp"

namespace fleetsim::models::fleet {

double pollaczek_khinchine_wait(double rho, double mean_service, double cs2)
{
  return rho / (1 - rho) * (1 + cs2) / 2 * mean_service;
}

double erlang_c(int c, double a)
{
  double b = 1;  // Erlang B with 0 servers
  for (int k = 1; k <= c; ++k)
    b = a * b / (k + a * b);
  const double rho = a / c;
  return b / (1 - rho + rho * b);
}

double erlang_c_wait(int c, double a, double mean_service)
{
  const double mu = 1 / mean_service;
  const double lambda = a * mu;
  return erlang_c(c, a) / (c * mu - lambda);
}

}  // namespace fleetsim::models::fleet
