// SPDX-License-Identifier: Apache-2.0
// The service over the real compiler: the production backend's Specialize on a shared
// kernel, and whole compiles through CompileService, which either succeed or come back as a
// located compile-error reply (never a failed call), whatever state the back end is in.
#include "server/compiler_backend.h"

#include <gtest/gtest.h>

#include <algorithm>
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

// The vec_add prim_func as the Python package ships it: the factory's closure values, the
// position of `def main`.
frontend::FrontendRequest ShippedVecAdd(int64_t n) {
  frontend::FrontendRequest r;
  r.format = frontend::SourceFormat::kPrimFunc;
  const std::string text = ReadKernel("elementwise_add_expert.py");
  r.files.push_back({"elementwise_add_expert.py", text});
  frontend::ClientFunction main;
  const size_t at = text.find("def main(");
  main.line = 1 + static_cast<uint32_t>(std::count(text.begin(), text.begin() + at, '\n'));
  main.column = static_cast<uint32_t>(at - text.rfind('\n', at));
  main.qualname = "vec_add.<locals>.main";
  main.kind = frontend::FunctionKind::kPrimFunc;
  auto constant = [](frontend::Value v) {
    frontend::ClientValue c;
    c.constant = std::move(v);
    return c;
  };
  frontend::ClientValue t;
  t.kind = frontend::ClientValue::Kind::kModule;
  t.name = "tilelang.language";
  main.closure = {{"M", constant(frontend::Value::Int(512))},
                  {"N", constant(frontend::Value::Int(n))},
                  {"block_M", constant(frontend::Value::Int(64))},
                  {"block_N", constant(frontend::Value::Int(256))},
                  {"dtype", constant(frontend::Value::Str("float"))},
                  {"m_num", constant(frontend::Value::Int(512 / 64))},
                  {"n_num", constant(frontend::Value::Int(n / 256))},
                  {"sub_M", constant(frontend::Value::Int(32))},
                  {"T", t}};
  r.functions.push_back(main);
  r.out_idx = std::vector<int>{-1};
  return r;
}

TEST(CompilerBackend, ShippedPrimFuncsCompileToTheFactorysKernelAndKeepTheirDigest) {
  CompileService service(ServiceOptions{}, NewCompilerBackend(),
                         std::make_unique<MemoryKernelStore>(), runner::sim::SimDeviceFactory());
  Result<CompileReply> factory =
      service.Compile(VecAdd(ReadKernel("elementwise_add_expert.py")), {}, {});
  ASSERT_TRUE(factory.ok() && factory->ok) << factory.status() << factory->error;
  Result<CompileReply> shipped = service.Compile(ShippedVecAdd(1024), {}, {});
  ASSERT_TRUE(shipped.ok() && shipped->ok) << shipped.status() << shipped->error;
  EXPECT_EQ(shipped->key, factory->key);  // one canonical IR, one kernel
  EXPECT_EQ(shipped->tier, "memory");
  EXPECT_NE(shipped->request_digest, factory->request_digest);
  Result<CompileReply> other = service.Compile(ShippedVecAdd(512), {}, {});
  ASSERT_TRUE(other.ok() && other->ok) << other->error;
  EXPECT_NE(other->key, shipped->key);  // a closure value changed: another kernel
  EXPECT_NE(other->request_digest, shipped->request_digest);
}

