// SPDX-License-Identifier: Apache-2.0
// CompileService::Launch against a fake device (FakeDevices): what the core hands the device
// it gets from its factory, what it makes of the device's answers, and how device failures,
// findings and cancellation reach the caller.
#include <gtest/gtest.h>

#include <chrono>
#include <set>

#include "server/service.h"
#include "tests/server/fake_backend.h"
#include "tests/server/fake_device.h"

namespace tilejit::server {
namespace {

using testing::FakeBackend;
using testing::FakeDevices;
using testing::FakeSource;
using testing::HalfArray;
using testing::kHalfOne;
using testing::kHalfTwo;

// How long a launch whose caller gave up may take to stop (it stops within milliseconds).
constexpr std::chrono::milliseconds kStopWait{10'000};

class ServiceDeviceTest : public ::testing::Test {
 protected:
  // A service whose launches run on devices following `script`, with one compiled kernel.
  void Start(FakeDevices::Script script, ServiceOptions options = {}) {
    devices_ = std::make_shared<FakeDevices>(std::move(script));
    service_ = std::make_unique<CompileService>(options, std::make_unique<FakeBackend>(&counters_),
                                                std::make_unique<MemoryKernelStore>(),
                                                devices_->Factory());
    frontend::FrontendRequest r;
    r.source = FakeSource("a");
    r.file_name = "k.py";
    r.entry = "kernel";
    Result<CompileReply> reply = service_->Compile(r, {}, {});
    ASSERT_TRUE(reply.ok() && reply->ok) << reply.status();
    compiled_ = *reply;
  }

  // vadd's two inputs, by handle.
  LaunchCall Call() const {
    LaunchCall call;
    call.handle = compiled_.handle;
    call.inputs = {HalfArray(kHalfOne), HalfArray(kHalfTwo)};
    return call;
  }

  static runner::LaunchReport Report(std::vector<runner::Finding> findings, Status status) {
    runner::LaunchReport report;
    report.status = std::move(status);
    report.kernel_cycles = 4242;
    report.waves = 3;
    report.blocks.resize(2);
    report.blocks[0].instructions = 5;
    report.blocks[1].instructions = 6;
    report.findings = std::move(findings);
    return report;
  }

  FakeBackend::Counters counters_;
  std::shared_ptr<FakeDevices> devices_;
  std::unique_ptr<CompileService> service_;
  CompileReply compiled_;
};

TEST_F(ServiceDeviceTest, LaunchGivesTheDeviceTheKernelAndInputsAndReturnsItsReport) {
  FakeDevices::Script script;
  script.report = Report({}, Status::Ok());
  ServiceOptions options;
  options.launch_host_threads = 3;
  Start(script, options);
  LaunchCall call = Call();
  call.instruction_budget = 1234;
  call.mode = runner::CheckMode::kPerturbed;
  call.seed = 99;
  Result<LaunchReply> r = service_->Launch(call, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->ok) << r->error;
  EXPECT_EQ(r->report.kernel_cycles, 4242u);
  EXPECT_EQ(r->report.waves, 3);
  EXPECT_EQ(r->instructions, 11u);
  ASSERT_EQ(r->outputs.size(), 1u);
  EXPECT_EQ(r->outputs[0].shape, std::vector<int64_t>{256});
  EXPECT_EQ(r->outputs[0].data, std::vector<uint8_t>(512, script.output_byte));

  const FakeDevices::Record rec = devices_->record();
  EXPECT_EQ(rec.devices_made, 1);
  EXPECT_EQ(rec.devices_destroyed, 1);  // the device dies with its launch
  const std::string& binary = service_->GetKernel(compiled_.handle)->kernel->binary;
  EXPECT_EQ(rec.binary, std::vector<uint8_t>(binary.begin(), binary.end()));
  EXPECT_EQ(rec.copied_in.at("x"), HalfArray(kHalfOne).data);
  EXPECT_EQ(rec.copied_in.at("y"), HalfArray(kHalfTwo).data);
  EXPECT_EQ(rec.copied_in.size(), 2u);
  // Slot i is parameter i's GM address (x, y, z), distinct tensors.
  EXPECT_EQ(rec.args, (std::vector<uint64_t>{rec.addresses.at("x"), rec.addresses.at("y"),
                                             rec.addresses.at("z")}));
  EXPECT_EQ(std::set<uint64_t>(rec.args.begin(), rec.args.end()).size(), 3u);
  EXPECT_EQ(rec.options.instr_budget, 1234u);
  EXPECT_EQ(rec.options.mode, runner::CheckMode::kPerturbed);
  EXPECT_EQ(rec.options.seed, 99u);
  EXPECT_EQ(rec.options.host_threads, 3);
  EXPECT_TRUE(rec.had_cancel_flag);
  const std::vector<std::string> calls = {
      "LoadBinary",     "Allocate x", "CopyToDevice x", "Allocate y",
      "CopyToDevice y", "Allocate z", "Launch",         "CopyFromDevice z",
      "Free x",         "Free y",     "Free z"};
  EXPECT_EQ(rec.calls, calls);
}

TEST_F(ServiceDeviceTest, EveryLaunchGetsANewDeviceWithTheDefaultBudget) {
  FakeDevices::Script script;
  script.report = Report({}, Status::Ok());
  Start(script);
  ASSERT_TRUE(service_->Launch(Call(), {}).ok());
  ASSERT_TRUE(service_->Launch(Call(), {}).ok());
  const FakeDevices::Record rec = devices_->record();
  EXPECT_EQ(rec.devices_made, 2);
  EXPECT_EQ(rec.devices_destroyed, 2);
  EXPECT_EQ(rec.options.instr_budget, service_->options().default_instruction_budget);
}

TEST_F(ServiceDeviceTest, AFailingFactoryOrDeviceIsTheCallersStatus) {
  struct Case {
    const char* what;
    FakeDevices::Script script;
    StatusCode code;
    const char* message;
  };
  auto script = [](auto edit) {
    FakeDevices::Script s;
    edit(s);
    return s;
  };
  const Case cases[] = {
      {"factory fails", script([](auto& s) { s.make_status = Unavailable("device busy"); }),
       StatusCode::kUnavailable, "device busy"},
      {"factory makes null", script([](auto& s) { s.make_null = true; }), StatusCode::kInternal,
       "made no device"},
      {"LoadBinary fails", script([](auto& s) { s.load_status = Corruption("bad sections"); }),
       StatusCode::kCorruption, "bad sections"},
      {"Launch fails", script([](auto& s) { s.launch_status = Internal("device lost"); }),
       StatusCode::kInternal, "device lost"},
      {"Launch throws", script([](auto& s) { s.launch_throws = true; }), StatusCode::kInternal,
       "the device threw: the fake device fell over"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    ServiceOptions options;
    options.max_concurrent_launches = 1;
    Start(c.script, options);
    // Twice: the failed launch gave its only slot back (else the second is RESOURCE_EXHAUSTED).
    for (int attempt = 0; attempt < 2; ++attempt) {
      Result<LaunchReply> r = service_->Launch(Call(), {});
      ASSERT_EQ(r.status().code(), c.code) << r.status();
      EXPECT_NE(r.status().message().find(c.message), std::string::npos) << r.status();
    }
    const FakeDevices::Record rec = devices_->record();
    EXPECT_EQ(rec.devices_destroyed, rec.devices_made);
    const std::string count =
        "{method=\"Launch\",code=\"" + std::string(StatusCodeName(c.code)) + "\"} 2\n";
    EXPECT_NE(service_->metrics().Render().find(count), std::string::npos) << count;
  }
}

TEST_F(ServiceDeviceTest, FindingsAreAFailedRunLocatedInTheRequestsSource) {
  FakeDevices::Script script;
  script.report = Report({{runner::FindingKind::kRace, 0, "race at line-table stmt 2"}},
                         InvalidArgument("1 finding"));
  Start(script);
  LaunchCall call = Call();
  call.handle.clear();
  call.request_digest = compiled_.request_digest;
  Result<LaunchReply> r = service_->Launch(call, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->ok);
  EXPECT_EQ(r->error, "1 finding");
  ASSERT_EQ(r->report.findings.size(), 1u);
  // FakeSource's canonical statement 2 is `tag = 'a'`, line 4 column 5 of k.py.
  EXPECT_EQ(r->report.findings[0].message, "race at line-table stmt 2, k.py:4:5");
  EXPECT_EQ(r->outputs.size(), 1u);
}

TEST_F(ServiceDeviceTest, ABudgetFindingIsResourceExhausted) {
  FakeDevices::Script script;
  script.report = Report({{runner::FindingKind::kBudget, 1, "budget spent at line-table stmt 1"}},
                         ResourceExhausted("1 finding"));
  Start(script);
  Result<LaunchReply> r = service_->Launch(Call(), {});
  ASSERT_EQ(r.status().code(), StatusCode::kResourceExhausted) << r.status();
  EXPECT_NE(r.status().message().find("ran past its instruction budget"), std::string::npos);
  EXPECT_NE(r.status().message().find("budget spent at line-table stmt 1"), std::string::npos)
      << r.status();
}

TEST_F(ServiceDeviceTest, DeadlineAndCancellationRaiseTheDevicesCancelFlag) {
  FakeDevices::Script script;
  script.launch_until_cancelled = true;
  Start(script);
  CallContext late;
  late.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
  Result<LaunchReply> r = service_->Launch(Call(), late);
  ASSERT_EQ(r.status().code(), StatusCode::kDeadlineExceeded) << r.status();
  // Only a raised cancel flag ends the fake's Launch.
  ASSERT_TRUE(devices_->WaitForDestroyed(1, kStopWait));
  EXPECT_TRUE(devices_->record().saw_cancel);

  CallContext cancelled;
  cancelled.cancelled = [] { return true; };
  r = service_->Launch(Call(), cancelled);
  ASSERT_EQ(r.status().code(), StatusCode::kCancelled) << r.status();
  ASSERT_TRUE(devices_->WaitForDestroyed(2, kStopWait));
  EXPECT_EQ(devices_->record().devices_made, 2);
}

TEST_F(ServiceDeviceTest, ALaunchWithoutDeadlineStopsAtTheDaemonsLimitAndGetsItsCaps) {
  FakeDevices::Script script;
  script.launch_until_cancelled = true;  // runs until the service raises the cancel flag
  ServiceOptions options;
  options.max_launch_seconds = 1;
  options.max_launch_blocks = 77;
  Start(script, options);
  Result<LaunchReply> r = service_->Launch(Call(), {});
  ASSERT_EQ(r.status().code(), StatusCode::kDeadlineExceeded) << r.status();
  EXPECT_NE(r.status().message().find("daemon's limit of 1 s (--max-launch-seconds)"),
            std::string::npos)
      << r.status();
  ASSERT_TRUE(devices_->WaitForDestroyed(1, kStopWait));
  EXPECT_TRUE(devices_->record().saw_cancel);
  EXPECT_EQ(devices_->record().options.max_blocks, 77);
  // A caller's own, earlier deadline keeps its own message.
  CallContext late;
  late.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
  r = service_->Launch(Call(), late);
  ASSERT_EQ(r.status().code(), StatusCode::kDeadlineExceeded) << r.status();
  EXPECT_EQ(r.status().message().find("--max-launch-seconds"), std::string::npos) << r.status();
}

TEST_F(ServiceDeviceTest, ALaunchCapFindingIsResourceExhausted) {
  FakeDevices::Script script;
  script.report = Report({{runner::FindingKind::kLaunchCap, 0, "more than 4 separate GM accesses"}},
                         ResourceExhausted("1 finding"));
  Start(script);
  Result<LaunchReply> r = service_->Launch(Call(), {});
  ASSERT_EQ(r.status().code(), StatusCode::kResourceExhausted) << r.status();
  EXPECT_NE(r.status().message().find("reached a cap of the simulator: more than 4"),
            std::string::npos)
      << r.status();
}

}  // namespace
}  // namespace tilejit::server
