// SPDX-License-Identifier: Apache-2.0
// Data effects of the non-scalar instructions, in two halves so that the executor can check
// before it acts and (in perturbed mode) act later than it checks:
//   DescribeAccesses lists the exact byte runs an instruction reads and writes (per memory);
//   ApplyEffect performs the effect on memories whose runs were already validated.
// Each effect is one bulk operation per instruction (DESIGN.md section 5): memcpy runs for
// DMA, typed loops for vector ops, a BLAS call for mmad.
//
// Instructions must be resolved (every Opnd a constant). Thread-compatible: one core's
// instructions are applied by one thread at a time; GM bytes may be shared between threads.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "compiler/target/isa.h"
#include "runner/sim/race.h"

namespace tilejit::runner::sim {

struct Span {
  MemSpace space = MemSpace::kGm;
  uint64_t addr = 0;
  uint64_t bytes = 0;
  bool write = false;
  bool accumulate = false;  // mmad into L0C (the cube orders its own accumulation chain)
  bool atomic = false;      // atomic-accumulate DMA store (concurrent ones do not race)
  bool element = false;     // one scalar element (natural alignment instead of the memory's)
};

// Host pointers for device addresses, per memory space (implemented by the executor).
class MemView {
 public:
  virtual ~MemView() = default;
  // Pointer to `bytes` bytes at `addr` of `space`; the range was validated.
  virtual uint8_t* Ptr(MemSpace space, uint64_t addr, uint64_t bytes) = 0;
  // The core's DEQSCALE register (vsetdeq writes it; an s32 -> f16 vcast multiplies by it),
  // 1.0 until written. A view without a core (tests) keeps its own.
  virtual float& DeqScale() { return deq_scale_; }

 private:
  float deq_scale_ = 1.0f;
};

// Appends the runs `in` touches (adjacent runs merged). Empty for non-memory instructions.
void DescribeAccesses(const target::Instr& in, std::vector<Span>* out);

// Performs the effect of `in`. kInvalidArgument for an operation the simulator does not
// implement or operand combinations the ISA rules let through but the effect cannot honour.
Status ApplyEffect(const target::Instr& in, MemView& mem);

// Element helpers shared by the effect implementations and scalar ld/st.
double LoadElem(const uint8_t* p, target::DType d);
// Integer results wrap (two's complement) unless `saturate` (casts), after rounding by `mode`.
void StoreElem(uint8_t* p, target::DType d, double v,
               target::RoundMode mode = target::RoundMode::kRint, bool saturate = false);

namespace internal {
void DescribeDma(const target::Instr& in, std::vector<Span>* out);
void DescribeCube(const target::Instr& in, std::vector<Span>* out);
void DescribeVector(const target::Instr& in, std::vector<Span>* out);
Status ApplyDma(const target::Instr& in, MemView& mem);
Status ApplyCube(const target::Instr& in, MemView& mem);
Status ApplyVector(const target::Instr& in, MemView& mem);
// Appends a run, merging with the previous one when contiguous and of the same kind.
void AddRun(std::vector<Span>* out, Span s);
}  // namespace internal

}  // namespace tilejit::runner::sim
