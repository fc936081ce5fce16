// User-facing errors say what failed, where, and what was expected.
#include <gtest/gtest.h>

#include "weft/error.h"

namespace weft {
namespace {

TEST(Error, PrintsLocationOpAttrMessageAndExpectedInOrder) {
  Error e = Error("padding has 3 values").op("nn.conv2d").attr("padding").expected("1, 2 or 4 ints");
  EXPECT_STREQ(e.what(), "op nn.conv2d, attr padding: padding has 3 values; expected 1, 2 or 4 ints");
  EXPECT_EQ(e.op_name(), "nn.conv2d");
  EXPECT_EQ(e.attr_name(), "padding");
  EXPECT_EQ(e.expected_form(), "1, 2 or 4 ints");
  EXPECT_EQ(e.message(), "padding has 3 values");
}

TEST(Error, SourceLocationExpressionAndNotes) {
  Error e = Error("type mismatch").at({"model.relay", 3, 7}).in("nn.relu(%x)").note("inferred from %x");
  EXPECT_STREQ(e.what(), "model.relay:3:7: type mismatch\n  in: nn.relu(%x)\n  note: inferred from %x");
  EXPECT_EQ(e.loc().line, 3);
}

TEST(Error, SourceLocOmitsWhatIsUnknown) {
  EXPECT_EQ((SourceLoc{"f.txt", 0, 0}).str(), "f.txt");
  EXPECT_EQ((SourceLoc{"", 4, 2}).str(), "4:2");
  EXPECT_EQ((SourceLoc{"f.txt", 4, 0}).str(), "f.txt:4");
  EXPECT_FALSE(SourceLoc{}.known());
}

TEST(Error, ICheckRaisesInternalErrorWithFileAndCondition) {
  try {
    WEFT_ICHECK(1 + 1 == 3, "arithmetic");
    FAIL() << "no throw";
  } catch (const InternalError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("test_error.cpp"), std::string::npos) << what;
    EXPECT_NE(what.find("1 + 1 == 3"), std::string::npos) << what;
    EXPECT_NE(what.find("a bug in weft"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace weft
