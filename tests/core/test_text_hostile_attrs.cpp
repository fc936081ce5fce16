// Hostile programs as a user would feed them (Relay text, parsed then
// type-checked): attrs whose values would make a relation build a shape or a
// tuple of absurd size, or a type past weft's limits, are an error naming
// the op, the attr and what was expected, with the source location, before
// anything of that size is allocated. tests/fuzz/corpus/parser holds these
// programs as seeds too.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "weft/error.h"
#include "weft/passes.h"
#include "weft/text.h"

namespace weft {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

/// A module whose main takes `params` and returns `body`.
std::string program(const std::string& params, const std::string& body) {
  return "#[version = \"0.0.5\"]\ndef @main(" + params + ") {\n  " + body + "\n}\n";
}

/// The error that parsing and type-checking `text` gives ("" if none).
std::string error_of(const std::string& text) {
  try {
    infer_type(parse_module(text, "hostile.relay"));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const std::string kMatrix = "%x: Tensor[(2, 3), float32]";

TEST(TextHostileAttrs, ExpandDimsPastTheRankLimitNamesTheAttrInsteadOfExhaustingMemory) {
  // 10^12 new axes would be an 8 TB shape (std::bad_alloc before the fix).
  EXPECT_THAT(error_of(program(kMatrix, "expand_dims(%x, axis=0, num_newaxis=1000000000000)")),
              AllOf(HasSubstr("hostile.relay:3:3"), HasSubstr("op expand_dims"),
                    HasSubstr("num_newaxis 1000000000000"), HasSubstr("expected at most 62")));
  // The largest count that fits: rank 2 + 62 = 64, NumPy's limit.
  EXPECT_EQ(error_of(program(kMatrix, "expand_dims(%x, axis=0, num_newaxis=62)")), "");
  EXPECT_THAT(error_of(program(kMatrix, "expand_dims(%x, axis=0, num_newaxis=63)")),
              HasSubstr("passes the 64 axes a tensor may have"));
  // INT64_MAX: the limit check itself must not overflow.
  EXPECT_THAT(error_of(program(kMatrix, "expand_dims(%x, axis=-1, num_newaxis=9223372036854775807)")),
              HasSubstr("num_newaxis 9223372036854775807"));
}

TEST(TextHostileAttrs, SplittingAnEmptyAxisIntoCountlessSectionsIsAnError) {
  // 3 is not divisible by 10^12, but 0 is: without a bound the relation made
  // 10^12 empty pieces.
  EXPECT_THAT(error_of(program("%x: Tensor[(2, 0), float32]", "split(%x, indices_or_sections=1000000000000, axis=1)")),
              AllOf(HasSubstr("hostile.relay:3:3"), HasSubstr("op split"), HasSubstr("empty axis 1"),
                    HasSubstr("1000000000000 sections"), HasSubstr("expected at most 65536")));
  // NumPy splits an empty axis into a few empty pieces: so does weft.
  EXPECT_EQ(error_of(program("%x: Tensor[(2, 0), float32]", "split(%x, indices_or_sections=3, axis=1)")), "");
}

TEST(TextHostileAttrs, ATypePastTheRankLimitIsAnErrorAtItsLocation) {
  std::string shape = "1";
  for (int i = 1; i < 65; ++i) shape += ", 1";
  EXPECT_THAT(error_of(program("%x: Tensor[(" + shape + "), float32]", "%x")),
              AllOf(HasSubstr("hostile.relay:2:15"), HasSubstr("rank 65"), HasSubstr("the 64 a tensor may have")));
}

TEST(TextHostileAttrs, AParsedTypeTooLargeToCountIsAnErrorAtItsLocation) {
  EXPECT_THAT(error_of(program("%x: Tensor[(0, 4611686018427387904, 2), float32]", "%x")),
              AllOf(HasSubstr("hostile.relay:2:15"), HasSubstr("more bytes than int64 can count")));
}

}  // namespace
}  // namespace weft
