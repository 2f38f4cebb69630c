// SPDX-License-Identifier: Apache-2.0
// The parts of the daemon's cluster tier that need no Redis: the shared compile error's
// encoding (which another node decodes, so it is bounded and refuses malformed input), and the
// network file system check of the cache path. The protocol itself runs against a real
// redis-server in tests/e2e/service/cluster_test.py.
#include "server/redis_cluster.h"

#include <gtest/gtest.h>

#include "server/cache_store.h"

namespace tilejit::server {
namespace {

SharedError SampleError() {
  DiagnosticInfo note;
  note.severity = Severity::kNote;
  note.message = "largest buffers in ub";
  DiagnosticInfo error;
  error.severity = Severity::kError;
  error.file = "k.py";
  error.line = 24;
  error.column = 20;
  error.message = "ub buffer 'a_ub' needs 524288 bytes";
  error.rendered = "k.py:24:20: error: ub buffer 'a_ub' needs 524288 bytes\n";
  error.notes = {note};
  return {"ub buffer 'a_ub' needs 524288 bytes", {error}};
}

TEST(SharedError, RoundTripsMessageDiagnosticsAndNotes) {
  const SharedError in = SampleError();
  std::optional<SharedError> out = DecodeSharedError(EncodeSharedError(in));
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->message, in.message);
  ASSERT_EQ(out->diagnostics.size(), 1u);
  const DiagnosticInfo& d = out->diagnostics[0];
  EXPECT_EQ(d.severity, Severity::kError);
  EXPECT_EQ(d.file, "k.py");
  EXPECT_EQ(d.line, 24u);
  EXPECT_EQ(d.column, 20u);
  EXPECT_EQ(d.rendered, in.diagnostics[0].rendered);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].severity, Severity::kNote);
  EXPECT_EQ(d.notes[0].message, "largest buffers in ub");
}

TEST(SharedError, RefusesMalformedInput) {
  for (const char* bad : {"", "not json", "[]", "{}", R"({"message": 3, "diagnostics": []})",
                          R"({"message": "m", "diagnostics": {}})",
                          R"({"message": "m", "diagnostics": [{"severity": 7, "notes": []}]})",
                          R"({"message": "m", "diagnostics": [{"severity": 2}]})"}) {
    EXPECT_FALSE(DecodeSharedError(bad).has_value()) << bad;
  }
}

TEST(SharedError, BoundsHowDeepNotesNest) {
  DiagnosticInfo d;
  for (int depth = 0; depth <= kMaxSharedNoteDepth + 1; ++depth) {
    DiagnosticInfo outer;
    outer.message = "level " + std::to_string(depth);
    outer.notes = {d};
    d = outer;
  }
  EXPECT_FALSE(DecodeSharedError(EncodeSharedError({"m", {d}})).has_value());
  EXPECT_TRUE(DecodeSharedError(EncodeSharedError({"m", {d.notes[0].notes[0]}})).has_value());
}

TEST(NetworkFileSystemName, NamesNetworkFileSystemsOnly) {
  EXPECT_EQ(NetworkFileSystemName(0x6969), "nfs");
  EXPECT_EQ(NetworkFileSystemName(0xFF534D42), "cifs");
  EXPECT_EQ(NetworkFileSystemName(0x65735546), "fuse");
  EXPECT_FALSE(NetworkFileSystemName(0xEF53).has_value());      // ext4
  EXPECT_FALSE(NetworkFileSystemName(0x58465342).has_value());  // xfs
  EXPECT_FALSE(NetworkFileSystemName(0x01021994).has_value());  // tmpfs
}

}  // namespace
}  // namespace tilejit::server
