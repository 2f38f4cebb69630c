// SPDX-License-Identifier: Apache-2.0
// Simulated memories with "never written" (poison) tracking.
//
// WrittenMap is one bit per byte, set by writes and queried by reads; bits only go from 0 to
// 1 during a launch and are updated with relaxed atomic ORs, so blocks running on different
// host threads may write neighbouring bytes of one GM tensor concurrently.
//
// LocalMemory is one on-chip buffer (L1, L0A, L0B, L0C or UB of one core): owned by the core
// that runs it, single-threaded.
//
// GlobalMemory is the device address space: bounds-checked allocations at 512-byte-aligned
// addresses separated by unmapped guard gaps, so an access that runs off a tensor never lands
// in another one. Allocate/Free are not thread-safe with respect to each other or to a launch;
// during a launch the allocation table is read-only and the bytes are shared by all blocks.
// An allocation's host bytes are zero-filled lazily (calloc: large ones are fresh pages, zeroed
// by the OS on first touch, as huge pages where the OS allows), so allocating costs nothing
// until the bytes are used.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/status.h"

namespace tilejit::runner::sim {

class WrittenMap {
 public:
  WrittenMap() = default;
  explicit WrittenMap(uint64_t bytes) { Resize(bytes); }
  void Resize(uint64_t bytes);
  uint64_t size() const { return bytes_; }

  // Marks [begin, end) as written. Thread-safe.
  void Mark(uint64_t begin, uint64_t end);
  // First byte in [begin, end) never written, or `end` if all were. Thread-safe.
  uint64_t FirstUnwritten(uint64_t begin, uint64_t end) const;
  void MarkAll() { Mark(0, bytes_); }
  void ClearAll();

 private:
  uint64_t bytes_ = 0;
  std::unique_ptr<std::atomic<uint64_t>[]> words_;
};

class LocalMemory {
 public:
  LocalMemory() = default;
  explicit LocalMemory(uint64_t bytes) : data_(bytes, 0), written_(bytes) {}
  uint64_t size() const { return data_.size(); }
  uint8_t* data() { return data_.data(); }
  WrittenMap& written() { return written_; }
  // Resets contents and poison (a new block starts with fresh on-chip memory).
  void Reset();

 private:
  std::vector<uint8_t> data_;
  WrittenMap written_;
};

inline constexpr uint64_t kGmBase = 0x10000000;  // first allocation address
inline constexpr uint64_t kGmAlign = 512;
inline constexpr uint64_t kGmGuard = 4096;  // unmapped bytes between allocations

class GlobalMemory {
 public:
  struct FreeBytes {
    void operator()(uint8_t* p) const;
  };
  struct Allocation {
    uint64_t addr = 0;
    uint64_t size = 0;
    std::string name;
    std::unique_ptr<uint8_t[], FreeBytes> bytes;  // `size` zero-initialised bytes (calloc)
    WrittenMap written;
  };

  // Reserves `size` bytes (zero-filled). `initialized` marks them written (inputs); outputs
  // and workspaces start poisoned. Returns the device address.
  Result<uint64_t> Allocate(uint64_t size, std::string name, bool initialized);
  Status Free(uint64_t addr);

  // The allocation that contains all of [addr, addr + size), or nullptr (out of bounds).
  Allocation* Find(uint64_t addr, uint64_t size);
  const Allocation* Find(uint64_t addr, uint64_t size) const;
  // The allocation containing `addr` (or the nearest one below it), for error messages.
  const Allocation* Nearest(uint64_t addr) const;

  Status Write(uint64_t addr, const void* src, uint64_t size);  // host -> device, marks
  Status Read(uint64_t addr, void* dst, uint64_t size) const;   // device -> host
  uint64_t bytes_allocated() const { return bytes_allocated_; }

 private:
  std::map<uint64_t, Allocation> allocs_;  // by address
  uint64_t next_ = kGmBase;
  uint64_t bytes_allocated_ = 0;
};

}  // namespace tilejit::runner::sim
