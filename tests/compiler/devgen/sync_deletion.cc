// SPDX-License-Identifier: Apache-2.0
// Pairing flags within straight-line lists keeps most candidates to one set and its wait;
// everything the simple rule cannot pair (with the pairs of the same key) is deleted as a group,
// which is coarser than "one pair" but never leaves a half protocol behind (a lone set or wait
// would be reported as a flag misuse and say nothing about whether the ordering was needed).
#include "sync_deletion.h"

#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "common/check.h"
#include "compiler/codegen/codegen.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/printer.h"
#include "compiler/passes/verify_sync.h"
#include "compiler/pipeline.h"
#include "compiler/target/binary.h"
#include "compiler/target/npu_target.h"
#include "devgen_harness.h"

namespace tilejit::devgen {
namespace {

struct Candidate {
  std::set<const ir::StmtNode*> stmts;
  std::string what;
};

using Key = std::tuple<int, int, int, int64_t>;  // scope, src, dst, event (-1: runtime)

class Collector {
 public:
  std::vector<Candidate> Run(const ir::Stmt& body) {
    std::map<Key, const ir::StmtNode*> pending;
    Walk(body, pending);
    Flush(pending);
    // A key with flags that did not pair within their list is a loop-carried protocol: its
    // straight-line pairs (the pre-arming set and the draining wait) join the group.
    for (auto it = pair_keys_.begin(); it != pair_keys_.end();) {
      auto group = unmatched_.find(it->first);
      if (group == unmatched_.end()) {
        ++it;
        continue;
      }
      group->second.insert(candidates_[it->second].stmts.begin(),
                           candidates_[it->second].stmts.end());
      candidates_[it->second].stmts.clear();
      --pairs;
      it = pair_keys_.erase(it);
    }
    std::erase_if(candidates_, [](const Candidate& c) { return c.stmts.empty(); });
    for (auto& [key, stmts] : unmatched_) {
      Candidate c;
      c.stmts = stmts;
      c.what = "flag group " + KeyText(key) + " (" + std::to_string(stmts.size()) + " flags)";
      candidates_.push_back(c);
      ++groups;
    }
    return candidates_;
  }
  int barriers = 0, pairs = 0, groups = 0;

 private:
  static std::string KeyText(const Key& k) {
    return std::string(target::PipeName(static_cast<ir::Pipe>(std::get<1>(k)))) + "->" +
           std::string(target::PipeName(static_cast<ir::Pipe>(std::get<2>(k)))) + " id " +
           std::to_string(std::get<3>(k)) + " scope " + std::to_string(std::get<0>(k));
  }

  void Flush(std::map<Key, const ir::StmtNode*>& pending) {
    for (auto& [key, s] : pending) unmatched_[key].insert(s);
    pending.clear();
  }

  // Walks a statement list; `pending` holds the sets of this list not yet waited for.
  void Walk(const ir::Stmt& s, std::map<Key, const ir::StmtNode*>& pending) {
    if (s == nullptr) return;
    switch (s->kind) {
      case ir::StmtKind::kSeq:
        for (const ir::Stmt& c : ir::As<ir::SeqNode>(s).stmts) Walk(c, pending);
        return;
      case ir::StmtKind::kLet:
        return Walk(ir::As<ir::LetNode>(s).body, pending);  // the let's body continues the list
      case ir::StmtKind::kBarrier:
        if (ir::SyncOriginOf(*s) == ir::SyncOrigin::kCompiler) {
          const auto& b = ir::As<ir::BarrierNode>(s);
          candidates_.push_back({{s.get()},
                                 "barrier(" + std::string(target::PipeName(b.pipe)) + ") line " +
                                     std::to_string(s->loc.line)});
          ++barriers;
        }
        return;
      case ir::StmtKind::kSetFlag:
      case ir::StmtKind::kWaitFlag:
        return Flag(s, pending);
      case ir::StmtKind::kFor:
        return Nested(ir::As<ir::ForNode>(s).body);
      case ir::StmtKind::kIf:
        Nested(ir::As<ir::IfNode>(s).then_body);
        return Nested(ir::As<ir::IfNode>(s).else_body);
      case ir::StmtKind::kKernel:
        return Walk(ir::As<ir::KernelNode>(s).body, pending);
      case ir::StmtKind::kCoreScope: {
        const int saved = scope_;
        scope_ = ++scopes_;
        Nested(ir::As<ir::CoreScopeNode>(s).body);
        scope_ = saved;
        return;
      }
      default:
        return;
    }
  }

