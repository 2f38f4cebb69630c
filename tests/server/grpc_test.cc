// SPDX-License-Identifier: Apache-2.0
// The service over real gRPC: an in-process server on a random loopback port with a fake
// compiler back end. Covers health, reflection (through the raw reflection protocol, as a
// third-party reflection client sees it), Compile from plain JSON, status codes on the wire,
// GetKernel, CompileStream and the metrics endpoint.
#include <google/protobuf/util/json_util.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include "grpc/health/v1/health.grpc.pb.h"
#include "runner/sim/sim_device.h"
#include "server/grpc_server.h"
#include "server/metrics_http.h"
#include "tests/server/fake_backend.h"
#include "tilejit/v1/tilejit.grpc.pb.h"

namespace tilejit::server {
namespace {

using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;
using testing::FakeBackend;
using testing::FakeSource;

class GrpcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    core_ = std::make_unique<CompileService>(
        ServiceOptions{}, std::make_unique<FakeBackend>(&counters_),
        std::make_unique<MemoryKernelStore>(), runner::sim::SimDeviceFactory());
    GrpcServerOptions options;
    options.address = "127.0.0.1:0";
    options.max_message_bytes = 1 << 20;
    auto server = GrpcServer::Start(core_.get(), options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(server).value();
    channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(server_->port()),
                                   grpc::InsecureChannelCredentials());
    stub_ = v1::TileJit::NewStub(channel_);
  }
  void TearDown() override {
    server_.reset();
    core_.reset();
  }

  v1::CompileRequest JsonRequest(const std::string& json) {
    v1::CompileRequest r;
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &r).ok()) << json;
    return r;
  }

  grpc::Status Compile(const v1::CompileRequest& r, v1::CompileResponse* out) {
    grpc::ClientContext ctx;
    return stub_->Compile(&ctx, r, out);
  }

  // One exchange on grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo with a
  // hand-encoded request, returning the raw response bytes: what any reflection client does,
  // without linking a second copy of the reflection protos.
  std::string Reflect(const std::string& request_bytes) {
    grpc::GenericStub stub(channel_);
    grpc::ClientContext ctx;
    grpc::CompletionQueue cq;
    auto call = stub.PrepareCall(
        &ctx, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", &cq);
    auto step = [&cq](intptr_t tag) {
      void* got = nullptr;
      bool ok = false;
      EXPECT_TRUE(cq.Next(&got, &ok));
      EXPECT_EQ(reinterpret_cast<intptr_t>(got), tag);
      return ok;
    };
    call->StartCall(reinterpret_cast<void*>(1));
    EXPECT_TRUE(step(1));
    grpc::Slice slice(request_bytes);
    call->Write(grpc::ByteBuffer(&slice, 1), reinterpret_cast<void*>(2));
    EXPECT_TRUE(step(2));
    grpc::ByteBuffer response;
    call->Read(&response, reinterpret_cast<void*>(3));
    EXPECT_TRUE(step(3));
    call->WritesDone(reinterpret_cast<void*>(4));
    step(4);
    grpc::Status status;
    call->Finish(&status, reinterpret_cast<void*>(5));
    step(5);
    EXPECT_TRUE(status.ok()) << status.error_message();
    std::vector<grpc::Slice> slices;
    (void)response.Dump(&slices);
    std::string out;
    for (const grpc::Slice& s : slices) {
      out.append(reinterpret_cast<const char*>(s.begin()), s.size());
    }
    return out;
  }

  FakeBackend::Counters counters_;
  std::unique_ptr<CompileService> core_;
  std::unique_ptr<GrpcServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::TileJit::Stub> stub_;
};

