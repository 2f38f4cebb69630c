// SPDX-License-Identifier: Apache-2.0
// Bearer tokens over real gRPC: an in-process server with a token file on a random loopback
// port (fake compiler back end). Every method of tilejit.v1.TileJit, read from its generated
// descriptor, has a role and refuses calls without a token; each role may call exactly what
// kMethodRoles allows; health and reflection are open unless auth_health; admin calls are
// logged with the token's name and the peer.
#include <google/protobuf/descriptor.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "grpc/health/v1/health.grpc.pb.h"
#include "runner/sim/sim_device.h"
#include "server/grpc_server.h"
#include "tests/server/fake_backend.h"
#include "tilejit/v1/tilejit.grpc.pb.h"

namespace tilejit::server {
namespace {

const google::protobuf::ServiceDescriptor& TileJitDescriptor() {
  const auto* s = google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
      v1::TileJit::service_full_name());
  EXPECT_NE(s, nullptr);
  return *s;
}

// The role tokens of the test's token file, by role.
const std::pair<Role, const char*> kRoleTokens[] = {{Role::kRead, "reader-secret"},
                                                    {Role::kCompile, "builder-secret"},
                                                    {Role::kAdmin, "ops-secret"}};

TEST(MethodRoles, EveryTileJitMethodHasARowAndEveryRowIsAMethod) {
  const google::protobuf::ServiceDescriptor& service = TileJitDescriptor();
  EXPECT_TRUE(MethodsWithoutRole().empty());
  for (int i = 0; i < service.method_count(); ++i) {
    EXPECT_TRUE(RequiredRole(service.method(i)->name()).has_value()) << service.method(i)->name();
  }
  for (const MethodRole& row : kMethodRoles) {
    EXPECT_NE(service.FindMethodByName(std::string(row.method)), nullptr)
        << row.method << " is not an RPC of " << service.full_name();
  }
  EXPECT_EQ(std::size(kMethodRoles), static_cast<size_t>(service.method_count()));
}

class AuthServerTest : public ::testing::Test {
 protected:
  void TearDown() override {
    server_.reset();
    core_.reset();
    std::filesystem::remove(token_path_);
  }

  void Start(bool auth_health) {
    token_path_ = (std::filesystem::temp_directory_path() /
                   ("tilejit_grpc_auth_" + std::to_string(getpid()) + ".txt"))
                      .string();
    std::ofstream out(token_path_);
    const char* names[] = {"reader", "builder", "ops"};
    for (int i = 0; i < 3; ++i) {
      out << RoleName(kRoleTokens[i].first) << " " << Sha256Hex(kRoleTokens[i].second) << " "
          << names[i] << "\n";
    }
    out.close();
    auto tokens = TokenStore::Open(token_path_);
    ASSERT_TRUE(tokens.ok()) << tokens.status();
    tokens_ = std::move(tokens).value();
    core_ = std::make_unique<CompileService>(
        ServiceOptions{}, std::make_unique<testing::FakeBackend>(&counters_),
        std::make_unique<MemoryKernelStore>(), runner::sim::SimDeviceFactory());
    GrpcServerOptions options;
    options.address = "127.0.0.1:0";
    options.tokens = tokens_.get();
    options.auth_health = auth_health;
    auto server = GrpcServer::Start(core_.get(), options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(server).value();
    channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(server_->port()),
                                   grpc::InsecureChannelCredentials());
  }

  static void Authorize(grpc::ClientContext* ctx, const std::string& token) {
    if (!token.empty()) ctx->AddMetadata("authorization", "Bearer " + token);
  }

  // One call of `path` ("/pkg.Service/Method") with an empty request message.
  grpc::Status Call(const std::string& path, const std::string& token) {
    grpc::GenericStub stub(channel_);
    grpc::ClientContext ctx;
    Authorize(&ctx, token);
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    grpc::CompletionQueue cq;
    grpc::Slice empty("");
    auto call = stub.PrepareUnaryCall(&ctx, path, grpc::ByteBuffer(&empty, 1), &cq);
    call->StartCall();
    grpc::ByteBuffer response;
    grpc::Status status;
    call->Finish(&response, &status, reinterpret_cast<void*>(1));
    void* tag = nullptr;
    bool ok = false;
    EXPECT_TRUE(cq.Next(&tag, &ok));
    return status;
  }

  grpc::Status CallTileJit(const std::string& method, const std::string& token) {
    return Call("/" + std::string(v1::TileJit::service_full_name()) + "/" + method, token);
  }

