// SPDX-License-Identifier: Apache-2.0
// tilejit::Client over real gRPC: a GrpcServer around a CompileService with the production
// compiler back end and an in-memory store, on a random loopback port (with a token file in
// ClientTokenTest).
#include "client/client.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/sha256.h"
#include "runner/sim/sim_device.h"
#include "server/auth.h"
#include "server/compiler_backend.h"
#include "server/grpc_server.h"

namespace tilejit::client {
namespace {

std::string ReadKernel(const std::string& name) {
  std::ifstream in(std::string(TILEJIT_TESTDATA_DIR) + "/kernels/" + name);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

v1::TypedValue Int(int64_t v) {
  v1::TypedValue t;
  t.set_int_value(v);
  return t;
}

KernelSpec GemmExpert() {
  KernelSpec spec;
  spec.source = ReadKernel("gemm_expert.py");
  spec.file_name = "gemm_expert.py";
  spec.entry = "matmul";
  for (int64_t a : {256, 512, 384, 128, 256, 64}) spec.args.push_back(Int(a));
  return spec;
}

class ClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    core_ = std::make_unique<server::CompileService>(
        server::ServiceOptions{}, server::NewCompilerBackend(),
        std::make_unique<server::MemoryKernelStore>(), runner::sim::SimDeviceFactory());
    server::GrpcServerOptions server_options;
    server_options.address = "127.0.0.1:0";
    auto server = server::GrpcServer::Start(core_.get(), server_options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(server).value();
    ClientOptions options;
    options.address = "127.0.0.1:" + std::to_string(server_->port());
    auto client = Client::Connect(options);
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = std::move(client).value();
  }
  void TearDown() override {
    client_.reset();
    server_.reset();
    core_.reset();
  }

  v1::CompileResponse CompileOk(const KernelSpec& spec, bool binary = false) {
    v1::CompileRequest req = BuildCompileRequest(spec);
    req.set_include_binary(binary);
    Result<v1::CompileResponse> r = client_->Compile(req);
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok()) return {};
    EXPECT_TRUE(r->ok()) << r->error();
    return *r;
  }

  std::unique_ptr<server::CompileService> core_;
  std::unique_ptr<server::GrpcServer> server_;
  std::unique_ptr<Client> client_;
};

TEST_F(ClientTest, CompilesAndGetKernelReturnsTheSameBytes) {
  v1::CompileResponse r = CompileOk(GemmExpert(), /*binary=*/true);
  EXPECT_EQ(r.handle(), "tj1_" + r.key());
  EXPECT_EQ(r.tier(), "compiled");
  ASSERT_FALSE(r.binary().empty());
  Result<v1::GetKernelResponse> k = client_->GetKernel(r.handle());
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->binary(), r.binary());
  Result<v1::GetKernelResponse> meta = client_->GetKernel(r.handle(), /*metadata_only=*/true);
  ASSERT_TRUE(meta.ok()) << meta.status();
  EXPECT_TRUE(meta->binary().empty());
  EXPECT_EQ(meta->metadata().cache_key(), r.key());
}

TEST_F(ClientTest, TypedIntAndFloatArgumentsAreDifferentRequests) {
  v1::CompileResponse as_int = CompileOk(GemmExpert());
  KernelSpec spec = GemmExpert();
  spec.args[5].set_float_value(64.0);
  Result<v1::CompileResponse> as_float = client_->Compile(BuildCompileRequest(spec));
  ASSERT_TRUE(as_float.ok()) << as_float.status();
  EXPECT_NE(as_float->request_digest(), as_int.request_digest());
}

TEST_F(ClientTest, KernelErrorsArriveAsResponseWithLocatedDiagnostics) {
  KernelSpec spec = GemmExpert();
  spec.source.replace(spec.source.find("T.gemm_v0("), 10, "T.gemm_v9(");
  Result<v1::CompileResponse> r = client_->Compile(BuildCompileRequest(spec));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->ok());
  ASSERT_GT(r->diagnostics_size(), 0);
  EXPECT_EQ(r->diagnostics(0).file(), "gemm_expert.py");
  EXPECT_GT(r->diagnostics(0).line(), 0u);
}

