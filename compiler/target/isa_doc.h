// SPDX-License-Identifier: Apache-2.0
// Markdown reference tables generated from isa.def (every opcode with its unit, cores, timing
// class and operand fields; every field with kind, encoded width and legal range).
// docs/isa.md embeds this text verbatim between the markers below, and a test checks that it
// is current. Pure; thread-safe.
#pragma once

#include <string>

namespace tilejit::target {

inline constexpr char kIsaDocBegin[] = "<!-- BEGIN GENERATED: IsaReferenceMarkdown() -->";
inline constexpr char kIsaDocEnd[] = "<!-- END GENERATED -->";

// The generated appendix, without the markers.
std::string IsaReferenceMarkdown();

}  // namespace tilejit::target