  void Nested(const ir::Stmt& body) {
    std::map<Key, const ir::StmtNode*> pending;
    Walk(body, pending);
    Flush(pending);
  }

  void Flag(const ir::Stmt& s, std::map<Key, const ir::StmtNode*>& pending) {
    if (ir::SyncOriginOf(*s) != ir::SyncOrigin::kCompiler) return;
    const auto& f = ir::As<ir::FlagNode>(s);
    const Key key{scope_, static_cast<int>(f.src), static_cast<int>(f.dst),
                  ir::AsConstInt(f.event).value_or(-1)};
    auto it = pending.find(key);
    if (s->kind == ir::StmtKind::kSetFlag) {
      if (it != pending.end()) unmatched_[key].insert(it->second);
      pending[key] = s.get();
    } else if (it != pending.end()) {
      candidates_.push_back({{it->second, s.get()},
                             "set/wait " + KeyText(key) + " lines " +
                                 std::to_string(it->second->loc.line) + "/" +
                                 std::to_string(s->loc.line)});
      pair_keys_.emplace(key, candidates_.size() - 1);
      ++pairs;
      pending.erase(it);
    } else {
      unmatched_[key].insert(s.get());
    }
  }

  int scope_ = 0, scopes_ = 0;
  std::vector<Candidate> candidates_;
  std::map<Key, std::set<const ir::StmtNode*>> unmatched_;
  std::multimap<Key, size_t> pair_keys_;  // straight-line pairs: key -> index in candidates_
};

class Deleter : public ir::Mutator {
 public:
  explicit Deleter(const std::set<const ir::StmtNode*>& doomed) : doomed_(doomed) {}

 protected:
  ir::Stmt MutateBarrier(const ir::Stmt& s, const ir::BarrierNode& op) override {
    return doomed_.contains(s.get()) ? ir::Seq({}, op.loc) : s;
  }
  ir::Stmt MutateFlag(const ir::Stmt& s, const ir::FlagNode& op) override {
    return doomed_.contains(s.get()) ? ir::Seq({}, op.loc) : ir::Mutator::MutateFlag(s, op);
  }

 private:
  const std::set<const ir::StmtNode*>& doomed_;
};

// Whether verify_sync's check (passes::CheckSyncs) finds anything in `k`.
bool VerifySyncFinds(const ir::Kernel& k, const target::NpuTarget& target,
                     const compiler::PassConfigs& configs, std::string* what) {
  try {
    const std::vector<passes::SyncFinding> findings =
        passes::CheckSyncs(k, target, {.auto_sync = configs.auto_sync});
    if (findings.empty()) return false;
    *what = findings.front().message + " (line " + std::to_string(findings.front().loc.line) +
            ", " + std::to_string(findings.size()) + " findings)";
    return true;
  } catch (const InternalError& e) {
    *what = std::string("internal check failed: ") + e.what();
    return true;
  }
}

Result<runner::RunResult> BuildAndRun(const ir::Kernel& lowered, const compiler::Specialized& sp,
                                      const target::NpuTarget& target,
                                      const std::vector<runner::NpyArray>& inputs,
                                      runner::CheckMode mode) {
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  codegen::CodegenInput in{&lowered, &sp.frontend.kernel, &target, compiler::CompilerFingerprint(),
                           sp.key};
  TILEJIT_ASSIGN_OR_RETURN(target::KernelBinary binary, codegen::Codegen(in, &diag));
  TILEJIT_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, target::WriteKernelBinary(binary));
  runner::LaunchOptions opts;
  opts.mode = mode;
  opts.seed = 1;
  opts.host_threads = 1;
  return Launch(bytes, inputs, opts);
}

// Instructions executed by every core of every block: the same for any timing.
uint64_t Instructions(const runner::RunResult& r) {
  uint64_t n = 0;
  for (const runner::BlockReport& b : r.report.blocks) n += b.instructions;
  return n;
}

bool SameOutputs(const std::vector<runner::NpyArray>& a, const std::vector<runner::NpyArray>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].data != b[i].data) return false;
  }
  return true;
}

