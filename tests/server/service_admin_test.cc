// SPDX-License-Identifier: Apache-2.0
// CompileService beyond Compile: GetKernel, Launch on the simulated device (the daemon's own,
// so these also check the simulator behind the service: cancel polling, budgets, findings),
// and cache admin. service_device_test.cc checks the launch path against a fake device.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "runner/sim/sim_device.h"
#include "server/service.h"
#include "tests/server/fake_backend.h"

namespace tilejit::server {
namespace {

using testing::FakeBackend;
using testing::FakeSource;
using testing::HalfArray;
using testing::kHalfOne;
using testing::kHalfThree;
using testing::kHalfTwo;
using testing::SpinBinary;

class ServiceAdminTest : public ::testing::Test {
 protected:
  void SetUp() override { service_ = Make(); }

  // `kernels` go straight into the store (binaries no compiler made, which Import refuses).
  std::unique_ptr<CompileService> Make(
      ServiceOptions options = {},
      const std::vector<std::pair<std::string, std::vector<uint8_t>>>& kernels = {}) {
    auto store = std::make_unique<MemoryKernelStore>();
    for (const auto& [key, binary] : kernels) {
      auto record = std::make_shared<KernelRecord>();
      record->key = key;
      record->binary.assign(binary.begin(), binary.end());
      record->metadata = target::ReadKernelBinary(binary)->metadata;
      EXPECT_TRUE(store->Put(std::move(record)).ok());
    }
    return std::make_unique<CompileService>(options, std::make_unique<FakeBackend>(&counters_),
                                            std::move(store), runner::sim::SimDeviceFactory());
  }

  CompileReply CompileOk(CompileService& s, const std::string& tag) {
    frontend::FrontendRequest r;
    r.source = FakeSource(tag);
    r.file_name = "k.py";
    r.entry = "kernel";
    Result<CompileReply> reply = s.Compile(r, {}, {});
    EXPECT_TRUE(reply.ok() && reply->ok) << reply.status();
    return *reply;
  }