TEST_F(GrpcTest, HealthCheckIsServingForServerAndService) {
  auto health = grpc::health::v1::Health::NewStub(channel_);
  for (std::string service : {"", "tilejit.v1.TileJit"}) {
    grpc::ClientContext ctx;
    HealthCheckRequest req;
    req.set_service(service);
    HealthCheckResponse resp;
    ASSERT_TRUE(health->Check(&ctx, req, &resp).ok()) << service;
    EXPECT_EQ(resp.status(), HealthCheckResponse::SERVING);
  }
  grpc::ClientContext ctx;
  HealthCheckRequest req;
  req.set_service("no.such.Service");
  HealthCheckResponse resp;
  EXPECT_EQ(health->Check(&ctx, req, &resp).error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(GrpcTest, HealthTurnsNotServingWhenDraining) {
  server_->health().SetDraining();
  auto health = grpc::health::v1::Health::NewStub(channel_);
  grpc::ClientContext ctx;
  HealthCheckResponse resp;
  ASSERT_TRUE(health->Check(&ctx, HealthCheckRequest(), &resp).ok());
  EXPECT_EQ(resp.status(), HealthCheckResponse::NOT_SERVING);
}

TEST_F(GrpcTest, ReflectionListsTileJitAndHealth) {
  // ServerReflectionRequest{list_services: ""}: field 7, length-delimited, empty.
  const std::string listing = Reflect(std::string("\x3a\x00", 2));
  EXPECT_NE(listing.find("tilejit.v1.TileJit"), std::string::npos);
  EXPECT_NE(listing.find("grpc.health.v1.Health"), std::string::npos);
}

TEST_F(GrpcTest, ReflectionResolvesTheHealthServiceDescriptor) {
  // ServerReflectionRequest{file_containing_symbol: "grpc.health.v1.Health"}: field 4.
  const std::string symbol = "grpc.health.v1.Health";
  std::string request = "\x22";
  request += static_cast<char>(symbol.size());
  request += symbol;
  const std::string reply = Reflect(request);
  EXPECT_NE(reply.find("grpc/health/v1/health.proto"), std::string::npos);
  EXPECT_EQ(reply.find("not found"), std::string::npos);
}

TEST_F(GrpcTest, CompileFromPlainJsonThenHitFromMemory) {
  const std::string json = R"({"source": "def kernel(M, N):\n    return M\n", "entry": "kernel",
      "file_name": "k.py", "args": [1024, 64], "pass_configs": {"tl.ascend_auto_sync": true}})";
  v1::CompileResponse first, second;
  ASSERT_TRUE(Compile(JsonRequest(json), &first).ok());
  EXPECT_TRUE(first.ok());
  EXPECT_EQ(first.tier(), "compiled");
  EXPECT_EQ(first.handle().substr(0, 4), "tj1_");
  EXPECT_EQ(first.metadata().kernel_name(), "vadd");
  ASSERT_TRUE(Compile(JsonRequest(json), &second).ok());
  EXPECT_EQ(second.tier(), "memory");
  EXPECT_EQ(second.handle(), first.handle());
  EXPECT_EQ(counters_.specialize.load(), 1);

  grpc::ClientContext ctx;
  v1::GetKernelRequest get;
  get.set_handle(first.handle());
  v1::GetKernelResponse kernel;
  ASSERT_TRUE(stub_->GetKernel(&ctx, get, &kernel).ok());
  const std::vector<uint8_t> expected =
      testing::VaddBinary(first.key(), testing::EmbeddedIr(kernel.binary()));
  EXPECT_EQ(kernel.binary(), std::string(expected.begin(), expected.end()));
}

TEST_F(GrpcTest, KernelErrorsAreOkRpcsWithDiagnostics) {
  v1::CompileResponse r;
  ASSERT_TRUE(
      Compile(JsonRequest(R"({"source": "def kernel():\n  syntax error\n", "entry": "kernel",
                              "file_name": "bad.py"})"),
              &r)
          .ok());
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.diagnostics_size(), 1);
  EXPECT_EQ(r.diagnostics(0).severity(), v1::ERROR);
  EXPECT_EQ(r.diagnostics(0).file(), "bad.py");
  EXPECT_EQ(r.diagnostics(0).line(), 2u);
  EXPECT_NE(r.error().find("bad.py:2:1"), std::string::npos);
}