TEST(CompilerBackend, PrintAfterReturnsTheIrAfterEachPassWithoutCaching) {
  CompileService service(ServiceOptions{}, NewCompilerBackend(),
                         std::make_unique<MemoryKernelStore>(), runner::sim::SimDeviceFactory());
  CompileOptions options;
  options.print_after = {"legalize_copies", "memory_planning"};
  Result<CompileReply> r = service.Compile(ShippedVecAdd(1024), options, {});
  ASSERT_TRUE(r.ok() && r->ok) << r.status();
  ASSERT_EQ(r->ir_dumps.size(), 2u);
  EXPECT_EQ(r->ir_dumps[0].first, "legalize_copies");
  EXPECT_EQ(r->ir_dumps[1].first, "memory_planning");
  EXPECT_NE(r->ir_dumps[1].second.find(" @"), std::string::npos);  // placed addresses
  options.print_after = {"no_such_pass"};
  EXPECT_EQ(service.Compile(ShippedVecAdd(1024), options, {}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(service.Stats().compiles, 1u);  // the dumps' lowerings are not compiles
}

// The racy vector add with its body in a macro of a second file: the statements the race
// detector names are in helpers.py.
frontend::FrontendRequest ShippedRacyMacro() {
  const std::string kernel =
      "import tilelang.language as T\n"
      "from helpers import add_rows\n"
      "def factory():\n"
      "    @T.prim_func\n"
      "    def main(A: T.Tensor((64, 128), \"float\"), B: T.Tensor((64, 128), \"float\"),\n"
      "             C: T.Tensor((64, 128), \"float\")):\n"
      "        with T.Kernel(1, is_npu=True) as (cid, vid):\n"
      "            add_rows(A, B, C, vid * 32)\n"
      "    return main\n";
  const std::string helpers =
      "import tilelang.language as T\n"
      "@T.macro\n"
      "def add_rows(A, B, C, row):\n"
      "    a = T.alloc_ub((32, 128), \"float\")\n"
      "    b = T.alloc_ub((32, 128), \"float\")\n"
      "    with T.Scope(\"V\"):\n"
      "        T.copy(A[row, 0], a)\n"
      "        T.copy(B[row, 0], b)\n"
      "        T.tile.add(a, a, b)\n"
      "        T.copy(a, C[row, 0])\n";
  frontend::FrontendRequest r;
  r.format = frontend::SourceFormat::kPrimFunc;
  r.files = {{"kernel.py", kernel}, {"helpers.py", helpers}};
  frontend::ClientValue t;
  t.kind = frontend::ClientValue::Kind::kModule;
  t.name = "tilelang.language";
  frontend::ClientValue macro;
  macro.kind = frontend::ClientValue::Kind::kFunction;
  macro.function = 1;
  frontend::ClientFunction main;
  main.line = 5;
  main.column = 5;
  main.qualname = "factory.<locals>.main";
  main.kind = frontend::FunctionKind::kPrimFunc;
  main.closure = {{"T", t}, {"add_rows", macro}};
  frontend::ClientFunction add_rows;
  add_rows.file = 1;
  add_rows.line = 3;
  add_rows.column = 1;
  add_rows.qualname = "add_rows";
  add_rows.kind = frontend::FunctionKind::kMacro;
  add_rows.closure = {{"T", t}};
  r.functions = {main, add_rows};
  r.out_idx = std::vector<int>{-1};
  return r;
}

TEST(CompilerBackend, SourceMapsOfShippedPrimFuncsNameEveryFileAndLocateFindings) {
  CompileService service(ServiceOptions{}, NewCompilerBackend(),
                         std::make_unique<MemoryKernelStore>(), runner::sim::SimDeviceFactory());
  CompileOptions options;
  options.include_source_map = true;
  Result<CompileReply> r = service.Compile(ShippedRacyMacro(), options, {});
  ASSERT_TRUE(r.ok() && r->ok) << r.status() << r->error;
  ASSERT_FALSE(r->source_map.empty());
  bool in_helpers = false;
  for (const SourcePos& p : r->source_map) {
    EXPECT_LT(p.file, 2u);
    in_helpers = in_helpers || (p.file == 1 && p.line == 9);  // T.tile.add
  }
  EXPECT_TRUE(in_helpers);
  // A memo hit returns the same map; without the option, none.
  Result<CompileReply> hit = service.Compile(ShippedRacyMacro(), options, {});
  ASSERT_TRUE(hit.ok() && hit->ok);
  EXPECT_EQ(hit->tier, "memory");
  ASSERT_EQ(hit->source_map.size(), r->source_map.size());
  for (size_t i = 0; i < r->source_map.size(); ++i) {
    EXPECT_EQ(hit->source_map[i].file, r->source_map[i].file);
    EXPECT_EQ(hit->source_map[i].line, r->source_map[i].line);
  }
  EXPECT_TRUE(service.Compile(ShippedRacyMacro(), {}, {})->source_map.empty());

  LaunchCall call;
  call.request_digest = r->request_digest;
  for (int i = 0; i < 2; ++i) {
    call.inputs.push_back(runner::NpyArray{
        target::ElementType::kFloat32, {64, 128}, std::vector<uint8_t>(64 * 128 * 4, 0)});
  }
  Result<LaunchReply> launched = service.Launch(call, {});
  ASSERT_TRUE(launched.ok()) << launched.status();
  EXPECT_FALSE(launched->ok);
  bool located = false;
  for (const runner::Finding& f : launched->report.findings) {
    located = located || f.message.find("helpers.py:") != std::string::npos;
    EXPECT_EQ(f.message.find("kernel.py:9:"), std::string::npos) << f.message;
  }
  EXPECT_TRUE(located);
}

}  // namespace
}  // namespace tilejit::server
