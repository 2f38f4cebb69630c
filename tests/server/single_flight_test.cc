// SPDX-License-Identifier: Apache-2.0
// SingleFlight without the service: who leads, who joins, and what a flight whose every
// waiter left does to the next request for its key.
#include "server/single_flight.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace tilejit::server {
namespace {

using std::chrono::milliseconds;

SteadyTime In(milliseconds d) { return std::chrono::steady_clock::now() + d; }

FlightResult Compiled(const std::string& digest) {
  FlightResult r;
  r.leader_digest = digest;
  return r;
}

TEST(SingleFlight, JoinersShareTheLeadersResultAndItsLatestDeadline) {
  SingleFlight flights;
  const SteadyTime near = In(milliseconds(500));
  const SteadyTime far = In(milliseconds(60000));
  SingleFlight::Joined leader = flights.Join("k", near);
  SingleFlight::Joined joiner = flights.Join("k", far);
  ASSERT_TRUE(leader.leader);
  ASSERT_FALSE(joiner.leader);
  EXPECT_EQ(joiner.flight, leader.flight);
  EXPECT_EQ(leader.flight->deadline(), far);

  std::thread waiter([&] { EXPECT_EQ(joiner.flight->Wait(far, nullptr).leader_digest, "d1"); });
  flights.Finish("k", leader.flight, Compiled("d1"));
  EXPECT_EQ(leader.flight->Wait(near, nullptr).leader_digest, "d1");
  waiter.join();
  EXPECT_EQ(flights.in_flight(), 0u);
  EXPECT_TRUE(flights.Join("k", far).leader) << "a finished flight is forgotten";
}

TEST(SingleFlight, AFlightStaysAliveWhileOneWaiterRemains) {
  SingleFlight flights;
  SingleFlight::Joined leader = flights.Join("k", In(milliseconds(60000)));
  SingleFlight::Joined joiner = flights.Join("k", In(milliseconds(60000)));
  FlightResult gone = leader.flight->Wait(In(milliseconds(0)), nullptr);
  EXPECT_EQ(gone.status.code(), StatusCode::kDeadlineExceeded) << gone.status.ToString();
  EXPECT_FALSE(leader.flight->abandoned());
  FlightResult cancelled = joiner.flight->Wait(In(milliseconds(60000)), [] { return true; });
  EXPECT_EQ(cancelled.status.code(), StatusCode::kCancelled) << cancelled.status.ToString();
  EXPECT_TRUE(leader.flight->abandoned());
}

// The compile of an abandoned flight is being stopped and will end with kCancelled; a request
// that arrives before it is forgotten must lead a compile of its own, not join the stopping one.
TEST(SingleFlight, ARequestAfterEveryWaiterLeftLeadsANewFlight) {
  SingleFlight flights;
  SingleFlight::Joined old = flights.Join("k", In(milliseconds(60000)));
  (void)old.flight->Wait(In(milliseconds(0)), nullptr);
  ASSERT_TRUE(old.flight->abandoned());

  EXPECT_FALSE(flights.JoinInFlight("k", In(milliseconds(60000))).flight);
  SingleFlight::Joined fresh = flights.Join("k", In(milliseconds(60000)));
  ASSERT_TRUE(fresh.leader);
  EXPECT_NE(fresh.flight, old.flight);
  EXPECT_FALSE(fresh.flight->abandoned());

  FlightResult stopped;
  stopped.status = Cancelled("stopped");
  flights.Finish("k", old.flight, stopped);  // the old compile winds down
  EXPECT_EQ(flights.in_flight(), 1u) << "the old flight's end does not forget the new one";
  SingleFlight::Joined joiner = flights.Join("k", In(milliseconds(60000)));
  EXPECT_EQ(joiner.flight, fresh.flight);
  flights.Finish("k", fresh.flight, Compiled("d2"));
  EXPECT_EQ(joiner.flight->Wait(In(milliseconds(60000)), nullptr).leader_digest, "d2");
  EXPECT_TRUE(fresh.flight->Wait(In(milliseconds(60000)), nullptr).status.ok());
}

}  // namespace
}  // namespace tilejit::server
