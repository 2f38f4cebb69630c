// SPDX-License-Identifier: Apache-2.0
// The circuit breaker's state machine on an injected clock.
#include "cache/circuit_breaker.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace tilejit::cache {
namespace {

class CircuitBreakerTest : public ::testing::Test {
 protected:
  CircuitBreaker breaker_{
      {.failure_threshold = 3, .cooldown_ms = 1000, .clock = [this] { return now_.load(); }}};
  std::atomic<int64_t> now_{5000};

  void Fail(int n) {
    for (int i = 0; i < n; ++i) {
      ASSERT_TRUE(breaker_.Allow());
      breaker_.RecordFailure();
    }
  }
};

TEST_F(CircuitBreakerTest, OpensAfterConsecutiveFailures) {
  Fail(2);
  EXPECT_EQ(breaker_.state(), BreakerState::kClosed);
  Fail(1);
  EXPECT_EQ(breaker_.state(), BreakerState::kOpen);
  EXPECT_EQ(breaker_.Stats().opens, 1u);
}

TEST_F(CircuitBreakerTest, SuccessResetsTheFailureCount) {
  Fail(2);
  ASSERT_TRUE(breaker_.Allow());
  breaker_.RecordSuccess();
  Fail(2);
  EXPECT_EQ(breaker_.state(), BreakerState::kClosed);
}

TEST_F(CircuitBreakerTest, FailsFastWhileOpen) {
  Fail(3);
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(breaker_.Allow());
  now_ += 999;
  EXPECT_FALSE(breaker_.Allow());
  EXPECT_EQ(breaker_.Stats().rejected, 6u);
}

TEST_F(CircuitBreakerTest, LetsOneProbeThroughAfterTheCooldownAndClosesOnSuccess) {
  Fail(3);
  now_ += 1000;
  EXPECT_TRUE(breaker_.Allow());
  EXPECT_EQ(breaker_.state(), BreakerState::kHalfOpen);
  EXPECT_FALSE(breaker_.Allow()) << "only one probe at a time";
  breaker_.RecordSuccess();
  EXPECT_EQ(breaker_.state(), BreakerState::kClosed);
  EXPECT_TRUE(breaker_.Allow());
  breaker_.RecordSuccess();
}

TEST_F(CircuitBreakerTest, ReopensWhenTheProbeFails) {
  Fail(3);
  now_ += 1000;
  ASSERT_TRUE(breaker_.Allow());
  breaker_.RecordFailure();
  EXPECT_EQ(breaker_.state(), BreakerState::kOpen);
  EXPECT_EQ(breaker_.Stats().opens, 2u);
  now_ += 999;
  EXPECT_FALSE(breaker_.Allow()) << "a new full cooldown";
  now_ += 1;
  EXPECT_TRUE(breaker_.Allow());
}

TEST_F(CircuitBreakerTest, ReplacesAProbeThatNeverReports) {
  Fail(3);
  now_ += 1000;
  ASSERT_TRUE(breaker_.Allow());  // this probe's caller goes away
  now_ += 500;
  EXPECT_FALSE(breaker_.Allow());
  now_ += 500;
  EXPECT_TRUE(breaker_.Allow());
  breaker_.RecordSuccess();
  EXPECT_EQ(breaker_.state(), BreakerState::kClosed);
}

TEST_F(CircuitBreakerTest, IgnoresResultsReportedWhileOpen) {
  Fail(3);
  breaker_.RecordSuccess();  // a call allowed before the breaker opened
  EXPECT_EQ(breaker_.state(), BreakerState::kOpen);
  breaker_.RecordFailure();
  EXPECT_EQ(breaker_.Stats().opens, 1u);
}

TEST_F(CircuitBreakerTest, ConcurrentCallersGetExactlyOneProbe) {
  Fail(3);
  now_ += 1000;
  std::atomic<int> allowed{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      for (int j = 0; j < 100; ++j) allowed += breaker_.Allow() ? 1 : 0;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(allowed.load(), 1);
}

}  // namespace
}  // namespace tilejit::cache