// The candidates of `program`, their descriptions ending in their statement ids.
std::vector<Candidate> Candidates(const ir::Kernel& program, Collector* collector) {
  std::vector<Candidate> candidates = collector->Run(program.body);
  const std::vector<ir::Stmt> ids = ir::StmtIdTable(program);
  for (Candidate& c : candidates) {
    std::string names;
    for (size_t id = 0; id < ids.size(); ++id) {
      if (c.stmts.contains(ids[id].get())) {
        names += (names.empty() ? "#" : ", #") + std::to_string(id);
      }
    }
    c.what += " [" + names + "]";
  }
  return candidates;
}

}  // namespace

std::vector<std::string> DescribeSyncCandidates(const ir::Kernel& program) {
  Collector collector;
  std::vector<std::string> out;
  for (const Candidate& c : Candidates(program, &collector)) out.push_back(c.what);
  return out;
}

std::string DeletionReport::Summary() const {
  std::ostringstream s;
  s << candidates << " compiler syncs (" << pairs << " set/wait pairs, " << barriers
    << " barriers, " << groups << " flag groups): caught " << caught << ", redundant " << redundant
    << ", unexercised " << unexercised << ", uncaught " << uncaught.size();
  return s.str();
}

Result<DeletionReport> RunSyncDeletion(const compiler::Specialized& sp,
                                       const std::vector<runner::NpyArray>& inputs) {
  const target::NpuTarget* target = target::FindTarget(sp.frontend.target);
  if (target == nullptr) return InvalidArgument("unknown target " + sp.frontend.target);
  const compiler::PassConfigs& configs = sp.frontend.normalized_configs.configs;
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  compiler::PipelineOptions options;
  options.stop_after = "sync_insert";
  Result<compiler::PipelineResult> lowered = [&]() -> Result<compiler::PipelineResult> {
    try {
      return compiler::RunPipeline(sp.frontend.kernel, *target, configs, options, &diag);
    } catch (const InternalError& e) {
      return Internal(e.what());
    }
  }();
  if (!lowered.ok()) {
    return Status(lowered.status().code(), lowered.status().ToString() + "\n" + diag.RenderAll());
  }
  const ir::Kernel& program = lowered->kernel;
  TILEJIT_ASSIGN_OR_RETURN(runner::RunResult intact, BuildAndRun(program, sp, *target, inputs,
                                                                 runner::CheckMode::kPerturbed));
  const uint64_t intact_instructions = Instructions(intact);
  Collector collector;
  const std::vector<Candidate> candidates = Candidates(program, &collector);
  DeletionReport report;
  report.program = ir::PrintKernel(program, {.show_stmt_ids = true});
  report.candidates = static_cast<int>(candidates.size());
  report.barriers = collector.barriers;
  report.pairs = collector.pairs;
  report.groups = collector.groups;
  for (const Candidate& c : candidates) {
    Deleter deleter(c.stmts);
    const ir::Kernel without = deleter.MutateKernel(program);
    std::string verdict;
    if (!VerifySyncFinds(without, *target, configs, &verdict)) {
      ++report.redundant;
      report.redundant_what.push_back(c.what);
      continue;
    }
    bool caught = false;
    bool runs = false;  // the launch executes the deleted syncs (it runs fewer instructions)
    std::string seen;
    for (runner::CheckMode mode : {runner::CheckMode::kChecked, runner::CheckMode::kPerturbed}) {
      Result<runner::RunResult> run = BuildAndRun(without, sp, *target, inputs, mode);
      if (!run.ok()) {
        seen += "build/launch failed: " + run.status().ToString() + "\n";
        continue;
      }
      runs = runs || Instructions(*run) != intact_instructions;
      if (!run->report.findings.empty() || !run->report.status.ok()) {
        caught = true;
        break;
      }
      if (mode == runner::CheckMode::kPerturbed && !SameOutputs(run->outputs, intact.outputs)) {
        caught = true;
      }
    }
    if (caught) {
      ++report.caught;
    } else if (!runs) {
      ++report.unexercised;
      report.unexercised_what.push_back(c.what);
    } else {
      report.uncaught.push_back("deleting " + c.what + ": verify_sync says \"" + verdict +
                                "\" but no launch noticed\n" + seen);
    }
  }
  return report;
}

}  // namespace tilejit::devgen
