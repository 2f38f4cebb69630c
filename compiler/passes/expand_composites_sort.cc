// SPDX-License-Identifier: Apache-2.0
// Why the sort scratch is made here and not by codegen: as an ordinary Allocate, memory
// planning places and capacity-checks it, and sync_insert sees the op write it. Every sort's
// scratch is compiler scratch (compiler_made), so memory planning gives all of them one
// offset: the ops run one after another on the vector pipe and use their scratch only while
// they run.
#include <string>
#include <vector>

#include "compiler/ir/mutator.h"
#include "compiler/passes/expand_composites_internal.h"

namespace tilejit::passes {
namespace {

class SortScratch : public ir::Mutator {
 public:
  explicit SortScratch(PassContext& ctx) : ctx_(ctx) {}

 protected:
  ir::Stmt MutateKernelStmt(const ir::Stmt& s, const ir::KernelNode& op) override {
    ir::Stmt body = ir::Mutator::MutateKernelStmt(s, op);  // fills allocs_
    ir::Stmt out = PrependAllocs(body, std::move(allocs_));
    allocs_.clear();
    return out;
  }

  ir::Stmt MutateTileOp(const ir::Stmt& s, const ir::TileOpNode& op) override {
    const int64_t elements = ir::SortScratchElements(op);
    if (elements == 0 || ir::SortScratch(op)) return s;
    const auto& dst = std::get<ir::Region>(op.args[0]);
    if (dst.buffer->scope != ir::MemScope::kUB) {
      ctx_.diag->Error(op.loc) << ir::TileOpName(op.op) << " works on UB buffers; the destination '"
                               << dst.buffer->name << "' is in "
                               << ir::MemScopeName(dst.buffer->scope);
      return s;
    }
    ir::BufferNode b;
    b.name = std::string(ir::TileOpName(op.op)) + "_tmp";
    b.shape = {elements};
    b.dtype = ir::DType::kFloat32;
    b.scope = ir::MemScope::kUB;
    b.compiler_made = true;
    b.loc = op.loc;
    ir::Buffer scratch = ir::MakeBuffer(b);
    allocs_.push_back(std::make_shared<ir::AllocateNode>(scratch, op.loc));
    ctx_.Count("sort_scratch_bytes", elements * 4);
    std::vector<ir::Operand> args = op.args;
    args.push_back(ir::WholeBuffer(scratch, op.loc));
    return ir::MakeTileOp(op.op, std::move(args), op.attrs, op.loc);
  }

 private:
  PassContext& ctx_;
  std::vector<ir::Stmt> allocs_;
};

}  // namespace

Result<ir::Kernel> AttachSortScratch(const ir::Kernel& kernel, PassContext& ctx) {
  ir::Kernel out = SortScratch(ctx).MutateKernel(kernel);
  if (ctx.diag->has_errors()) return ctx.diag->ToStatus();
  return out;
}

}  // namespace tilejit::passes
