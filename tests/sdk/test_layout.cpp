// sdk/layout.hpp against hand-worked cases: the axes of NCHW, NCHW16c and
// OIHW16i16o, and the shape and index mappings of TVM's BijectiveLayout
// (a dst primal extent rounds up; a forward index then a backward one is the
// identity); bad layouts and inconvertible pairs are LayoutErrors saying why.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <weft/sdk/layout.hpp>

namespace {

using namespace weft::sdk;
using ::testing::HasSubstr;
using Ints = std::vector<int64_t>;

std::string layout_error(const std::string& name) {
  try {
    Layout{name};
  } catch (const LayoutError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Layout, AxesFactorsAndPositions) {
  Layout nchw16c("NCHW16c");
  EXPECT_TRUE(nchw16c.defined());
  EXPECT_EQ(nchw16c.ndim(), 5u);
  EXPECT_EQ(nchw16c.ndim_primal(), 4u);
  EXPECT_EQ(nchw16c.index_of('C'), 1);
  EXPECT_EQ(nchw16c.index_of('c'), 4);
  EXPECT_EQ(nchw16c.index_of('D'), -1);
  EXPECT_EQ(nchw16c.factor_of('C'), 16);
  EXPECT_EQ(nchw16c.factor_of('c'), 16);
  EXPECT_EQ(nchw16c.factor_of('N'), -1);
  EXPECT_TRUE(nchw16c[1].primal());
  EXPECT_FALSE(nchw16c[4].primal());
  EXPECT_EQ(nchw16c[4].primal_name(), 'C');
  EXPECT_EQ(nchw16c[4].factor, 16);

  Layout oihw("OIHW16i16o");
  EXPECT_EQ(oihw.ndim(), 6u);
  EXPECT_EQ(oihw.factor_of('O'), 16);
  EXPECT_EQ(oihw.factor_of('I'), 16);
  EXPECT_EQ(oihw.index_of('o'), 5);
  EXPECT_EQ(oihw.name(), "OIHW16i16o");
}

TEST(Layout, EqualityIsByName) {
  EXPECT_EQ(Layout("NCHW"), Layout("NCHW"));
  EXPECT_NE(Layout("NCHW"), Layout("NHWC"));
  EXPECT_EQ(Layout(), Layout("__undef__"));
  EXPECT_FALSE(Layout().defined());
  EXPECT_EQ(Layout().name(), "__undef__");
  // The scalar layout has no axes but is defined, unlike the undefined one.
  EXPECT_TRUE(Layout("").defined());
  EXPECT_NE(Layout(""), Layout());
}

TEST(Layout, SubLayoutAndSplit) {
  EXPECT_EQ(Layout("NCHW").sub_layout(1, 3), Layout("CHW"));
  EXPECT_EQ(Layout("NHWC").sub_layout(3, 5), Layout("C"));  // clipped at the end
  EXPECT_EQ(Layout("NHWC").sub_layout(4, 1), Layout(""));
  EXPECT_FALSE(Layout("NHWC").sub_layout(5, 1).defined());
  EXPECT_EQ(Layout("NCHW").split('C', 4, 16), Layout("NCHW16c"));
  EXPECT_EQ(Layout("OIHW").split('I', 4, 8).split('O', 5, 4), Layout("OIHW8i4o"));
  EXPECT_THROW(Layout("NCHW16c").split('C', 5, 8), LayoutError);  // already split
  EXPECT_THROW(Layout("NCHW").split('D', 4, 8), LayoutError);
}

TEST(Layout, ConvertibleWhenThePrimalAxesAgree) {
  EXPECT_TRUE(Layout("NCHW").convertible_to(Layout("NHWC16c")));
  EXPECT_FALSE(Layout("NCHW").convertible_to(Layout("NCW")));
  EXPECT_FALSE(Layout("NCHW").convertible_to(Layout("NCHD")));
  EXPECT_FALSE(Layout().convertible_to(Layout("NCHW")));
}

TEST(Layout, BadLayoutsSayWhatIsWrong) {
  EXPECT_THAT(layout_error("NCHWc"), HasSubstr("positive factor"));
  EXPECT_THAT(layout_error("NC8HW"), HasSubstr("cannot take a block size"));
  EXPECT_THAT(layout_error("NCHW16"), HasSubstr("ends with a block size"));
  EXPECT_THAT(layout_error("NCHWW"), HasSubstr("W appears twice"));
  EXPECT_THAT(layout_error("NCHW8c8c"), HasSubstr("c appears twice"));
  EXPECT_THAT(layout_error("NCH16w"), HasSubstr("no primal axis W"));
  EXPECT_THAT(layout_error("NC-HW"), HasSubstr("'-' is not an axis letter"));
  EXPECT_THAT(layout_error("NCHW99999999999c"), HasSubstr("too large"));
  EXPECT_THAT(layout_error("NCHWc"), HasSubstr("layout 'NCHWc'"));
}

TEST(BijectiveLayout, PlainPermutation) {
  BijectiveLayout b(Layout("NCHW"), Layout("NHWC"));
  EXPECT_EQ(b.forward_shape(Ints{1, 3, 224, 200}), (Ints{1, 224, 200, 3}));
  EXPECT_EQ(b.backward_shape(Ints{1, 224, 200, 3}), (Ints{1, 3, 224, 200}));
  EXPECT_EQ(b.forward_index(Ints{0, 2, 5, 7}), (Ints{0, 5, 7, 2}));
  EXPECT_EQ(b.backward_index(Ints{0, 5, 7, 2}), (Ints{0, 2, 5, 7}));
}

TEST(BijectiveLayout, BlockedChannels) {
  BijectiveLayout b(Layout("NCHW"), Layout("NCHW16c"));
  EXPECT_EQ(b.forward_shape(Ints{1, 32, 7, 7}), (Ints{1, 2, 7, 7, 16}));
  EXPECT_EQ(b.backward_shape(Ints{1, 2, 7, 7, 16}), (Ints{1, 32, 7, 7}));
  EXPECT_EQ(b.forward_index(Ints{0, 17, 3, 4}), (Ints{0, 1, 3, 4, 1}));  // channel 17 = block 1, lane 1
  EXPECT_EQ(b.backward_index(Ints{0, 1, 3, 4, 1}), (Ints{0, 17, 3, 4}));
  // Unknown extents stay unknown.
  EXPECT_EQ(b.forward_shape(Ints{-1, 32, 7, 7}), (Ints{-1, 2, 7, 7, 16}));
  // 12 channels in blocks of 8 round up to 2 blocks: 16 channels backward.
  BijectiveLayout b8(Layout("NCHW"), Layout("NCHW8c"));
  EXPECT_EQ(b8.forward_shape(Ints{1, 12, 2, 2}), (Ints{1, 2, 2, 2, 8}));
  EXPECT_EQ(b8.backward_shape(Ints{1, 2, 2, 2, 8}), (Ints{1, 16, 2, 2}));
}

TEST(BijectiveLayout, WeightBlocksAndReblocking) {
  BijectiveLayout w(Layout("OIHW"), Layout("OIHW16i16o"));
  EXPECT_EQ(w.forward_shape(Ints{64, 32, 3, 3}), (Ints{4, 2, 3, 3, 16, 16}));
  EXPECT_EQ(w.forward_index(Ints{33, 17, 1, 2}), (Ints{2, 1, 1, 2, 1, 1}));
  EXPECT_EQ(w.backward_index(Ints{2, 1, 1, 2, 1, 1}), (Ints{33, 17, 1, 2}));
  // From one blocking to another: channel 17 is (1, 1) in blocks of 16, (2, 1) in blocks of 8.
  BijectiveLayout r(Layout("NCHW16c"), Layout("NHWC8c"));
  EXPECT_EQ(r.forward_shape(Ints{1, 2, 5, 5, 16}), (Ints{1, 5, 5, 4, 8}));
  EXPECT_EQ(r.forward_index(Ints{0, 1, 3, 4, 1}), (Ints{0, 3, 4, 2, 1}));
  EXPECT_EQ(r.backward_index(Ints{0, 3, 4, 2, 1}), (Ints{0, 1, 3, 4, 1}));
}

TEST(BijectiveLayout, ForwardThenBackwardIsTheIdentity) {
  BijectiveLayout b(Layout("NCHW"), Layout("NHWC4c"));
  const Ints shape{2, 8, 3, 2};
  int checked = 0;
  for (int64_t n = 0; n < shape[0]; ++n)
    for (int64_t c = 0; c < shape[1]; ++c)
      for (int64_t h = 0; h < shape[2]; ++h)
        for (int64_t w = 0; w < shape[3]; ++w) {
          Ints index{n, c, h, w};
          Ints dst = b.forward_index(index);
          EXPECT_EQ(dst, (Ints{n, h, w, c / 4, c % 4}));
          EXPECT_EQ(b.backward_index(dst), index);
          ++checked;
        }
  EXPECT_EQ(checked, 96);
}

TEST(BijectiveLayout, MismatchesAreErrors) {
  EXPECT_THROW(BijectiveLayout(Layout("NCHW"), Layout("NCW")), LayoutError);
  EXPECT_THROW(BijectiveLayout(Layout(), Layout("NCHW")), LayoutError);
  BijectiveLayout b(Layout("NCHW8c"), Layout("NCHW"));
  try {
    b.forward_shape(Ints{1, 2, 3, 4, 4});
    FAIL() << "a subordinate extent other than the layout's was accepted";
  } catch (const LayoutError& e) {
    EXPECT_THAT(e.what(), HasSubstr("expected 8"));
  }
  EXPECT_THROW(b.forward_shape(Ints{1, 2, 3}), LayoutError);
}

}  // namespace
