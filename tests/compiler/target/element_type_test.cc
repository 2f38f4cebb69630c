// SPDX-License-Identifier: Apache-2.0
#include "compiler/target/element_type.h"

#include <gtest/gtest.h>

#include <string>

namespace tilejit::target {
namespace {

TEST(ElementType, EveryNameParsesBackToItsType) {
  for (int i = 0; i < kNumElementTypes; ++i) {
    const auto t = static_cast<ElementType>(i);
    EXPECT_EQ(ParseElementType(ElementTypeName(t)), t) << ElementTypeName(t);
  }
  EXPECT_FALSE(ParseElementType("half").has_value());  // aliases are the frontend's business
  EXPECT_FALSE(ParseElementType("float8_e4m3").has_value());
}

TEST(ElementType, SizesAndKinds) {
  EXPECT_EQ(ElementTypeBytes(ElementType::kBool), 1);
  EXPECT_EQ(ElementTypeBits(ElementType::kBool), 8);
  EXPECT_EQ(ElementTypeBytes(ElementType::kBFloat16), 2);
  EXPECT_EQ(ElementTypeBytes(ElementType::kUInt64), 8);
  EXPECT_EQ(ElementTypeBytes(ElementType::kFloat32), 4);
  EXPECT_TRUE(IsFloatElement(ElementType::kBFloat16));
  EXPECT_FALSE(IsFloatElement(ElementType::kInt32));
  EXPECT_TRUE(IsIntElement(ElementType::kUInt8));
  EXPECT_FALSE(IsIntElement(ElementType::kBool));
  EXPECT_FALSE(IsIntElement(ElementType::kFloat16));
}

}  // namespace
}  // namespace tilejit::target
