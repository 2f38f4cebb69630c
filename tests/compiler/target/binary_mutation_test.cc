// SPDX-License-Identifier: Apache-2.0
// Mutation suite for ReadKernelBinary: 5000 seeded mutants of valid binaries (bit flips, byte
// stores, truncations and insertions, header-field stores, metadata text edits). Oracles:
//   - the reader never crashes (ASan/UBSan builds check memory safety) and only returns OK,
//     kCorruption or kInvalidArgument;
//   - whatever it accepts re-encodes to exactly the mutant's bytes;
//   - a mutant that only changes code bytes is accepted, with those code bytes;
//   - a mutant that changes structural bytes (ELF header, section headers, name table,
//     padding) is rejected.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <set>

#include "compiler/target/binary.h"
#include "tests/compiler/target/binary_samples.h"

namespace tilejit::target {
namespace {

constexpr int kCasesPerStrategy = 1000;
constexpr uint64_t kSeed = 0x7117e517;

enum class Kind { kCode, kContent, kStructure };

// A valid binary plus the kind of every byte in it.
struct Base {
  std::vector<uint8_t> bytes;
  std::vector<Kind> kinds;
};

Base MakeBase(const KernelBinary& b) {
  Base base;
  base.bytes = *WriteKernelBinary(b);
  base.kinds.assign(base.bytes.size(), Kind::kStructure);
  // .text.aic, .text.aiv, .tilejit.meta, .tilejit.lines, .tilejit.source
  for (size_t i = 1; i <= 5; ++i) {
    const uint8_t* h = base.bytes.data() + testing::SectionHeaderOffset(base.bytes, i);
    const uint64_t offset = elf::LoadLe(h + 24, 8);
    const uint64_t size = elf::LoadLe(h + 32, 8);
    for (uint64_t k = offset; k < offset + size; ++k) {
      base.kinds[k] = i <= 2 ? Kind::kCode : Kind::kContent;
    }
  }
  return base;
}

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}
  uint64_t Below(uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng_); }
  uint8_t Byte() { return static_cast<uint8_t>(Below(256)); }
  uint64_t Interesting(uint64_t size, uint64_t old) {
    const uint64_t values[] = {0,      1,        7,        8,       64,         size - 1,
                               size,   size + 1, old + 1,  old - 1, old + 8,    0xff,
                               0xffff, 0x910b,   1u << 31, ~0ull,   ~0ull >> 1, rng_()};
    return values[Below(std::size(values))];
  }

 private:
  std::mt19937_64 rng_;
};

struct Stats {
  int accepted = 0;
  int rejected = 0;
};

// Runs the reader on `mutant` and applies the oracles. `only` is the kind of every changed
// byte when the mutant has the base's size and all changes share a kind.
void Check(const Base& base, const std::vector<uint8_t>& mutant, std::optional<Kind> only,
           Stats* stats) {
  auto r = ReadKernelBinary(mutant);
  if (!r.ok()) {
    ++stats->rejected;
    const StatusCode code = r.status().code();
    ASSERT_TRUE(code == StatusCode::kCorruption || code == StatusCode::kInvalidArgument)
        << r.status();
    ASSERT_NE(only, Kind::kCode) << "rejected a code-only change: " << r.status();
    return;
  }
  ++stats->accepted;
  auto again = WriteKernelBinary(*r);
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_EQ(*again, mutant) << "accepted bytes that do not re-encode identically";
  if (mutant != base.bytes) {
    ASSERT_NE(only, Kind::kStructure) << "accepted a change to structural bytes";
  }
}

// Stores into `n` random bytes (or flips one bit when `flip`), then checks.
void PointMutants(const Base& base, Mutator& m, bool flip, Stats* stats) {
  std::vector<uint8_t> mutant = base.bytes;
  std::set<Kind> kinds;
  const int n = flip ? 1 : 1 + static_cast<int>(m.Below(4));
  for (int i = 0; i < n; ++i) {
    const size_t at = m.Below(mutant.size());
    if (flip) {
      mutant[at] ^= static_cast<uint8_t>(1u << m.Below(8));
    } else {
      mutant[at] = m.Byte();
    }
    if (mutant[at] != base.bytes[at]) kinds.insert(base.kinds[at]);
  }
  Check(base, mutant, kinds.size() == 1 ? std::optional(*kinds.begin()) : std::nullopt, stats);
}