TEST_F(ClientTest, MapsUnknownAndMalformedHandles) {
  EXPECT_EQ(client_->GetKernel("tj1_" + std::string(64, '0')).status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(client_->GetKernel("not-a-handle").status().code(), StatusCode::kInvalidArgument);
}

TEST_F(ClientTest, HealthIsServing) {
  Result<ServingStatus> s = client_->Health();
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, ServingStatus::kServing);
}

TEST_F(ClientTest, LaunchReturnsOutputs) {
  KernelSpec spec;
  spec.source = ReadKernel("elementwise_add_expert.py");
  spec.entry = "vec_add";
  for (int64_t a : {64, 64, 32, 32}) spec.args.push_back(Int(a));
  v1::CompileResponse c = CompileOk(spec);
  v1::LaunchRequest req;
  req.set_request_digest(c.request_digest());
  req.set_check_mode("checked");
  for (float value : {1.0f, 2.0f}) {
    v1::Tensor* t = req.add_inputs();
    t->set_dtype("float32");
    t->add_shape(64);
    t->add_shape(64);
    std::vector<float> data(64 * 64, value);
    t->set_data(data.data(), data.size() * sizeof(float));
  }
  Result<v1::LaunchResponse> r = client_->Launch(req);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->ok()) << r->error();
  ASSERT_EQ(r->outputs_size(), 1);
  const std::string& bytes = r->outputs(0).data();
  ASSERT_EQ(bytes.size(), 64u * 64u * sizeof(float));
  std::vector<float> out(64 * 64);
  std::memcpy(out.data(), bytes.data(), bytes.size());
  for (float v : out) ASSERT_EQ(v, 3.0f);
}

TEST_F(ClientTest, AdminPinExportEvictImportRoundTrip) {
  const std::string handle = CompileOk(GemmExpert()).handle();
  ASSERT_TRUE(client_->Pin(handle).ok());
  Result<v1::ListResponse> list = client_->List();
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->entries_size(), 1);
  EXPECT_TRUE(list->entries(0).pinned());
  ASSERT_TRUE(client_->Unpin(handle).ok());
  Result<v1::ExportResponse> bundle = client_->Export({handle});
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_EQ(bundle->count(), 1u);
  Result<uint32_t> evicted = client_->Evict({handle});
  ASSERT_TRUE(evicted.ok()) << evicted.status();
  EXPECT_EQ(*evicted, 1u);
  EXPECT_EQ(client_->GetKernel(handle).status().code(), StatusCode::kNotFound);
  Result<v1::ImportResponse> imported = client_->Import(bundle->bundle());
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->imported(), 1u);
  EXPECT_TRUE(client_->GetKernel(handle).ok());
  Result<v1::StatsResponse> stats = client_->Stats();
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->entries(), 1u);
}

TEST(ClientConnect, UnreachableDaemonIsUnavailableNamingTheAddress) {
  ClientOptions options;
  options.address = "127.0.0.1:1";
  options.deadline = std::chrono::seconds(20);
  auto client = Client::Connect(options);
  ASSERT_TRUE(client.ok());
  Status st = (*client)->Health().status();
  EXPECT_EQ(st.code(), StatusCode::kUnavailable) << st;
  EXPECT_NE(st.message().find("127.0.0.1:1"), std::string::npos) << st;
}