  FakeBackend::Counters counters_;
  std::unique_ptr<CompileService> service_;
};

TEST_F(ServiceAdminTest, GetKernelReturnsBinaryAndMetadataByHandle) {
  CompileReply c = CompileOk(*service_, "a");
  Result<KernelInfo> k = service_->GetKernel(c.handle);
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->kernel->key, c.key);
  EXPECT_EQ(k->kernel->metadata, c.metadata);
  EXPECT_FALSE(k->kernel->binary.empty());
}

TEST_F(ServiceAdminTest, GetKernelDistinguishesUnknownFromMalformedHandles) {
  EXPECT_EQ(service_->GetKernel("tj1_" + std::string(64, '0')).status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(service_->GetKernel("nonsense").status().code(), StatusCode::kInvalidArgument);
}

TEST_F(ServiceAdminTest, LaunchRunsTheKernelOnTheSimulatedDevice) {
  CompileReply c = CompileOk(*service_, "a");
  LaunchCall call;
  call.handle = c.handle;
  call.inputs = {HalfArray(kHalfOne), HalfArray(kHalfTwo)};
  Result<LaunchReply> r = service_->Launch(call, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->ok) << r->error;
  ASSERT_EQ(r->outputs.size(), 1u);
  EXPECT_EQ(r->outputs[0].data, HalfArray(kHalfThree).data);
  EXPECT_GT(r->report.kernel_cycles, 0u);
  EXPECT_GT(r->instructions, 0u);
}

TEST_F(ServiceAdminTest, LaunchByRequestDigestLocatesFindingsInThatSource) {
  CompileReply c = CompileOk(*service_, "a");
  LaunchCall call;
  call.request_digest = c.request_digest;
  call.inputs = {HalfArray(kHalfOne), HalfArray(kHalfTwo)};
  call.instruction_budget = 2;  // runs out: the per-request cap is RESOURCE_EXHAUSTED
  Result<LaunchReply> r = service_->Launch(call, {});
  ASSERT_EQ(r.status().code(), StatusCode::kResourceExhausted) << r.status();
  const std::string& message = r.status().message();
  EXPECT_NE(message.find("ran past its instruction budget"), std::string::npos) << message;
  // The fake source map puts canonical statement i on a line of k.py.
  EXPECT_NE(message.find("k.py:"), std::string::npos) << message;
}

TEST_F(ServiceAdminTest, LaunchDeadlineStopsTheRunningSimulation) {
  ServiceOptions options;
  options.max_concurrent_launches = 1;
  options.max_instruction_budget = uint64_t{1} << 40;  // hours of simulation: only a stop ends it
  const std::string key(64, '5');
  service_ = Make(options, {{key, SpinBinary(key)}});
  LaunchCall call;
  call.handle = "tj1_" + key;
  call.inputs = {HalfArray(kHalfOne), HalfArray(kHalfTwo)};
  call.instruction_budget = options.max_instruction_budget;
  CallContext ctx;
  ctx.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
  Result<LaunchReply> r = service_->Launch(call, ctx);
  ASSERT_EQ(r.status().code(), StatusCode::kDeadlineExceeded) << r.status();
  EXPECT_NE(r.status().message().find("stopped"), std::string::npos) << r.status();

  // The stopped simulation gives its only launch slot back: a normal launch gets it. Were the
  // spin still running, every try would be RESOURCE_EXHAUSTED until the bound below.
  CompileReply c = CompileOk(*service_, "a");
  LaunchCall good;
  good.handle = c.handle;
  good.inputs = {HalfArray(kHalfOne), HalfArray(kHalfTwo)};
  Result<LaunchReply> next = ResourceExhausted("not tried");
  for (int attempt = 0; attempt < 1000; ++attempt) {
    next = service_->Launch(good, {});
    if (next.status().code() != StatusCode::kResourceExhausted) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_TRUE(next->ok) << next->error;
}

TEST_F(ServiceAdminTest, MetricsCountEveryMethodByCode) {
  CompileReply c = CompileOk(*service_, "a");
  (void)service_->List(0);
  (void)service_->Pin("bad");
  (void)service_->Unpin(c.handle);
  (void)service_->Stats();
  LaunchCall none;
  (void)service_->Launch(none, {});
  service_->CountRejected("Import", InvalidArgument("bad bundle"));
  const std::string text = service_->metrics().Render();
  for (const char* needle :
       {"{method=\"List\",code=\"OK\"} 1\n", "{method=\"Pin\",code=\"INVALID_ARGUMENT\"} 1\n",
        "{method=\"Unpin\",code=\"OK\"} 1\n", "{method=\"Stats\",code=\"OK\"} 1\n",
        "{method=\"Launch\",code=\"INVALID_ARGUMENT\"} 1\n",
        "{method=\"Import\",code=\"INVALID_ARGUMENT\"} 1\n",
        "tilejit_phase_seconds_count{phase=\"store_put\"} 1\n",
        "tilejit_phase_seconds_count{phase=\"launch\"} 1\n",
        "tilejit_cache_hits_total{tier=\"sqlite\"} 0\n", "tilejit_cache_quarantined_files 0\n"}) {
    EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text;
  }
}

TEST_F(ServiceAdminTest, LaunchRejectsBadInputsAndCaps) {
  CompileReply c = CompileOk(*service_, "a");
  auto code = [&](LaunchCall call) { return service_->Launch(call, {}).status().code(); };
  LaunchCall good;
  good.handle = c.handle;
  good.inputs = {HalfArray(kHalfOne), HalfArray(kHalfTwo)};

  LaunchCall missing_input = good;
  missing_input.inputs.pop_back();
  EXPECT_EQ(code(missing_input), StatusCode::kInvalidArgument);
  LaunchCall wrong_shape = good;
  wrong_shape.inputs[0] = HalfArray(kHalfOne, 128);
  EXPECT_EQ(code(wrong_shape), StatusCode::kInvalidArgument);
  LaunchCall small_gm = good;
  small_gm.max_gm_bytes = 1024;  // the three tensors need 1536 bytes
  EXPECT_EQ(code(small_gm), StatusCode::kResourceExhausted);
  LaunchCall huge_budget = good;
  huge_budget.instruction_budget = service_->options().max_instruction_budget + 1;
  EXPECT_EQ(code(huge_budget), StatusCode::kInvalidArgument);
  LaunchCall no_kernel;
  EXPECT_EQ(code(no_kernel), StatusCode::kInvalidArgument);
  LaunchCall unknown = good;
  unknown.handle = "tj1_" + std::string(64, 'f');
  EXPECT_EQ(code(unknown), StatusCode::kNotFound);
  LaunchCall unknown_digest;
  unknown_digest.request_digest = std::string(64, 'e');
  EXPECT_EQ(code(unknown_digest), StatusCode::kNotFound);
  CallContext expired;
  expired.deadline = std::chrono::steady_clock::now() - std::chrono::milliseconds(1);
  EXPECT_EQ(service_->Launch(good, expired).status().code(), StatusCode::kDeadlineExceeded);
}

TEST_F(ServiceAdminTest, ListPinUnpinAndEvict) {
  CompileReply a = CompileOk(*service_, "a");
  CompileReply b = CompileOk(*service_, "b");
  Result<std::vector<StoreEntryInfo>> list = service_->List(0);
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->size(), 2u);
  EXPECT_TRUE(service_->Pin(a.handle).ok());
  EXPECT_TRUE(service_->Unpin(a.handle).ok());
  EXPECT_EQ(service_->Pin("tj1_" + std::string(64, '0')).code(), StatusCode::kNotFound);
  EXPECT_EQ(service_->Pin("bad").code(), StatusCode::kInvalidArgument);
  Result<size_t> evicted = service_->Evict({a.handle, "tj1_" + std::string(64, '0')});
  ASSERT_TRUE(evicted.ok());
  EXPECT_EQ(*evicted, 1u);
  EXPECT_EQ(service_->GetKernel(a.handle).status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(service_->GetKernel(b.handle).ok());
  EXPECT_EQ(service_->Stats().store.entries, 1u);
}

TEST_F(ServiceAdminTest, ExportThenImportIntoAnotherService) {
  CompileReply a = CompileOk(*service_, "a");
  auto exported = service_->Export({}, 100);
  ASSERT_TRUE(exported.ok());
  ASSERT_EQ(exported->size(), 1u);
  std::unique_ptr<CompileService> other = Make();
  std::vector<ImportEntry> entries;
  for (const auto& k : *exported) entries.emplace_back(k->key, k->binary);
  auto counts = other->Import(entries);
  ASSERT_TRUE(counts.ok()) << counts.status();
  EXPECT_EQ(counts->first, 1u);
  Result<KernelInfo> k = other->GetKernel(a.handle);
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->kernel->metadata, a.metadata);
  EXPECT_EQ(other->Import(entries)->second, 1u);  // already present
}

TEST_F(ServiceAdminTest, ImportRefusesWhatCompilingItHereDoesNotReproduce) {
  CompileReply a = CompileOk(*service_, "a");
  CompileReply b = CompileOk(*service_, "b");
  const std::string a_bin = service_->GetKernel(a.handle)->kernel->binary;
  const std::string b_bin = service_->GetKernel(b.handle)->kernel->binary;
  std::unique_ptr<CompileService> other = Make();
  auto refused = [&](const std::string& key, const std::string& binary, const char* why) {
    Result<std::pair<size_t, size_t>> r = other->Import({{key, binary}});
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << why;
    EXPECT_NE(r.status().message().find(why), std::string::npos) << r.status();
  };
  // Another kernel's binary under a's key: its metadata names b's key.
  refused(a.key, b_bin, "compiled for another key");
  // b's binary, with its metadata and embedded IR claiming a's key and IR: the code differs.
  const std::string forged = [&] {
    const std::vector<uint8_t> v = testing::SpinBinary(a.key);  // same metadata, other code
    Result<target::KernelBinary> k = target::ReadKernelBinary(v);
    k->source.ir_text = testing::EmbeddedIr(a_bin);
    std::vector<uint8_t> out = *target::WriteKernelBinary(*k);
    return std::string(out.begin(), out.end());
  }();
  refused(a.key, forged, "gives a different binary");
  // A binary with no embedded IR cannot be checked.
  const std::vector<uint8_t> bare = testing::VaddBinary(a.key);
  refused(a.key, std::string(bare.begin(), bare.end()), "embeds no canonical IR");
  // Changed embedded IR compiles to another key.
  const std::vector<uint8_t> other_ir = testing::VaddBinary(a.key, "something else");
  refused(a.key, std::string(other_ir.begin(), other_ir.end()), "compiles to another key");
  // A good entry beside a bad one: nothing is imported.
  Result<std::pair<size_t, size_t>> mixed = other->Import({{b.key, b_bin}, {a.key, forged}});
  EXPECT_FALSE(mixed.ok());
  EXPECT_EQ(other->Stats().store.entries, 0u);
  EXPECT_NE(other->metrics().Render().find("tilejit_import_refusals_total 5"), std::string::npos)
      << other->metrics().Render();
  // The honest entries import, and the cache then serves exactly them.
  Result<std::pair<size_t, size_t>> honest = other->Import({{a.key, a_bin}, {b.key, b_bin}});
  ASSERT_TRUE(honest.ok()) << honest.status();
  EXPECT_EQ(honest->first, 2u);
  EXPECT_EQ(other->GetKernel(a.handle)->kernel->binary, a_bin);
}

TEST_F(ServiceAdminTest, ImportRejectsGarbageAndMismatchedKeys) {
  CompileReply a = CompileOk(*service_, "a");
  std::string binary = service_->GetKernel(a.handle)->kernel->binary;
  EXPECT_EQ(service_->Import({{a.key, "not an elf"}}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(service_->Import({{std::string(64, 'b'), binary}}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(service_->Import({{"XYZ", binary}}).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tilejit::server
