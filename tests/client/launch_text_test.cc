// SPDX-License-Identifier: Apache-2.0
#include "client/launch_text.h"

#include <gtest/gtest.h>

namespace tilejit::client {
namespace {

TEST(FormatLaunchResponse, PrintsStatusCyclesAndOneLinePerFinding) {
  v1::LaunchResponse r;
  r.set_ok(false);
  r.set_kernel_cycles(1234);
  r.set_waves(1);
  auto* f = r.add_findings();
  f->set_kind("race");
  f->set_message("RAW between a.py:10:5 and a.py:12:5");
  r.set_findings_suppressed(2);
  const std::string text = FormatLaunchResponse(r);
  EXPECT_NE(text.find("status: findings\n"), std::string::npos) << text;
  EXPECT_NE(text.find("kernel cycles: 1234 (1 wave(s)"), std::string::npos) << text;
  EXPECT_NE(text.find("\nrace: RAW between a.py:10:5 and a.py:12:5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("2 more findings suppressed"), std::string::npos) << text;
}

TEST(FormatLaunchResponse, SaysWhenHbmBoundTheLaunch) {
  v1::LaunchResponse r;
  r.set_ok(true);
  r.set_kernel_cycles(32768);
  r.set_waves(2);
  r.set_gm_bytes(25165824);
  r.set_hbm_bytes(25165824);
  r.set_block_bound_cycles(8000);
  r.set_hbm_bound_waves(2);
  EXPECT_NE(FormatLaunchResponse(r).find("GM traffic: 25165824 bytes, 25165824 of them from HBM; "
                                         "2 of 2 wave(s) HBM-bound (blocks alone: 8000 cycles)\n"),
            std::string::npos)
      << FormatLaunchResponse(r);
  r.set_hbm_bound_waves(0);
  EXPECT_NE(FormatLaunchResponse(r).find("no wave HBM-bound\n"), std::string::npos);
}

TEST(FormatLaunchResponse, SaysOkForACleanRun) {
  v1::LaunchResponse r;
  r.set_ok(true);
  EXPECT_EQ(FormatLaunchResponse(r).rfind("status: OK\n", 0), 0u);
}

TEST(FormatLaunchResponse, DeviceOutputComesFirstAsTheDevicePrintedIt) {
  v1::LaunchResponse r;
  r.set_ok(true);
  r.set_device_output("[block 0 aiv0] x=1\n[block 0 aiv1] x=2\n");
  EXPECT_EQ(FormatLaunchResponse(r).rfind(
                "device output:\n[block 0 aiv0] x=1\n[block 0 aiv1] x=2\nstatus: OK\n", 0),
            0u);
}

TEST(FormatLaunchResponse, NamesTheSymbolsALaunchBoundAfterTheStatus) {
  v1::LaunchResponse r;
  r.set_ok(true);
  r.set_block_count(4);
  v1::LaunchSymbol* m = r.add_symbols();
  m->set_name("M");
  m->set_value(200);
  v1::LaunchSymbol* n = r.add_symbols();
  n->set_name("N");
  n->set_value(7);
  EXPECT_EQ(FormatLaunchResponse(r).rfind("status: OK\nsymbols: M=200 N=7 (4 block(s))\n", 0), 0u);
}

}  // namespace
}  // namespace tilejit::client