// A daemon with tokens: the client's token goes with every call, health included.
class ClientTokenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("tilejit_client_tokens_" + std::to_string(getpid()) + ".txt"))
                .string();
    std::ofstream(path_) << "compile " << Sha256Hex("build") << " ci\n"
                         << "admin " << Sha256Hex("ops") << " oncall\n";
    auto tokens = server::TokenStore::Open(path_);
    ASSERT_TRUE(tokens.ok()) << tokens.status();
    tokens_ = std::move(tokens).value();
    core_ = std::make_unique<server::CompileService>(
        server::ServiceOptions{}, server::NewCompilerBackend(),
        std::make_unique<server::MemoryKernelStore>(), runner::sim::SimDeviceFactory());
    server::GrpcServerOptions options;
    options.address = "127.0.0.1:0";
    options.tokens = tokens_.get();
    options.auth_health = true;
    auto server = server::GrpcServer::Start(core_.get(), options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(server).value();
  }
  void TearDown() override {
    server_.reset();
    core_.reset();
    std::filesystem::remove(path_);
  }
  std::unique_ptr<Client> Connect(const std::string& token) {
    ClientOptions options;
    options.address = "127.0.0.1:" + std::to_string(server_->port());
    options.token = token;
    auto client = Client::Connect(options);
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? std::move(client).value() : nullptr;
  }

  std::string path_;
  std::unique_ptr<server::TokenStore> tokens_;
  std::unique_ptr<server::CompileService> core_;
  std::unique_ptr<server::GrpcServer> server_;
};

TEST_F(ClientTokenTest, SendsItsTokenWithEveryCall) {
  std::unique_ptr<Client> ops = Connect("ops");
  ASSERT_TRUE(ops->Health().ok());
  Result<v1::CompileResponse> r = ops->Compile(BuildCompileRequest(GemmExpert()));
  ASSERT_TRUE(r.ok()) << r.status();
  Result<uint32_t> evicted = ops->Evict({r->handle()});
  ASSERT_TRUE(evicted.ok()) << evicted.status();
  EXPECT_EQ(*evicted, 1u);
}

TEST_F(ClientTokenTest, RefusedTokensAreUnauthenticatedOrPermissionDenied) {
  const Status none = Connect("")->Stats().status();
  EXPECT_EQ(none.code(), StatusCode::kUnauthenticated) << none;
  EXPECT_EQ(Connect("")->Health().status().code(), StatusCode::kUnauthenticated);
  const Status low = Connect("build")->Evict({"tj1_" + std::string(64, '0')}).status();
  EXPECT_EQ(low.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(low.message(), "Evict needs the admin role; token 'ci' has the compile role");
}

TEST(ClientConnect, RefusesATokenThatCannotBeAHeaderAndUnreadableTlsFiles) {
  ClientOptions options;
  options.token = "two words";
  EXPECT_EQ(Client::Connect(options).status().code(), StatusCode::kInvalidArgument);
  options.token = "ok";
  options.tls.ca = "/nonexistent/ca.pem";
  Status st = Client::Connect(options).status();
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("/nonexistent/ca.pem"), std::string::npos) << st;
}

TEST(ClientConnect, RefusesAnEmptyAddress) {
  ClientOptions options;
  options.address = "";
  EXPECT_EQ(Client::Connect(options).status().code(), StatusCode::kInvalidArgument);
}

