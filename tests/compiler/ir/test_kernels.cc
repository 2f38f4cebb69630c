// SPDX-License-Identifier: Apache-2.0
#include "test_kernels.h"

#include <algorithm>
#include <limits>

namespace tilejit::ir::testing {

namespace {

using B = BinaryOp;

Expr I(int64_t v) { return IntImm(v); }
Expr F(double v) { return FloatImm(v); }
Expr V(const Var& v) { return Ref(v); }
Expr Bin(BinaryOp op, Expr a, Expr b) { return Binary(op, std::move(a), std::move(b)); }
Range R(Expr min, int64_t extent) { return Range{std::move(min), extent}; }
Range Full(int64_t extent) { return Range{IntImm(0), extent}; }
// Takes operands in TileLang's source order (copy(src, dst), gemm_v0(A, B, C),
// reduce(src, dst)) and builds the IR's destination-first order.
Stmt Op(TileOpCode op, std::vector<Operand> args, std::vector<Attr> attrs = {}) {
  switch (op) {
    case TileOpCode::kCopy:
    case TileOpCode::kReduceSum:
    case TileOpCode::kReduceMax:
    case TileOpCode::kReduceMin:
      std::swap(args[0], args[1]);
      break;
    case TileOpCode::kGemmV0:
    case TileOpCode::kMma:
      std::rotate(args.begin(), args.begin() + 2, args.end());
      break;
    default:
      break;
  }
  return MakeTileOp(op, std::move(args), std::move(attrs));
}
Stmt Flag(StmtKind k, Pipe src, Pipe dst, Expr event) {
  return std::make_shared<FlagNode>(k, src, dst, std::move(event), SourceLoc{});
}
Stmt LetS(const Var& v, Expr value, Stmt body) {
  return std::make_shared<LetNode>(v, std::move(value), std::move(body), SourceLoc{});
}
Stmt ForS(const Var& v, Expr min, Expr extent, ForKind kind, int stages, Stmt body) {
  return std::make_shared<ForNode>(v, std::move(min), std::move(extent), kind, stages,
                                   std::move(body), SourceLoc{});
}
Stmt Scope(CoreKind core, std::vector<Stmt> body) {
  return std::make_shared<CoreScopeNode>(core, Seq(std::move(body)), SourceLoc{});
}
Stmt Store(const Buffer& b, std::vector<Expr> idx, Expr value) {
  return std::make_shared<StoreNode>(b, std::move(idx), std::move(value), SourceLoc{});
}

}  // namespace

Buffer Param(std::string name, std::vector<int64_t> shape, DType dtype, BufferRole role) {
  BufferNode n;
  n.name = std::move(name);
  n.shape = std::move(shape);
  n.dtype = dtype;
  n.scope = MemScope::kGM;
  n.role = role;
  return MakeBuffer(std::move(n));
}

Buffer OnChip(std::string name, std::vector<int64_t> shape, DType dtype, MemScope scope) {
  BufferNode n;
  n.name = std::move(name);
  n.shape = std::move(shape);
  n.dtype = dtype;
  n.scope = scope;
  return MakeBuffer(std::move(n));
}

Stmt Alloc(const Buffer& b) { return std::make_shared<AllocateNode>(b, SourceLoc{}); }

Region Slice(const Buffer& b, std::vector<Range> ranges) {
  return Region{b, std::move(ranges), SourceLoc{}};
}

Stmt Launch(Expr grid, int threads, const Var& cid, const Var& vid, std::vector<Stmt> body) {
  return std::make_shared<KernelNode>(std::move(grid), threads, cid, vid, Seq(std::move(body)),
                                      SourceLoc{});
}

Kernel GemmPingpongKernel() {
  Kernel k;
  Buffer a = Param("A", {1024, 512}, DType::kFloat16, BufferRole::kInput);
  Buffer b = Param("B", {512, 256}, DType::kFloat16, BufferRole::kInput);
  Buffer c = Param("C", {1024, 256}, DType::kFloat32, BufferRole::kOutput);
  k.params = {a, b, c};
  k.out_idx = {2};
  Var cid = MakeVar("cid", DType::kInt32), vid = MakeVar("_", DType::kInt32);
  Var bx = MakeVar("bx", DType::kInt32), by = MakeVar("by", DType::kInt32);
  Var kv = MakeVar("k", DType::kInt32), slot = MakeVar("slot", DType::kInt32);
  Buffer a_l1 = OnChip("A_L1", {2, 128, 64}, DType::kFloat16, MemScope::kL1);
  Buffer b_l1 = OnChip("B_L1", {2, 64, 64}, DType::kFloat16, MemScope::kL1);
  Buffer a_l0 = OnChip("A_L0", {2, 128, 64}, DType::kFloat16, MemScope::kL0A);
  Buffer b_l0 = OnChip("B_L0", {2, 64, 64}, DType::kFloat16, MemScope::kL0B);
  Buffer c_l0 = OnChip("C_L0", {128, 64}, DType::kFloat32, MemScope::kL0C);
  auto slot_of = [&](const Buffer& buf) {
    return Slice(buf, {R(V(slot), 1), Full(buf->shape[1]), Full(buf->shape[2])});
  };
  Stmt loop_body = LetS(
      slot, Bin(B::kFloorMod, V(kv), I(2)),
      Seq({Flag(StmtKind::kWaitFlag, Pipe::kMte1, Pipe::kMte2, V(slot)),
           Op(TileOpCode::kCopy,
              {Slice(a, {R(Bin(B::kMul, V(bx), I(128)), 128), R(Bin(B::kMul, V(kv), I(64)), 64)}),
               slot_of(a_l1)}),
           Op(TileOpCode::kCopy,
              {Slice(b, {R(Bin(B::kMul, V(kv), I(64)), 64), R(Bin(B::kMul, V(by), I(64)), 64)}),
               slot_of(b_l1)}),
           Flag(StmtKind::kSetFlag, Pipe::kMte2, Pipe::kMte1, V(slot)),
           Flag(StmtKind::kWaitFlag, Pipe::kMte2, Pipe::kMte1, V(slot)),
           Op(TileOpCode::kCopy, {slot_of(a_l1), slot_of(a_l0)}),
           Op(TileOpCode::kCopy, {slot_of(b_l1), slot_of(b_l0)}),
           Flag(StmtKind::kSetFlag, Pipe::kMte1, Pipe::kM, V(slot)),
           Flag(StmtKind::kWaitFlag, Pipe::kMte1, Pipe::kM, V(slot)),
           Op(TileOpCode::kMma, {slot_of(a_l0), slot_of(b_l0), WholeBuffer(c_l0)},
              {{"init", Bin(B::kEq, V(kv), I(0))}}),
           Flag(StmtKind::kSetFlag, Pipe::kM, Pipe::kMte1, V(slot))}));
  Stmt cube = Scope(
      CoreKind::kCube,
      {Flag(StmtKind::kSetFlag, Pipe::kMte1, Pipe::kMte2, I(0)),
       Flag(StmtKind::kSetFlag, Pipe::kMte1, Pipe::kMte2, I(1)),
       ForS(kv, I(0), I(8), ForKind::kSerial, 0, loop_body),
       Flag(StmtKind::kWaitFlag, Pipe::kMte1, Pipe::kMte2, I(0)),
       Flag(StmtKind::kWaitFlag, Pipe::kMte1, Pipe::kMte2, I(1)),
       Op(TileOpCode::kCopy, {WholeBuffer(c_l0), Slice(c, {R(Bin(B::kMul, V(bx), I(128)), 128),
                                                           R(Bin(B::kMul, V(by), I(64)), 64)})})});
  k.body = Launch(
      I(32), 0, cid, vid,
      {LetS(bx, Bin(B::kFloorDiv, V(cid), I(4)),
            LetS(by, Bin(B::kFloorMod, V(cid), I(4)),
                 Seq({Alloc(a_l1), Alloc(b_l1), Alloc(a_l0), Alloc(b_l0), Alloc(c_l0), cube})))});
  return k;
}

Kernel SoftmaxKernel() {
  Kernel k;
  Buffer x = Param("X", {256, 1024}, DType::kFloat32, BufferRole::kInput);
  Buffer y = Param("Y", {256, 1024}, DType::kFloat32, BufferRole::kOutput);
  k.params = {x, y};
  k.out_idx = {1};
  Var cid = MakeVar("cid", DType::kInt32), vid = MakeVar("vid", DType::kInt32);
  Var row0 = MakeVar("row0", DType::kInt32);
  Buffer scores = OnChip("scores_ub", {32, 1024}, DType::kFloat32, MemScope::kUB);
  Buffer acc = OnChip("acc_ub", {32, 1024}, DType::kFloat32, MemScope::kUB);
  Buffer mx = OnChip("row_max_ub", {32}, DType::kFloat32, MemScope::kUB);
  Buffer sum = OnChip("row_sum_ub", {32}, DType::kFloat32, MemScope::kUB);
  Region rows_x = Slice(x, {R(V(row0), 32), Full(1024)});
  Region rows_y = Slice(y, {R(V(row0), 32), Full(1024)});
  Region s = WholeBuffer(scores);
  std::vector<Stmt> body = {
      Alloc(scores), Alloc(acc), Alloc(mx), Alloc(sum),
      LetS(row0, Bin(B::kAdd, Bin(B::kMul, V(cid), I(64)), Bin(B::kMul, V(vid), I(32))),
           Seq({Op(TileOpCode::kCopy, {rows_x, s}),
                Op(TileOpCode::kFill, {WholeBuffer(acc), F(0.0)}),
                Op(TileOpCode::kReduceMax, {s, WholeBuffer(mx)}, {{"dim", int64_t{-1}}}),
                Op(TileOpCode::kSub, {s, s, WholeBuffer(mx)}), Op(TileOpCode::kExp, {s, s}),
                Op(TileOpCode::kReduceSum, {s, WholeBuffer(sum)}, {{"dim", int64_t{-1}}}),
                Op(TileOpCode::kDiv, {s, s, WholeBuffer(sum)}),
                Op(TileOpCode::kAdd, {WholeBuffer(acc), WholeBuffer(acc), s}),
                Op(TileOpCode::kCopy, {WholeBuffer(acc), rows_y})}))};
  k.body = Launch(I(4), 0, cid, vid, std::move(body));
  return k;
}

Kernel FlashAttentionKernel() {
  Kernel k;
  std::vector<int64_t> shape = {1, 2, 256, 64};
  Buffer q = Param("Q", shape, DType::kFloat16, BufferRole::kInput);
  Buffer kk = Param("K", shape, DType::kFloat16, BufferRole::kInput);
  Buffer o = Param("O", shape, DType::kFloat16, BufferRole::kOutput);
  Buffer ws = Param("ws", {4, 64, 64}, DType::kFloat32, BufferRole::kWorkspace);
  k.params = {q, kk, o, ws};
  k.out_idx = {2};
  k.workspace_idx = {3};
  Var cid = MakeVar("cid", DType::kInt32), vid = MakeVar("vid", DType::kInt32);
  Var mb = MakeVar("mb", DType::kInt32), j = MakeVar("j", DType::kInt32);
  Buffer q_l1 = OnChip("q_l1", {64, 64}, DType::kFloat16, MemScope::kShared);
  Buffer k_l1 = OnChip("k_l1", {64, 64}, DType::kFloat16, MemScope::kShared);
  Buffer s_l0c = OnChip("s_l0c", {64, 64}, DType::kFloat32, MemScope::kFragment);
  Buffer s_ub = OnChip("s_ub", {64, 64}, DType::kFloat32, MemScope::kShared);
  Buffer m_i = OnChip("m_i", {64}, DType::kFloat32, MemScope::kShared);
  auto w = [](const Buffer& b) { return WholeBuffer(b); };
  auto rows = [&](const Buffer& b, Expr r0) {
    return Slice(b, {R(I(0), 1), R(I(0), 1), R(std::move(r0), 64), Full(64)});
  };
  Stmt loop = ForS(
      j, I(0), I(4), ForKind::kPipelined, 2,
      Seq({Op(TileOpCode::kCopy, {rows(kk, Bin(B::kMul, V(j), I(64))), w(k_l1)}),
           Op(TileOpCode::kGemmV0, {w(q_l1), w(k_l1), w(s_l0c)},
              {{"transpose_B", true}, {"init", true}}),
           Op(TileOpCode::kCopy, {w(s_l0c), w(s_ub)}),
           Op(TileOpCode::kMul, {w(s_ub), w(s_ub), F(0.125)}),
           Op(TileOpCode::kReduceMax, {w(s_ub), w(m_i)}, {{"dim", int64_t{-1}}, {"clear", false}}),
           Op(TileOpCode::kSub, {w(s_ub), w(s_ub), w(m_i)}),
           Op(TileOpCode::kCopy, {w(s_ub), Slice(ws, {R(V(j), 1), Full(64), Full(64)})})}));
  k.body =
      Launch(I(8), 2, cid, vid,
             {LetS(mb, Bin(B::kFloorMod, V(cid), I(4)),
                   Seq({Alloc(q_l1), Alloc(k_l1), Alloc(s_l0c), Alloc(s_ub), Alloc(m_i),
                        Op(TileOpCode::kFill, {w(m_i), I(-(int64_t{1} << 30))}),
                        Op(TileOpCode::kCopy, {rows(q, Bin(B::kMul, V(mb), I(64))), w(q_l1)}), loop,
                        Op(TileOpCode::kCopy, {w(s_ub), rows(o, Bin(B::kMul, V(mb), I(64)))})}))});
  return k;
}

Kernel EveryStmtKernel() {
  Kernel k;
  Buffer a = Param("a", {64, 32}, DType::kFloat32, BufferRole::kInput);
  Buffer out = Param("out", {64, 32}, DType::kFloat32, BufferRole::kOutput);
  k.params = {a, out};
  k.out_idx = {1};
  Var n = MakeVar("n", DType::kInt32), cid = MakeVar("cid", DType::kInt32);
  Var vid = MakeVar("vid", DType::kInt32), i = MakeVar("i", DType::kInt32);
  Var p = MakeVar("p", DType::kInt32), scale = MakeVar("scale", DType::kFloat32);
  Buffer ub = OnChip("ub", {64, 32}, DType::kFloat32, MemScope::kUB);
  BufferNode with_addr = *OnChip("ub2", {32}, DType::kFloat16, MemScope::kUB);
  with_addr.address = 4096;
  Buffer ub2 = MakeBuffer(with_addr);
  Buffer cnt = OnChip("cnt", {1}, DType::kInt32, MemScope::kLocalVar);
  Stmt par = ForS(p, I(0), I(32), ForKind::kParallel, 0,
                  Store(ub, {V(i), V(p)}, Bin(B::kMul, Load(ub, {V(i), V(p)}), V(scale))));
  Stmt serial =
      ForS(i, I(0), Load(cnt, {I(0)}), ForKind::kSerial, 0,
           Seq({par, Seq({}), Seq({Store(cnt, {I(0)}, Bin(B::kAdd, Load(cnt, {I(0)}), I(1)))})}));
  Stmt iff = std::make_shared<IfNode>(
      Bin(B::kAnd, Bin(B::kEq, V(vid), I(0)), Unary(UnaryOp::kNot, Bin(B::kLt, V(cid), I(2)))),
      Seq({std::make_shared<BarrierNode>(Pipe::kV, SourceLoc{}),
           std::make_shared<CrossFlagNode>(StmtKind::kSetCrossFlag, Pipe::kMte3, I(3), 2,
                                           SourceLoc{})}),
      std::make_shared<CrossFlagNode>(StmtKind::kWaitCrossFlag, Pipe::kS, I(3), 0, SourceLoc{}),
      SourceLoc{});
  Stmt if_no_else =
      std::make_shared<IfNode>(Bin(B::kOr, Bin(B::kGe, V(cid), V(n)), BoolImm(false)),
                               std::make_shared<CrossFlagNode>(StmtKind::kWaitCrossFlag,
                                                               Pipe::kMte2, V(cid), 1, SourceLoc{}),
                               nullptr, SourceLoc{});
  Stmt vec =
      Scope(CoreKind::kVector,
            {Alloc(ub), Alloc(ub2), Alloc(cnt), Store(cnt, {I(0)}, I(16)),
             Op(TileOpCode::kCopy, {Slice(a, {R(Bin(B::kMul, V(cid), I(32)), 32), Full(32)}),
                                    Slice(ub, {R(I(0), 32), Full(32)})}),
             std::make_shared<BarrierNode>(Pipe::kAll, SourceLoc{}),
             LetS(scale, Call("exp", {F(0.5)}, DType::kFloat32), Seq({serial, iff, if_no_else})),
             Op(TileOpCode::kCast, {WholeBuffer(ub2), Slice(ub, {R(I(0), 1), Full(32)})},
                {{"mode", std::string("CAST_RINT")}, {"count", int64_t{32}}}),
             Op(TileOpCode::kCopy, {Slice(ub, {R(I(0), 32), Full(32)}),
                                    Slice(out, {R(Bin(B::kMul, V(cid), I(32)), 32), Full(32)})})});
  k.body = LetS(n, I(2), Launch(Bin(B::kMul, V(n), I(1)), 1, cid, vid, {vec}));
  return k;
}

Kernel EveryTileOpKernel() {
  Kernel k;
  Buffer g = Param("g", {64, 64}, DType::kFloat16, BufferRole::kInput);
  Buffer h = Param("h", {64, 64}, DType::kFloat32, BufferRole::kOutput);
  k.params = {g, h};
  k.out_idx = {-1 + 2};
  Var cid = MakeVar("cid", DType::kInt32), vid = MakeVar("vid", DType::kInt32);
  Buffer l1a = OnChip("l1a", {64, 64}, DType::kFloat16, MemScope::kL1);
  Buffer l1b = OnChip("l1b", {64, 64}, DType::kFloat16, MemScope::kL1);
  Buffer l0a = OnChip("l0a", {64, 64}, DType::kFloat16, MemScope::kL0A);
  Buffer l0b = OnChip("l0b", {64, 64}, DType::kFloat16, MemScope::kL0B);
  Buffer l0c = OnChip("l0c", {64, 64}, DType::kFloat32, MemScope::kL0C);
  Buffer x = OnChip("x", {64, 64}, DType::kFloat32, MemScope::kUB);
  Buffer y = OnChip("y", {64, 64}, DType::kFloat32, MemScope::kUB);
  Buffer r = OnChip("r", {64}, DType::kFloat32, MemScope::kUB);
  Buffer half = OnChip("half", {64, 64}, DType::kFloat16, MemScope::kUB);
  Buffer mask = OnChip("mask", {64, 8}, DType::kUInt8, MemScope::kUB);
  auto w = [](const Buffer& b) { return WholeBuffer(b); };
  Expr row = Load(r, {I(3)});
  std::vector<Stmt> s = {Alloc(l1a), Alloc(l1b), Alloc(l0a), Alloc(l0b),  Alloc(l0c),
                         Alloc(x),   Alloc(y),   Alloc(r),   Alloc(half), Alloc(mask)};
  using T = TileOpCode;
  s.push_back(Op(T::kCopy, {w(g), w(l1a)},
                 {{"pad_value", -std::numeric_limits<double>::infinity()},
                  {"enable_relu", false},
                  {"transpose", true}}));
  s.push_back(Op(T::kCopy, {w(g), w(half)}, {{"pad_value", Unary(UnaryOp::kNeg, F(1.5))}}));
  s.push_back(Op(T::kGemmV0, {w(l1a), w(l1b), w(l0c)},
                 {{"init", Bin(B::kEq, V(cid), I(0))}, {"transpose_A", false}}));
  s.push_back(Op(T::kMma, {w(l0a), w(l0b), w(l0c)}, {{"init", Expr(BoolImm(true))}}));
  s.push_back(Op(T::kFill, {w(x), row}));
  s.push_back(Op(T::kAdd, {w(x), w(x), w(y)}));
  s.push_back(Op(T::kSub, {w(x), w(x), F(1.0)}));
  s.push_back(
      Op(T::kMul, {Slice(x, {R(I(3), 1), Full(64)}), Slice(x, {R(I(3), 1), Full(64)}), row}));
  s.push_back(Op(T::kDiv, {w(x), w(x), w(r)}));
  s.push_back(Op(T::kMax, {w(x), w(x), F(0.0)}));
  s.push_back(Op(T::kMin, {w(x), w(x), I(7)}));
  for (T op :
       {T::kExp, T::kLn, T::kSqrt, T::kRsqrt, T::kReciprocal, T::kAbs, T::kRelu, T::kSigmoid}) {
    s.push_back(Op(op, {w(y), w(x)}));
  }
  s.push_back(Op(T::kCast, {w(half), w(x)}, {{"mode", std::string("CAST_NONE")}}));
  s.push_back(Op(T::kBroadcast, {w(x), w(r)}, {{"axis", int64_t{1}}}));
  s.push_back(Op(T::kCompare, {w(mask), w(x), w(y)}, {{"mode", std::string("GT")}}));
  s.push_back(Op(T::kSelect, {w(x), w(mask), w(x), F(0.0)},
                 {{"mode", std::string("VSEL_TENSOR_SCALAR_MODE")}}));
  s.push_back(Op(T::kAxpy, {w(x), w(y), F(2.5)}));
  s.push_back(Op(T::kReduceSum, {w(x), w(r)}, {{"dim", int64_t{-1}}, {"clear", true}}));
  s.push_back(Op(T::kReduceMax, {w(x), w(r)}, {{"dim", int64_t{1}}}));
  s.push_back(Op(T::kReduceMin, {w(x), w(r)}, {{"dim", int64_t{0}}}));
  s.push_back(Op(T::kCopy, {w(x), w(h)}));
  k.body = Launch(I(1), 0, cid, vid, std::move(s));
  return k;
}

Kernel LiteralKernel() {
  Kernel k;
  Buffer out = Param("out", {16}, DType::kFloat32, BufferRole::kOutput);
  Buffer iout = Param("iout", {16}, DType::kInt64, BufferRole::kOutput);
  k.params = {out, iout};
  k.out_idx = {0, 1};
  Var cid = MakeVar("cid", DType::kInt32), vid = MakeVar("vid", DType::kInt32);
  Var a = MakeVar("a", DType::kInt32), b = MakeVar("b", DType::kInt64);
  Var f = MakeVar("f", DType::kFloat16);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<Expr> floats = {F(0.1),
                              F(1e-05),
                              F(1e300),
                              F(5e-324),
                              F(-0.0),
                              F(kInf),
                              F(-kInf),
                              F(std::numeric_limits<double>::quiet_NaN()),
                              F(1.0 / 3.0),
                              FloatImm(0.5, DType::kFloat16),
                              FloatImm(-kInf, DType::kBFloat16),
                              Unary(UnaryOp::kNeg, F(2.0)),
                              Unary(UnaryOp::kNeg, Unary(UnaryOp::kNeg, V(f))),
                              Call("cast", {V(a)}, DType::kFloat32),
                              Call("sqrt", {F(2.0)}, DType::kFloat32),
                              Select(Bin(B::kNe, V(a), I(0)), F(1.0), F(-1.0))};
  std::vector<Expr> ints = {
      I(std::numeric_limits<int64_t>::min()),
      IntImm(std::numeric_limits<int64_t>::max(), DType::kInt64),
      IntImm(-7, DType::kInt64),
      IntImm(2, DType::kBool),
      Unary(UnaryOp::kNeg, I(5)),
      Unary(UnaryOp::kNeg, I(-5)),
      Bin(B::kSub, V(a), I(-3)),
      Bin(B::kSub, V(a), Bin(B::kSub, V(b), I(1))),
      Bin(B::kSub, Bin(B::kSub, V(a), V(b)), I(1)),
      Bin(B::kMul, Bin(B::kAdd, V(a), I(1)), Bin(B::kFloorDiv, V(b), I(2))),
      Bin(B::kFloorMod, V(a), Bin(B::kMul, I(2), V(a))),
      Bin(B::kMin, Bin(B::kMax, V(a), I(0)), I(15)),
      Select(Bin(B::kEq, Bin(B::kLt, V(a), I(1)), Bin(B::kGt, V(b), I(2))), V(a), V(b)),
      Select(Bin(B::kAnd, Bin(B::kOr, BoolImm(true), BoolImm(false)), Bin(B::kLe, V(a), I(1))),
             I(1), I(0)),
      Select(Unary(UnaryOp::kNot, Unary(UnaryOp::kNot, Bin(B::kOr, BoolImm(true), V(a)))), I(1),
             I(0)),
      Bin(B::kDiv, Unary(UnaryOp::kNeg, Bin(B::kAdd, V(a), I(1))), I(4)),
  };
  std::vector<Stmt> body;
  for (size_t i = 0; i < floats.size(); ++i) {
    body.push_back(Store(out, {I(static_cast<int64_t>(i))}, floats[i]));
  }
  for (size_t i = 0; i < ints.size(); ++i) {
    body.push_back(Store(iout, {I(static_cast<int64_t>(i))}, ints[i]));
  }
  body.push_back(Op(TileOpCode::kCompare, {WholeBuffer(iout), WholeBuffer(iout), I(-1)},
                    {{"mode", std::string("q\"uote\\ \n\x01\xff")}}));
  body.push_back(
      Op(TileOpCode::kCopy, {WholeBuffer(out), WholeBuffer(out)}, {{"pad_value", Expr(I(-3))}}));
  body.push_back(Op(TileOpCode::kCopy, {WholeBuffer(out), WholeBuffer(out)},
                    {{"pad_value", Bin(B::kMul, I(-3), V(a))}}));
  body.push_back(
      Op(TileOpCode::kCopy, {WholeBuffer(out), WholeBuffer(out)}, {{"pad_value", 1e-300}}));
  k.body = Launch(I(1), 0, cid, vid,
                  {LetS(a, I(3),
                        LetS(b, IntImm(4, DType::kInt64),
                             LetS(f, FloatImm(1.5, DType::kFloat16), Seq(std::move(body)))))});
  return k;
}

std::vector<NamedKernel> AllTestKernels() {
  return {{"gemm_pingpong", GemmPingpongKernel()},     {"softmax", SoftmaxKernel()},
          {"flash_attention", FlashAttentionKernel()}, {"every_stmt", EveryStmtKernel()},
          {"every_tile_op", EveryTileOpKernel()},      {"literal", LiteralKernel()}};
}

}  // namespace tilejit::ir::testing
