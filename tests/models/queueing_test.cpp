#include "models/fleet/queueing.hpp"

#include <gtest/gtest.h>

namespace mf = fleetsim::models::fleet;

TEST(Queueing, PollaczekKhinchineAtRho08IsFourMeanJobsForExponentialService)
{
  EXPECT_DOUBLE_EQ(mf::pollaczek_khinchine_wait(0.8, 1.0, 1.0), 4.0);
  EXPECT_DOUBLE_EQ(mf::pollaczek_khinchine_wait(0.8, 1.0, 0.0), 2.0);  // M/D/1: half of it
}

TEST(Queueing, ErlangCMatchesMM1AndATabulatedValue)
{
  // One server: C = rho, W_q = rho / (mu - lambda).
  EXPECT_NEAR(mf::erlang_c(1, 0.8), 0.8, 1e-12);
  EXPECT_NEAR(mf::erlang_c_wait(1, 0.8, 1.0), 4.0, 1e-12);
  // c = 2, a = 1: C = 1/3 (textbook).
  EXPECT_NEAR(mf::erlang_c(2, 1.0), 1.0 / 3, 1e-12);
}
