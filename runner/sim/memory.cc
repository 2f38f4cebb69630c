// SPDX-License-Identifier: Apache-2.0
// The written map works on 64-bit words so that marking or scanning a DMA-sized range costs a
// few word operations; partial words at the ends use masks.
//
// GM bytes come from calloc rather than a value-initialised array: for a tensor of megabytes
// that is fresh pages the OS zeroes on first touch, where the array was a memset of the whole
// tensor (and its page faults) before the copy-in or the kernel wrote it again.
#include "runner/sim/memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <bit>
#include <cstdlib>
#include <cstring>
#include <new>

namespace tilejit::runner::sim {
namespace {

// Tensors of megabytes are copied and streamed whole: 2 MiB pages take one page fault where
// 4 KiB pages take 512. Allocations from this size on ask for them (a hint the OS may ignore).
constexpr uint64_t kHugePageHintBytes = uint64_t{4} << 20;

uint8_t* ZeroedBytes(uint64_t size) {
  void* p = std::calloc(size == 0 ? 1 : size, 1);
  if (p == nullptr) throw std::bad_alloc();
  if (size >= kHugePageHintBytes) {
    const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + page - 1) & ~(page - 1);
    const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + size) & ~(page - 1);
    (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  }
  return static_cast<uint8_t*>(p);
}

uint64_t MaskFrom(uint64_t bit) { return bit >= 64 ? 0 : ~uint64_t{0} << bit; }
uint64_t MaskBelow(uint64_t bit) { return bit >= 64 ? ~uint64_t{0} : (uint64_t{1} << bit) - 1; }

}  // namespace

void WrittenMap::Resize(uint64_t bytes) {
  bytes_ = bytes;
  const uint64_t words = (bytes + 63) / 64;
  words_ = std::make_unique<std::atomic<uint64_t>[]>(words);
  ClearAll();
}

void WrittenMap::ClearAll() {
  const uint64_t words = (bytes_ + 63) / 64;
  for (uint64_t i = 0; i < words; ++i) words_[i].store(0, std::memory_order_relaxed);
}

void WrittenMap::Mark(uint64_t begin, uint64_t end) {
  if (end > bytes_) end = bytes_;
  if (begin >= end) return;
  const uint64_t first = begin / 64;
  const uint64_t last = (end - 1) / 64;
  for (uint64_t w = first; w <= last; ++w) {
    uint64_t mask = ~uint64_t{0};
    if (w == first) mask &= MaskFrom(begin % 64);
    if (w == last) mask &= MaskBelow(end - last * 64);
    if (mask == ~uint64_t{0}) {
      words_[w].store(mask, std::memory_order_relaxed);
    } else {
      words_[w].fetch_or(mask, std::memory_order_relaxed);
    }
  }
}

uint64_t WrittenMap::FirstUnwritten(uint64_t begin, uint64_t end) const {
  if (end > bytes_) end = bytes_;
  if (begin >= end) return end;
  const uint64_t first = begin / 64;
  const uint64_t last = (end - 1) / 64;
  for (uint64_t w = first; w <= last; ++w) {
    uint64_t mask = ~uint64_t{0};
    if (w == first) mask &= MaskFrom(begin % 64);
    if (w == last) mask &= MaskBelow(end - last * 64);
    const uint64_t missing = ~words_[w].load(std::memory_order_relaxed) & mask;
    if (missing != 0) return w * 64 + static_cast<uint64_t>(std::countr_zero(missing));
  }
  return end;
}

void LocalMemory::Reset() {
  std::memset(data_.data(), 0, data_.size());
  written_.ClearAll();
}

Result<uint64_t> GlobalMemory::Allocate(uint64_t size, std::string name, bool initialized) {
  if (size > (uint64_t{1} << 40)) {
    return ResourceExhausted("GM allocation of " + std::to_string(size) + " bytes for '" + name +
                             "' exceeds the simulator's 1 TiB limit");
  }
  const uint64_t addr = next_;
  Allocation a;
  a.addr = addr;
  a.size = size;
  a.name = std::move(name);
  a.bytes.reset(ZeroedBytes(size));
  a.written.Resize(size);
  if (initialized) a.written.MarkAll();
  const uint64_t span = (size + kGmAlign - 1) / kGmAlign * kGmAlign;
  next_ = addr + span + kGmGuard;
  bytes_allocated_ += size;
  allocs_.emplace(addr, std::move(a));
  return addr;
}

Status GlobalMemory::Free(uint64_t addr) {
  auto it = allocs_.find(addr);
  if (it == allocs_.end()) return NotFound("no GM allocation at " + std::to_string(addr));
  bytes_allocated_ -= it->second.size;
  allocs_.erase(it);
  return Status::Ok();
}

void GlobalMemory::FreeBytes::operator()(uint8_t* p) const { std::free(p); }

const GlobalMemory::Allocation* GlobalMemory::Nearest(uint64_t addr) const {
  auto it = allocs_.upper_bound(addr);
  if (it == allocs_.begin()) return nullptr;
  return &std::prev(it)->second;
}

const GlobalMemory::Allocation* GlobalMemory::Find(uint64_t addr, uint64_t size) const {
  const Allocation* a = Nearest(addr);
  if (a == nullptr || addr - a->addr > a->size || size > a->size - (addr - a->addr)) {
    return nullptr;
  }
  return a;
}

GlobalMemory::Allocation* GlobalMemory::Find(uint64_t addr, uint64_t size) {
  return const_cast<Allocation*>(std::as_const(*this).Find(addr, size));
}

Status GlobalMemory::Write(uint64_t addr, const void* src, uint64_t size) {
  Allocation* a = Find(addr, size);
  if (a == nullptr) return InvalidArgument("host write outside any GM allocation");
  const uint64_t off = addr - a->addr;
  if (size > 0) std::memcpy(a->bytes.get() + off, src, size);
  a->written.Mark(off, off + size);
  return Status::Ok();
}

Status GlobalMemory::Read(uint64_t addr, void* dst, uint64_t size) const {
  const Allocation* a = Find(addr, size);
  if (a == nullptr) return InvalidArgument("host read outside any GM allocation");
  if (size > 0) std::memcpy(dst, a->bytes.get() + (addr - a->addr), size);
  return Status::Ok();
}

}  // namespace tilejit::runner::sim