TEST_F(GrpcTest, BadRequestsGetTheRightCodes) {
  v1::CompileResponse r;
  EXPECT_EQ(Compile(JsonRequest(R"({"entry": "kernel"})"), &r).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  v1::CompileRequest oversized = JsonRequest(R"({"entry": "kernel"})");
  oversized.set_source(std::string(2 << 20, 'a'));  // over the 1 MiB message limit
  EXPECT_EQ(Compile(oversized, &r).error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() - std::chrono::seconds(1));
  EXPECT_EQ(stub_->Compile(&ctx, JsonRequest(R"({"source": "x", "entry": "k"})"), &r).error_code(),
            grpc::StatusCode::DEADLINE_EXCEEDED);
  grpc::ClientContext get_ctx;
  v1::GetKernelRequest get;
  get.set_handle("tj1_" + std::string(64, '0'));
  v1::GetKernelResponse kernel;
  EXPECT_EQ(stub_->GetKernel(&get_ctx, get, &kernel).error_code(), grpc::StatusCode::NOT_FOUND);
  grpc::ClientContext bad_ctx;
  get.set_handle("garbage");
  grpc::Status bad = stub_->GetKernel(&bad_ctx, get, &kernel);
  EXPECT_EQ(bad.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(bad.error_message().find("malformed handle"), std::string::npos);
}

TEST_F(GrpcTest, UndecodableRequestIsInvalidArgumentWithMessage) {
  // CompileRequest{source: "\xff\xfe", entry: "k"} as raw bytes: invalid UTF-8 in a string.
  const std::string bytes = std::string("\x0a\x02\xff\xfe", 4) + std::string("\x1a\x01k", 3);
  grpc::GenericStub stub(channel_);
  grpc::ClientContext ctx;
  grpc::CompletionQueue cq;
  grpc::Slice slice(bytes);
  auto call =
      stub.PrepareUnaryCall(&ctx, "/tilejit.v1.TileJit/Compile", grpc::ByteBuffer(&slice, 1), &cq);
  call->StartCall();
  grpc::ByteBuffer response;
  grpc::Status status;
  call->Finish(&response, &status, reinterpret_cast<void*>(1));
  void* tag = nullptr;
  bool ok = false;
  ASSERT_TRUE(cq.Next(&tag, &ok));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("UTF-8"), std::string::npos) << status.error_message();
}

TEST_F(GrpcTest, CompileStreamSendsQueuedPassesAndDone) {
  grpc::ClientContext ctx;
  auto reader = stub_->CompileStream(
      &ctx,
      JsonRequest(R"({"source": ")" + std::string("def k():\\n  pass\\n") + R"(", "entry": "k"})"));
  std::vector<v1::CompileEvent> events;
  v1::CompileEvent e;
  while (reader->Read(&e)) events.push_back(e);
  ASSERT_TRUE(reader->Finish().ok());
  ASSERT_EQ(events.size(), 3u);
  EXPECT_TRUE(events[0].has_queued());
  EXPECT_EQ(events[1].pass().pass(), "fake_lower");
  ASSERT_TRUE(events[2].has_done());
  EXPECT_TRUE(events[2].done().ok());
}

// Tune streams each candidate's stages, then the decision; a repeat is the cached decision.
TEST_F(GrpcTest, TuneStreamsCandidatesThenTheDecision) {
  v1::TuneRequest req;
  *req.mutable_kernel() =
      JsonRequest(R"({"source": ")" + std::string("def k():\\n  pass\\n") + R"(", "entry": "k"})");
  for (int64_t a : {1, 2}) {
    (*req.add_configs()->mutable_values())["a"].set_int_value(a);
  }
  auto run = [&](std::vector<v1::TuneEvent>* events) {
    grpc::ClientContext ctx;
    auto reader = stub_->Tune(&ctx, req);
    v1::TuneEvent e;
    while (reader->Read(&e)) events->push_back(e);
    return reader->Finish();
  };
  std::vector<v1::TuneEvent> events;
  ASSERT_TRUE(run(&events).ok());
  ASSERT_EQ(events.size(), 5u);  // compiled x2, measured x2, done
  int measured = 0;
  for (size_t i = 0; i + 1 < events.size(); ++i) {
    ASSERT_TRUE(events[i].has_candidate());
    measured += events[i].candidate().stage() == v1::TuneEvent::MEASURED;
  }
  EXPECT_EQ(measured, 2);
  const v1::TuneResponse& done = events.back().done();
  ASSERT_TRUE(done.ok()) << done.error();
  EXPECT_EQ(done.best(), 0);  // equal cycles and footprints: the first
  EXPECT_FALSE(done.from_cache());
  ASSERT_EQ(done.candidates_size(), 2);
  EXPECT_GT(done.candidates(0).cycles(), 0u);
  std::vector<v1::TuneEvent> again;
  ASSERT_TRUE(run(&again).ok());
  EXPECT_TRUE(again.back().done().from_cache());
  v1::StatsResponse stats;
  grpc::ClientContext sctx;
  ASSERT_TRUE(stub_->Stats(&sctx, v1::StatsRequest(), &stats).ok());
  EXPECT_EQ(stats.tune().at("simulations"), 2u);
  EXPECT_EQ(stats.tune().at("decisions_cached"), 1u);

  req.clear_configs();
  for (int i = 0; i < 257; ++i) (*req.add_configs()->mutable_values())["a"].set_int_value(i);
  std::vector<v1::TuneEvent> none;
  EXPECT_EQ(run(&none).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(GrpcTest, StatsAndExportImportOverTheWire) {
  v1::CompileResponse r;
  ASSERT_TRUE(Compile(JsonRequest(R"({"source": "def k(): pass\n", "entry": "k"})"), &r).ok());
  grpc::ClientContext sctx;
  v1::StatsResponse stats;
  ASSERT_TRUE(stub_->Stats(&sctx, v1::StatsRequest(), &stats).ok());
  EXPECT_EQ(stats.compiles(), 1u);
  EXPECT_EQ(stats.entries(), 1u);
  grpc::ClientContext ectx;
  v1::ExportResponse exported;
  ASSERT_TRUE(stub_->Export(&ectx, v1::ExportRequest(), &exported).ok());
  EXPECT_EQ(exported.count(), 1u);
  grpc::ClientContext ictx;
  v1::ImportRequest import;
  import.set_bundle(exported.bundle());
  v1::ImportResponse imported;
  ASSERT_TRUE(stub_->Import(&ictx, import, &imported).ok());
  EXPECT_EQ(imported.skipped(), 1u);
  grpc::ClientContext bctx;
  import.set_bundle("\xff\xff garbage");
  EXPECT_EQ(stub_->Import(&bctx, import, &imported).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(GrpcTest, MetricsEndpointServesPrometheusText) {
  v1::CompileResponse r;
  ASSERT_TRUE(Compile(JsonRequest(R"({"source": "def k(): pass\n", "entry": "k"})"), &r).ok());
  ASSERT_TRUE(Compile(JsonRequest(R"({"source": "def k(): pass\n", "entry": "k"})"), &r).ok());
  auto metrics = MetricsHttpServer::Start(&core_->metrics(), "127.0.0.1", 0);
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  httplib::Client client("127.0.0.1", (*metrics)->port());
  auto res = client.Get("/metrics");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  for (const char* needle :
       {"tilejit_requests_total{method=\"Compile\",code=\"OK\"} 2",
        "tilejit_phase_seconds_bucket{phase=\"frontend\"", "tilejit_phase_seconds_count",
        "tilejit_cache_hits_total{tier=\"memory\"} 1", "tilejit_single_flight_joins_total 0",
        "tilejit_cache_evictions_total", "tilejit_cache_corruptions_total",
        "tilejit_cache_write_failures_total", "tilejit_queue_depth"}) {
    EXPECT_NE(res->body.find(needle), std::string::npos) << needle;
  }
}

}  // namespace
}  // namespace tilejit::server