  // A list_services exchange on reflection; its final status (`*replied`: a reply arrived).
  grpc::Status Reflect(const std::string& token, bool* replied) {
    grpc::GenericStub stub(channel_);
    grpc::ClientContext ctx;
    Authorize(&ctx, token);
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    grpc::CompletionQueue cq;
    auto step = [&cq] {
      void* tag = nullptr;
      bool ok = false;
      EXPECT_TRUE(cq.Next(&tag, &ok));
      return ok;
    };
    auto call = stub.PrepareCall(
        &ctx, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", &cq);
    call->StartCall(reinterpret_cast<void*>(1));
    step();
    grpc::Slice list_services(std::string("\x3a\x00", 2));
    call->Write(grpc::ByteBuffer(&list_services, 1), reinterpret_cast<void*>(2));
    step();
    grpc::ByteBuffer reply;
    call->Read(&reply, reinterpret_cast<void*>(3));
    *replied = step();
    call->WritesDone(reinterpret_cast<void*>(4));
    step();
    grpc::Status status;
    call->Finish(&status, reinterpret_cast<void*>(5));
    step();
    return status;
  }

  grpc::Status Health(const std::string& token) {
    auto health = grpc::health::v1::Health::NewStub(channel_);
    grpc::ClientContext ctx;
    Authorize(&ctx, token);
    grpc::health::v1::HealthCheckResponse response;
    return health->Check(&ctx, grpc::health::v1::HealthCheckRequest(), &response);
  }

  testing::FakeBackend::Counters counters_;
  std::string token_path_;
  std::unique_ptr<TokenStore> tokens_;
  std::unique_ptr<CompileService> core_;
  std::unique_ptr<GrpcServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
};

TEST_F(AuthServerTest, EveryMethodRefusesCallsWithoutAValidTokenAsUnauthenticated) {
  Start(false);
  const google::protobuf::ServiceDescriptor& service = TileJitDescriptor();
  for (int i = 0; i < service.method_count(); ++i) {
    const std::string method = service.method(i)->name();
    grpc::Status none = CallTileJit(method, "");
    EXPECT_EQ(none.error_code(), grpc::StatusCode::UNAUTHENTICATED) << method;
    EXPECT_NE(none.error_message().find("Bearer TOKEN"), std::string::npos) << method;
    EXPECT_EQ(CallTileJit(method, "not-a-token").error_code(), grpc::StatusCode::UNAUTHENTICATED)
        << method;
  }
  EXPECT_EQ(counters_.specialize.load(), 0);
}

TEST_F(AuthServerTest, EachRoleMayCallExactlyWhatItsRowsAllow) {
  Start(false);
  const google::protobuf::ServiceDescriptor& service = TileJitDescriptor();
  for (int i = 0; i < service.method_count(); ++i) {
    const std::string method = service.method(i)->name();
    const Role required = *RequiredRole(method);
    for (const auto& [role, token] : kRoleTokens) {
      const grpc::StatusCode code = CallTileJit(method, token).error_code();
      EXPECT_NE(code, grpc::StatusCode::UNAUTHENTICATED) << method << " " << token;
      EXPECT_EQ(code == grpc::StatusCode::PERMISSION_DENIED, role < required)
          << method << " with the " << RoleName(role) << " token: code " << code;
    }
  }
}

TEST_F(AuthServerTest, ReadCannotCompileCompileCannotEvictAdminCan) {
  Start(false);
  auto stub = v1::TileJit::NewStub(channel_);
  v1::CompileRequest compile;
  compile.set_source("def k(): pass\n");
  compile.set_entry("k");
  v1::CompileResponse compiled;
  grpc::ClientContext read_ctx;
  Authorize(&read_ctx, "reader-secret");
  const grpc::Status denied = stub->Compile(&read_ctx, compile, &compiled);
  EXPECT_EQ(denied.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(denied.error_message(),
            "Compile needs the compile role; token 'reader' has the read role");
  grpc::ClientContext compile_ctx;
  Authorize(&compile_ctx, "builder-secret");
  ASSERT_TRUE(stub->Compile(&compile_ctx, compile, &compiled).ok());
  ASSERT_TRUE(compiled.ok());

  v1::EvictRequest evict;
  evict.add_handles(compiled.handle());
  v1::EvictResponse evicted;
  grpc::ClientContext builder_evict;
  Authorize(&builder_evict, "builder-secret");
  EXPECT_EQ(stub->Evict(&builder_evict, evict, &evicted).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  grpc::ClientContext ops_evict;
  Authorize(&ops_evict, "ops-secret");
  ASSERT_TRUE(stub->Evict(&ops_evict, evict, &evicted).ok());
  EXPECT_EQ(evicted.evicted(), 1u);
}

TEST_F(AuthServerTest, HealthAndReflectionNeedNoTokenByDefault) {
  Start(false);
  EXPECT_TRUE(Health("").ok());
  bool replied = false;
  EXPECT_TRUE(Reflect("", &replied).ok());
  EXPECT_TRUE(replied);
}

TEST_F(AuthServerTest, AuthHealthMakesHealthAndReflectionNeedAToken) {
  Start(true);
  const grpc::Status health = Health("");
  EXPECT_EQ(health.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_NE(health.error_message().find("Bearer TOKEN"), std::string::npos);
  EXPECT_EQ(Health("not-a-token").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(Health("reader-secret").ok());
  bool replied = true;
  EXPECT_EQ(Reflect("", &replied).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_FALSE(replied);
  EXPECT_TRUE(Reflect("reader-secret", &replied).ok());
  EXPECT_TRUE(replied);
}

TEST_F(AuthServerTest, AdminCallsAreLoggedWithTheTokenNameAndThePeer) {
  Start(false);
  std::ostringstream log;
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>(
      "auth-test", std::make_shared<spdlog::sinks::ostream_sink_mt>(log)));
  EXPECT_TRUE(CallTileJit("Evict", "ops-secret").ok());
  EXPECT_EQ(CallTileJit("Pin", "builder-secret").error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(CallTileJit("Stats", "reader-secret").ok());
  spdlog::set_default_logger(previous);
  const std::string text = log.str();
  EXPECT_NE(text.find("admin call Evict by token 'ops' from ipv4:127.0.0.1:"), std::string::npos)
      << text;
  EXPECT_NE(text.find("admin call Pin by token 'builder' from ipv4:127.0.0.1:"), std::string::npos)
      << text;
  EXPECT_NE(text.find("refused: Pin needs the admin role"), std::string::npos) << text;
  EXPECT_EQ(text.find("Stats"), std::string::npos) << text;  // only admin calls
}

}  // namespace
}  // namespace tilejit::server
