// SPDX-License-Identifier: Apache-2.0
#include "runner/npy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace tilejit::runner {
namespace {

using target::ElementType;

// Builds a file the way NumPy writes it: magic, version, little-endian header length, dict.
std::vector<uint8_t> Make(int major, const std::string& dict, const std::vector<uint8_t>& data) {
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  const uint32_t len = static_cast<uint32_t>(dict.size());
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i)
    out.push_back(static_cast<uint8_t>(len >> (8 * i)));
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

TEST(Npy, ParsesVersions1To3) {
  const std::vector<uint8_t> data = {0, 0, 0x80, 0x3f, 0, 0, 0, 0x40};  // 1.0f, 2.0f
  for (int major : {1, 2, 3}) {
    auto r =
        ParseNpy(Make(major, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", data));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->dtype, ElementType::kFloat32);
    EXPECT_EQ(r->shape, std::vector<int64_t>{2});
    float f[2];
    std::memcpy(f, r->data.data(), 8);
    EXPECT_EQ(f[1], 2.0f);
  }
}

TEST(Npy, RoundTripsEveryDtypeAndScalars) {
  for (ElementType t : {ElementType::kBool, ElementType::kInt8, ElementType::kInt16,
                        ElementType::kInt32, ElementType::kInt64, ElementType::kUInt8,
                        ElementType::kUInt16, ElementType::kFloat16, ElementType::kFloat32}) {
    NpyArray a;
    a.dtype = t;
    a.shape = {2, 3};
    const int bytes =
        t == ElementType::kInt64                                                              ? 8
        : t == ElementType::kInt32 || t == ElementType::kFloat32                              ? 4
        : t == ElementType::kInt16 || t == ElementType::kUInt16 || t == ElementType::kFloat16 ? 2
                                                                                              : 1;
    for (int i = 0; i < 6 * bytes; ++i) a.data.push_back(static_cast<uint8_t>(i));
    auto bytes_or = SerializeNpy(a);
    ASSERT_TRUE(bytes_or.ok());
    EXPECT_EQ((bytes_or->size() - a.data.size()) % 64, 0u);  // header padded to 64
    auto back = ParseNpy(*bytes_or);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->dtype, t);
    EXPECT_EQ(back->shape, a.shape);
    EXPECT_EQ(back->data, a.data);
  }
  NpyArray s;
  s.data = {0, 0, 0x80, 0x3f};
  auto b = SerializeNpy(s);
  ASSERT_TRUE(b.ok());
  auto back = ParseNpy(*b);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->shape.empty());
}

TEST(Npy, WritesBf16AsUint16BitsAndReadsV2AsBf16) {
  NpyArray a;
  a.dtype = ElementType::kBFloat16;
  a.shape = {1};
  a.data = {0x80, 0x3f};
  auto bytes = SerializeNpy(a);
  ASSERT_TRUE(bytes.ok());
  EXPECT_NE(std::string(bytes->begin(), bytes->end()).find("'<u2'"), std::string::npos);
  auto v = ParseNpy(Make(1, "{'descr': '|V2', 'fortran_order': False, 'shape': (1,)}", {1, 2}));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->dtype, ElementType::kBFloat16);
}

TEST(Npy, RejectsMalformedFilesWithStatus) {
  const std::vector<uint8_t> four = {0, 0, 0, 0};
  const std::string good_tail = "'fortran_order': False, 'shape': (1,), }";
  const std::vector<std::vector<uint8_t>> bad = {
      {},
      {'N', 'U', 'M'},
      Make(9, "{'descr': '<f4', " + good_tail, four),
      Make(1, "{'descr': '>f4', " + good_tail, four),
      Make(1, "{'descr': '<c8', " + good_tail, four),
      Make(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", four),
      Make(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", four),
      Make(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", {0, 0, 0, 0, 0}),
      Make(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1", four),
      Make(1, "{'descr': '<f4', 'shape': (1,), }", four),
      Make(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999, 9999999),}",
           four),
      Make(1, "{'descr': [('a', '<f4')], " + good_tail, four),
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    auto r = ParseNpy(bad[i]);
    ASSERT_FALSE(r.ok()) << "case " << i;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << i;
  }
  // A header length that points past the end of the file.
  auto truncated = Make(1, "{'descr': '<f4', " + good_tail, four);
  truncated[8] = 0xff;
  truncated[9] = 0xff;
  EXPECT_FALSE(ParseNpy(truncated).ok());
}

TEST(Npy, ReadsAndWritesFiles) {
  NpyArray a;
  a.dtype = ElementType::kInt32;
  a.shape = {1};
  a.data = {7, 0, 0, 0};
  const std::string path = ::testing::TempDir() + "/npy_test.npy";
  ASSERT_TRUE(WriteNpyFile(path, a).ok());
  auto back = ReadNpyFile(path);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->data, a.data);
  EXPECT_EQ(ReadNpyFile(path + ".missing").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace tilejit::runner
