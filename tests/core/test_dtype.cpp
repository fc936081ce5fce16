// Data types parse and print in Relay's spelling.
#include <gtest/gtest.h>

#include "weft/dtype.h"
#include "weft/error.h"

namespace weft {
namespace {

TEST(DataType, ParsesRelaySpellings) {
  EXPECT_EQ(DataType::parse("float32"), DataType::Float(32));
  EXPECT_EQ(DataType::parse("float16"), DataType::Float(16));
  EXPECT_EQ(DataType::parse("bfloat16"), DataType::BFloat(16));
  EXPECT_EQ(DataType::parse("int8"), DataType::Int(8));
  EXPECT_EQ(DataType::parse("int64"), DataType::Int(64));
  EXPECT_EQ(DataType::parse("uint8"), DataType::UInt(8));
  EXPECT_EQ(DataType::parse("bool"), DataType::Bool());
  EXPECT_EQ(DataType::parse("uint1"), DataType::Bool());
  DataType v = DataType::parse("float32x4");
  EXPECT_EQ(v.code, DataType::kFloat);
  EXPECT_EQ(v.bits, 32);
  EXPECT_EQ(v.lanes, 4);
}

TEST(DataType, BareIntAndFloatAre32BitsAsInTvm) {
  EXPECT_EQ(DataType::parse("int"), DataType::Int(32));
  EXPECT_EQ(DataType::parse("float"), DataType::Float(32));
}

TEST(DataType, PrintsRelaySpellings) {
  EXPECT_EQ(DataType::Float(32).str(), "float32");
  EXPECT_EQ(DataType::Int(64).str(), "int64");
  EXPECT_EQ(DataType::UInt(8).str(), "uint8");
  EXPECT_EQ(DataType::Bool().str(), "bool");
  EXPECT_EQ(DataType::BFloat(16).str(), "bfloat16");
  EXPECT_EQ(DataType::parse("int8x16").str(), "int8x16");
}

TEST(DataType, RoundTripsThroughText) {
  for (const char* s : {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
                        "uint32", "uint64", "bool", "bfloat16", "float32x8"})
    EXPECT_EQ(DataType::parse(s).str(), s);
}

TEST(DataType, ElementSizes) {
  EXPECT_EQ(DataType::Float(32).bytes(), 4u);
  EXPECT_EQ(DataType::Bool().bytes(), 1u);
  EXPECT_EQ(DataType::Float(16).bytes(), 2u);
  EXPECT_EQ(DataType::parse("float32x4").bytes(), 16u);
  EXPECT_TRUE(DataType::Bool().is_bool());
  EXPECT_TRUE(DataType::BFloat(16).is_float());
  EXPECT_FALSE(DataType::UInt(8).is_bool());
}

TEST(DataType, BadDtypeIsAnErrorNamingTheText) {
  for (const char* bad : {"float33", "floot32", "int0", "float32x0", "", "int8x", "bfloat32", "int128", "f32"}) {
    try {
      DataType::parse(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("'" + std::string(bad) + "'"), std::string::npos) << e.what();
      EXPECT_NE(e.expected_form().find("float32"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace weft
