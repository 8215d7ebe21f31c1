// Data-parallel traffic beside a stage's compute (models/step/dp_overlap.hpp): bucketed overlap of a
// chunk's all-gather with its first forward and of its reduce-scatter with its last backward, and
// the traffic that runs under compute.
#include "models/step/dp_overlap.hpp"

#include <gtest/gtest.h>

namespace fleetsim::models {
namespace {

TEST(DpOverlap, WithoutBucketsTheCollectivesStayOutsideThePasses)
{
  EXPECT_DOUBLE_EQ(first_bucket_arrival(10, 4, 0), 10);
  EXPECT_DOUBLE_EQ(last_bucket_done(10, 3, 0), 10);
  const StreamSpan rs = reduce_scatter_span(20, 23, 21, 4, 0);  // after the pass, on a free stream
  EXPECT_DOUBLE_EQ(rs.start, 23);
  EXPECT_DOUBLE_EQ(rs.end, 27);
  EXPECT_DOUBLE_EQ(reduce_scatter_span(20, 23, 30, 4, 0).start, 30);  // the stream is busy until 30
}

TEST(DpOverlap, BucketsLetTheFirstForwardStartEarlyButNotEndBeforeTheLastBucket)
{
  // 4 buckets of a 4 s all-gather ending at 10: the first is there at 7; a 2 s forward that starts
  // then cannot end before 10 + 2/4.
  EXPECT_DOUBLE_EQ(first_bucket_arrival(10, 4, 4), 7);
  EXPECT_DOUBLE_EQ(last_bucket_done(10, 2, 4), 10.5);
}

TEST(DpOverlap, BucketedReduceScatterRunsDuringTheLastBackward)
{
  // A 4 s backward [20, 24) in 4 buckets: the first gradients are ready at 21. A 2 s reduce-scatter
  // would end at 23, but the last bucket is ready only at 24 and takes 0.5 s more.
  const StreamSpan short_rs = reduce_scatter_span(20, 24, 0, 2, 4);
  EXPECT_DOUBLE_EQ(short_rs.start, 21);
  EXPECT_DOUBLE_EQ(short_rs.end, 24.5);
  // A 6 s one is bound by its own length from 21.
  EXPECT_DOUBLE_EQ(reduce_scatter_span(20, 24, 0, 6, 4).end, 27);
  // Never earlier than without buckets' start minus the pass, never later than without buckets.
  const StreamSpan plain = reduce_scatter_span(20, 24, 0, 6, 0);
  EXPECT_LE(reduce_scatter_span(20, 24, 0, 6, 4).end, plain.end);
}

TEST(DpOverlap, HiddenSecondsCountOnlyTrafficUnderCompute)
{
  const Spans busy = {{0, 2}, {3, 5}};
  EXPECT_DOUBLE_EQ(hidden_seconds(busy, {{1, 4}}), 2);  // [1,2) and [3,4)
  EXPECT_DOUBLE_EQ(hidden_seconds(busy, {{2, 3}}), 0);  // in the gap
  EXPECT_DOUBLE_EQ(hidden_seconds(busy, {{-1, 6}, {4, 4.5}}), 4.5);
}

TEST(DpOverlap, ShardedWeightsGatherTwiceAndReduceScatterEveryMicroBatch)
{
  // Two chunks, four micro-batches, a gather of 1 s and an FP32 reduce-scatter of 2 s.
  EXPECT_DOUBLE_EQ(dp_stream_seconds(4, 2, false, 1.0, 2.0), 2 * (1.0 + 2.0));      // once per step
  EXPECT_DOUBLE_EQ(dp_stream_seconds(4, 2, true, 1.0, 2.0), 4 * 2 * (2 * 1.0 + 2.0));  // ZeRO-3
}

}  // namespace
}  // namespace fleetsim::models
