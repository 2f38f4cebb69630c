// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the kernel binary reader (compiler/target/binary.h).
//
// Raw bytes rarely get past the ELF header checks, so the first input byte picks a mode that
// aims the rest of the input at one layer while keeping the outer layers valid:
//   0: the input is the whole file;
//   1: the input is a list of (offset, value) byte patches applied to a valid sample binary;
//   2: the input is the .tilejit.meta section of an otherwise valid file;
//   3: the input is the .tilejit.lines section of an otherwise valid file.
// Oracles (abort on violation): the reader returns OK, kCorruption or kInvalidArgument only;
// anything it accepts re-encodes to exactly the bytes it was given.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "compiler/target/binary.h"
#include "tests/compiler/target/binary_samples.h"

namespace {

using tilejit::StatusCode;
namespace target = tilejit::target;

void CheckReader(const std::vector<uint8_t>& file) {
  auto r = target::ReadKernelBinary(file);
  if (!r.ok()) {
    const StatusCode code = r.status().code();
    if (code != StatusCode::kCorruption && code != StatusCode::kInvalidArgument) std::abort();
    return;
  }
  auto again = target::WriteKernelBinary(*r);
  if (!again.ok() || *again != file) std::abort();
}

std::vector<uint8_t> Patched(const uint8_t* data, size_t size) {
  std::vector<uint8_t> file = *target::WriteKernelBinary(target::testing::SampleBinary());
  for (size_t i = 0; i + 3 <= size; i += 3) {
    const size_t at = (size_t{data[i]} | size_t{data[i + 1]} << 8) % file.size();
    file[at] = data[i + 2];
  }
  return file;
}

std::vector<uint8_t> WithSection(size_t index, const uint8_t* data, size_t size) {
  auto sections = target::testing::StandardSections(target::testing::SampleBinary());
  sections[index].data.assign(data, data + size);
  return target::testing::BuildRaw(sections);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0] % 4;
  ++data;
  --size;
  switch (mode) {
    case 0:
      CheckReader(std::vector<uint8_t>(data, data + size));
      break;
    case 1:
      CheckReader(Patched(data, size));
      break;
    case 2: {
      const std::string_view text(reinterpret_cast<const char*>(data), size);
      auto meta = target::ParseKernelMetadata(text);
      if (meta.ok() && *target::SerializeKernelMetadata(*meta) != text) std::abort();
      CheckReader(WithSection(2, data, size));
      break;
    }
    default:
      CheckReader(WithSection(3, data, size));
  }
  return 0;
}
