// SPDX-License-Identifier: Apache-2.0
// The service over the real compiler: the production backend's Specialize on a shared
// kernel, and whole compiles through CompileService, which either succeed or come back as a
// located compile-error reply (never a failed call), whatever state the back end is in.
#include "server/compiler_backend.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "runner/sim/sim_device.h"
#include "server/service.h"

namespace tilejit::server {
namespace {

std::string ReadKernel(const std::string& name) {
  std::ifstream in(std::string(TILEJIT_TESTDATA_DIR) + "/kernels/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

frontend::FrontendRequest VecAdd(std::string source) {
  frontend::FrontendRequest r;
  r.source = std::move(source);
  r.file_name = "elementwise_add_expert.py";
  r.entry = "vec_add";
  for (int64_t a : {512, 1024, 64, 256}) r.args.push_back(frontend::Value::Int(a));
  return r;
}

TEST(CompilerBackend, SourcesDifferingInCommentsShareKeyButNotSourceMap) {
  std::unique_ptr<CompilerBackend> backend = NewCompilerBackend();
  const std::string source = ReadKernel("elementwise_add_expert.py");
  ASSERT_FALSE(source.empty());
  SpecializeOutcome a = backend->Specialize(VecAdd(source));
  SpecializeOutcome b = backend->Specialize(VecAdd("# one\n# two\n# three\n" + source));
  ASSERT_TRUE(a.status.ok()) << a.status;
  ASSERT_TRUE(b.status.ok()) << b.status;
  EXPECT_EQ(a.key, b.key);
  ASSERT_EQ(a.source_map.size(), b.source_map.size());
  ASSERT_FALSE(a.source_map.empty());
  for (size_t i = 0; i < a.source_map.size(); ++i) {
    if (a.source_map[i].line == 0) continue;
    EXPECT_EQ(b.source_map[i].line, a.source_map[i].line + 3) << "statement " << i;
  }
  EXPECT_FALSE(backend->Fingerprint().empty());
}

TEST(CompilerBackend, FrontendErrorsAreLocatedInTheRequestsFile) {
  std::unique_ptr<CompilerBackend> backend = NewCompilerBackend();
  frontend::FrontendRequest r = VecAdd("import tilelang\n\ndef vec_add(M, N, bm, bn:\n  pass\n");
  SpecializeOutcome out = backend->Specialize(r);
  ASSERT_EQ(out.status.code(), StatusCode::kCompileError);
  ASSERT_FALSE(out.diagnostics.empty());
  EXPECT_EQ(out.diagnostics[0].file, "elementwise_add_expert.py");
  EXPECT_GT(out.diagnostics[0].line, 0u);
  EXPECT_NE(out.diagnostics[0].rendered.find("elementwise_add_expert.py:"), std::string::npos);
}

TEST(CompilerBackend, ServiceCompileIsAKernelOrALocatedError) {
  CompileService service(ServiceOptions{}, NewCompilerBackend(),
                         std::make_unique<MemoryKernelStore>(), runner::sim::SimDeviceFactory());
  Result<CompileReply> r = service.Compile(VecAdd(ReadKernel("elementwise_add_expert.py")), {}, {});
  ASSERT_TRUE(r.ok()) << r.status();
  if (r->ok) {
    EXPECT_EQ(r->tier, "compiled");
    EXPECT_TRUE(r->metadata.cache_key.empty() || r->metadata.cache_key == r->key);
    Result<CompileReply> hit =
        service.Compile(VecAdd(ReadKernel("elementwise_add_expert.py")), {}, {});
    ASSERT_TRUE(hit.ok());
    EXPECT_EQ(hit->tier, "memory");
  } else {
    EXPECT_FALSE(r->error.empty());
  }
}

}  // namespace
}  // namespace tilejit::server
