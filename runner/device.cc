// SPDX-License-Identifier: Apache-2.0
#include "runner/device.h"

namespace tilejit::runner {

std::string_view FindingKindName(FindingKind kind) {
  switch (kind) {
    case FindingKind::kRace:
      return "race";
    case FindingKind::kFlagMisuse:
      return "flag misuse";
    case FindingKind::kUninitRead:
      return "uninitialised read";
    case FindingKind::kOutOfBounds:
      return "out of bounds";
    case FindingKind::kMisaligned:
      return "misaligned";
    case FindingKind::kIllegalPath:
      return "illegal path";
    case FindingKind::kDeadlock:
      return "deadlock";
    case FindingKind::kBudget:
      return "instruction budget";
    case FindingKind::kLaunchCap:
      return "launch cap";
    case FindingKind::kFault:
      return "fault";
  }
  return "?";
}

}  // namespace tilejit::runner