void SizeMutants(const Base& base, Mutator& m, Stats* stats) {
  std::vector<uint8_t> mutant = base.bytes;
  switch (m.Below(3)) {
    case 0:
      mutant.resize(m.Below(mutant.size()));
      break;
    case 1:
      for (uint64_t i = 1 + m.Below(16); i > 0; --i) mutant.push_back(m.Byte());
      break;
    default:
      mutant.insert(mutant.begin() + static_cast<ptrdiff_t>(m.Below(mutant.size())),
                    1 + m.Below(16), m.Byte());
  }
  Check(base, mutant, std::nullopt, stats);
  ASSERT_FALSE(ReadKernelBinary(mutant).ok()) << "accepted a resized file";
}

// Stores an interesting value into a field of the ELF header or of a section header.
void FieldMutants(const Base& base, Mutator& m, Stats* stats) {
  std::vector<uint8_t> mutant = base.bytes;
  const uint64_t shnum = elf::LoadLe(mutant.data() + 60, 2);
  const uint64_t table = m.Below(shnum + 1);  // shnum: the ELF header itself
  const size_t start = table == shnum ? 16 : testing::SectionHeaderOffset(base.bytes, table);
  const size_t widths[] = {2, 4, 8};
  const size_t width = widths[m.Below(3)];
  const size_t at = start + m.Below((64 - (start == 16 ? 16 : 0)) / width) * width;
  const uint64_t old = elf::LoadLe(mutant.data() + at, width);
  elf::StoreLe(mutant.data() + at, m.Interesting(mutant.size(), old), width);
  Check(base, mutant, Kind::kStructure, stats);
}

// Edits the metadata text and rebuilds a well-formed container around it.
void MetadataMutants(const KernelBinary& b, Mutator& m, Stats* stats) {
  auto sections = testing::StandardSections(b);
  std::vector<uint8_t>& meta = sections[2].data;
  static constexpr char kAlphabet[] = "{}[]\",:-0123456789eE.tfnul \\\x01\xff";
  const size_t at = m.Below(meta.size());
  switch (m.Below(4)) {
    case 0:
      meta[at] = static_cast<uint8_t>(kAlphabet[m.Below(sizeof(kAlphabet) - 1)]);
      break;
    case 1:
      meta.erase(meta.begin() + static_cast<ptrdiff_t>(at));
      break;
    case 2:
      meta.insert(meta.begin() + static_cast<ptrdiff_t>(at), kAlphabet[m.Below(10) + 8]);
      break;
    default: {
      const size_t len = 1 + m.Below(std::min<size_t>(32, meta.size() - at));
      std::vector<uint8_t> span(meta.begin() + static_cast<ptrdiff_t>(at),
                                meta.begin() + static_cast<ptrdiff_t>(at + len));
      meta.insert(meta.begin() + static_cast<ptrdiff_t>(m.Below(meta.size())), span.begin(),
                  span.end());
    }
  }
  const Base base{testing::BuildRaw(sections), {}};
  Check(base, base.bytes, std::nullopt, stats);
}

TEST(KernelBinaryMutation, ReaderSurvivesAndJudgesEveryMutant) {
  const KernelBinary samples[] = {testing::SampleBinary(), testing::SampleCubeOnlyBinary(),
                                  testing::SampleSymbolicBinary()};
  const Base bases[] = {MakeBase(samples[0]), MakeBase(samples[1]), MakeBase(samples[2])};
  Mutator m(kSeed);
  Stats flips, stores, sizes, fields, metas;
  for (int i = 0; i < kCasesPerStrategy; ++i) {
    const size_t which = m.Below(3);
    ASSERT_NO_FATAL_FAILURE(PointMutants(bases[which], m, /*flip=*/true, &flips));
    ASSERT_NO_FATAL_FAILURE(PointMutants(bases[which], m, /*flip=*/false, &stores));
    ASSERT_NO_FATAL_FAILURE(SizeMutants(bases[which], m, &sizes));
    ASSERT_NO_FATAL_FAILURE(FieldMutants(bases[which], m, &fields));
    ASSERT_NO_FATAL_FAILURE(MetadataMutants(samples[which], m, &metas));
  }
  // Every strategy must both produce rejections and (except resizes and header fields, which
  // can never be valid) acceptances, or it is not exercising the reader.
  const std::pair<const char*, const Stats*> all[] = {{"flips", &flips},
                                                      {"stores", &stores},
                                                      {"sizes", &sizes},
                                                      {"fields", &fields},
                                                      {"metadata", &metas}};
  for (const auto& [name, s] : all) {
    std::printf("%-8s accepted %4d rejected %4d\n", name, s->accepted, s->rejected);
    EXPECT_GT(s->rejected, 0) << name;
  }
  EXPECT_GT(flips.accepted, 0);
  EXPECT_GT(stores.accepted, 0);
  EXPECT_EQ(sizes.accepted, 0);
  EXPECT_GT(metas.accepted, 0);
}

}  // namespace
}  // namespace tilejit::target
