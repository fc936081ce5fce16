// User-facing names of parameters, allocated as TVM's text printer allocates
// them (RelayTextPrinter::GetUniqueName): the first keeps its hint, a later one
// gets the next numeric suffix that is still free.
#include <gtest/gtest.h>

#include "weft/names.h"
#include "weft/printer.h"

namespace weft {
namespace {

std::vector<std::string> names_of(const std::vector<std::string>& hints) {
  std::vector<Var> params;
  for (const auto& h : hints) params.push_back(var(h));
  return param_names(function(params, tuple(std::vector<Expr>(params.begin(), params.end()))));
}

TEST(ParamNames, RepeatedHintsGetTheNextFreeSuffixAsTvmPrintsThem) {
  // TVM's lstm: every step's input is `data`; its text shows %data, %data1, %data2.
  EXPECT_EQ(names_of({"data", "w", "data", "data"}), (std::vector<std::string>{"data", "w", "data1", "data2"}));
  // A hint that already is a suffixed name is skipped over: x1, x, x -> x1, x, x2.
  EXPECT_EQ(names_of({"x1", "x", "x"}), (std::vector<std::string>{"x1", "x", "x2"}));
  EXPECT_EQ(names_of({"x", "x1", "x"}), (std::vector<std::string>{"x", "x1", "x2"}));
  // Hints that do not start with a letter get a `v` in front.
  EXPECT_EQ(names_of({"", "", "0d"}), (std::vector<std::string>{"v", "v1", "v0d"}));
}

TEST(ParamNames, AreTheNamesThePrinterShowsForAFunction) {
  std::vector<Var> params = {var("data"), var("data"), var("x1"), var("x"), var("x")};
  Function fn = function(params, tuple(std::vector<Expr>(params.begin(), params.end())));
  EXPECT_EQ(to_text(fn, {.show_types = false}),
            "fn (%data, %data1, %x1, %x, %x2) {\n"
            "  (%data, %data1, %x1, %x, %x2)\n"
            "}");
  EXPECT_EQ(param_names(fn), (std::vector<std::string>{"data", "data1", "x1", "x", "x2"}));
  EXPECT_EQ(params[1]->name_hint, "data");  // the hint itself is kept
}

TEST(NameAllocator, HandsOutEachNameOnce) {
  NameAllocator names;
  EXPECT_EQ(names.unique("a"), "a");
  EXPECT_EQ(names.unique("a1"), "a1");
  EXPECT_EQ(names.unique("a"), "a2");
  EXPECT_EQ(names.unique("a"), "a3");
  EXPECT_EQ(names.unique("a2"), "a21");
}

}  // namespace
}  // namespace weft