TEST(StatusFromGrpc, MapsEveryDocumentedCode) {
  auto code = [](grpc::StatusCode c) { return StatusFromGrpc(grpc::Status(c, "m")).code(); };
  EXPECT_EQ(code(grpc::StatusCode::OK), StatusCode::kOk);
  EXPECT_EQ(code(grpc::StatusCode::INVALID_ARGUMENT), StatusCode::kInvalidArgument);
  EXPECT_EQ(code(grpc::StatusCode::NOT_FOUND), StatusCode::kNotFound);
  EXPECT_EQ(code(grpc::StatusCode::RESOURCE_EXHAUSTED), StatusCode::kResourceExhausted);
  EXPECT_EQ(code(grpc::StatusCode::DEADLINE_EXCEEDED), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(code(grpc::StatusCode::UNAVAILABLE), StatusCode::kUnavailable);
  EXPECT_EQ(code(grpc::StatusCode::INTERNAL), StatusCode::kInternal);
  EXPECT_EQ(code(grpc::StatusCode::UNAUTHENTICATED), StatusCode::kUnauthenticated);
  EXPECT_EQ(code(grpc::StatusCode::PERMISSION_DENIED), StatusCode::kPermissionDenied);
  EXPECT_EQ(StatusFromGrpc(grpc::Status(grpc::StatusCode::NOT_FOUND, "no such")).message(),
            "no such");
}

TEST(ChannelTargetFor, OneAddressAsIsListsAndDnsBalanced) {
  auto target = [](const std::string& address) {
    Result<ChannelTarget> t = ChannelTargetFor(address);
    EXPECT_TRUE(t.ok()) << address << ": " << t.status();
    return t.ok() ? *t : ChannelTarget{};
  };
  EXPECT_EQ(target("localhost:50051").target, "localhost:50051");
  EXPECT_FALSE(target("localhost:50051").round_robin);
  EXPECT_FALSE(target("unix:/run/tilejitd.sock").round_robin);
  EXPECT_EQ(target("dns:///tilejitd.ns.svc:50051").target, "dns:///tilejitd.ns.svc:50051");
  EXPECT_TRUE(target("dns:///tilejitd.ns.svc:50051").round_robin);
  ChannelTarget list = target("10.0.0.1:50051,10.0.0.2:50051");
  EXPECT_EQ(list.target, "ipv4:10.0.0.1:50051,10.0.0.2:50051");
  EXPECT_TRUE(list.round_robin);
  EXPECT_EQ(target("[::1]:1,[fe80::2]:2").target, "ipv6:[::1]:1,[fe80::2]:2");
}

TEST(ChannelTargetFor, RefusesListsItCannotResolveNamingTheEntry) {
  for (const char* bad :
       {"", "host-a:1,host-b:2", "10.0.0.1:1,[::1]:2", "10.0.0.1:1,", "10.0.0.1,10.0.0.2:1",
        "10.0.0.1:x,10.0.0.2:1", "10.0.0.1:123456,1.2.3.4:1"}) {
    Result<ChannelTarget> t = ChannelTargetFor(bad);
    EXPECT_FALSE(t.ok()) << bad;
  }
  Result<ChannelTarget> named = ChannelTargetFor("10.0.0.1:1,host-b:2");
  ASSERT_FALSE(named.ok());
  EXPECT_NE(named.status().message().find("'host-b:2'"), std::string::npos);
  EXPECT_NE(named.status().message().find("dns:///"), std::string::npos);
  std::string many;
  for (size_t i = 0; i <= kMaxDaemonAddresses; ++i)
    many += (i ? "," : "") + std::string("1.2.3.4:1");
  EXPECT_FALSE(ChannelTargetFor(many).ok());
}

// Two daemons behind one address list: calls from one client reach both.
TEST(ClientBalancing, AnAddressListSpreadsCallsOverEveryDaemon) {
  struct Node {
    std::unique_ptr<server::CompileService> core;
    std::unique_ptr<server::GrpcServer> server;
  };
  std::vector<Node> nodes(2);
  std::string address;
  for (Node& n : nodes) {
    n.core = std::make_unique<server::CompileService>(
        server::ServiceOptions{}, server::NewCompilerBackend(),
        std::make_unique<server::MemoryKernelStore>(), runner::sim::SimDeviceFactory());
    server::GrpcServerOptions options;
    options.address = "127.0.0.1:0";
    auto server = server::GrpcServer::Start(n.core.get(), options);
    ASSERT_TRUE(server.ok()) << server.status();
    n.server = std::move(server).value();
    address +=
        (address.empty() ? "" : ",") + std::string("127.0.0.1:") + std::to_string(n.server->port());
  }
  ClientOptions options;
  options.address = address;
  auto client = Client::Connect(options);
  ASSERT_TRUE(client.ok()) << client.status();
  for (int i = 0; i < 16; ++i) ASSERT_TRUE((*client)->Stats().ok());
  for (Node& n : nodes) {
    const std::string metrics = n.core->metrics().Render();
    EXPECT_NE(metrics.find("tilejit_requests_total{method=\"Stats\",code=\"OK\"}"),
              std::string::npos)
        << "a daemon of the list got no call";
  }
  client->reset();
  for (Node& n : nodes) n.server.reset();
}

}  // namespace
}  // namespace tilejit::client
