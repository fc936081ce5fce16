// The static memory plan on hand-worked schedules (offsets worked out on
// paper from the rules in memory_plan.h), its errors, and plan_problems over
// seeded random schedules.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "plan_checker.h"
#include "weft/error.h"
#include "weft/memory_plan.h"

namespace weft::testing {
namespace {

constexpr int64_t kEnd = PlannedValue::kLiveToEnd;

PlannedValue value(size_t nbytes, int64_t defined_at, int64_t last_use) {
  PlannedValue v;
  v.nbytes = nbytes;
  v.defined_at = defined_at;
  v.last_use = last_use;
  return v;
}

PlannedValue on_device(PlannedValue v, int device) {
  v.device = device;
  return v;
}

PlannedValue in_place_of(PlannedValue v, size_t candidate) {
  v.inplace_candidate = candidate;
  return v;
}

PlannedValue view_of(PlannedValue v, size_t viewed) {
  v.alias_of = viewed;
  return v;
}

// A value its own step writes into `whole`'s bytes from byte `offset` on.
PlannedValue part_of(PlannedValue v, size_t whole, size_t offset) {
  v.alias_of = whole;
  v.alias_offset = offset;
  return v;
}

std::vector<size_t> offsets(const MemoryPlan& plan) {
  std::vector<size_t> out;
  for (const auto& p : plan.placements) out.push_back(p.offset);
  return out;
}

MemoryPlan checked_plan(const std::vector<PlannedValue>& values) {
  MemoryPlan plan = plan_memory(values);
  EXPECT_THAT(plan_problems(values, plan), ::testing::IsEmpty());
  return plan;
}

TEST(MemoryPlan, ReusesTheBytesOfADeadTensorAndAlignsEveryOffsetTo64) {
  // a (100 B) is read by b's step and dies there; c is written the step after,
  // into a's bytes. Largest first: b at 0; a overlaps b in time -> above b at
  // 256 (200 rounded up); c overlaps b only -> also 256.
  std::vector<PlannedValue> values = {value(100, 0, 1), value(200, 1, 2), value(64, 2, kEnd)};
  MemoryPlan plan = checked_plan(values);
  EXPECT_THAT(offsets(plan), ::testing::ElementsAre(256, 0, 256));
  EXPECT_THAT(plan.arena_bytes, ::testing::ElementsAre(384));
  EXPECT_EQ(plan.intermediate_bytes, 364u);
  EXPECT_EQ(plan.total_arena_bytes(), 384u);
}

TEST(MemoryPlan, PutsATensorIntoTheSmallestGapThatHoldsIt) {
  // a, b, c live through steps 0-9; h1 and h2 only at step 0, so once they
  // die they leave gaps of 512 B (between a and b) and 384 B (between b and
  // c). g (128 B, step 5) takes the smaller gap, not the first.
  std::vector<PlannedValue> values = {value(1024, 0, 9), value(512, 0, 0), value(448, 0, 9),
                                      value(384, 0, 0),  value(320, 0, 9), value(128, 5, 5)};
  MemoryPlan plan = checked_plan(values);
  EXPECT_THAT(offsets(plan), ::testing::ElementsAre(0, 1024, 1536, 1984, 2368, 1984));
  EXPECT_THAT(plan.arena_bytes, ::testing::ElementsAre(2688));
}

TEST(MemoryPlan, ChainsInPlaceElementwiseResultsInOneBlock) {
  // conv -> relu -> add: each result may overwrite the input that dies at its step.
  std::vector<PlannedValue> values = {value(1000, 0, 1), in_place_of(value(1000, 1, 2), 0),
                                      in_place_of(value(1000, 2, kEnd), 1)};
  MemoryPlan plan = checked_plan(values);
  EXPECT_THAT(offsets(plan), ::testing::ElementsAre(0, 0, 0));
  EXPECT_THAT(plan.arena_bytes, ::testing::ElementsAre(1024));
  EXPECT_EQ(plan.intermediate_bytes, 3000u);
}

TEST(MemoryPlan, RefusesInPlaceOverAnInputStillReadLaterSmallerOrOnAnotherDevice) {
  // Read again at step 2: the result gets bytes of its own.
  std::vector<PlannedValue> read_later = {value(1024, 0, 2), in_place_of(value(1024, 1, 2), 0)};
  EXPECT_THAT(offsets(checked_plan(read_later)), ::testing::ElementsAre(0, 1024));
  std::vector<PlannedValue> smaller = {value(512, 0, 1), in_place_of(value(1024, 1, 2), 0)};
  EXPECT_THAT(offsets(checked_plan(smaller)), ::testing::ElementsAre(1024, 0));
  std::vector<PlannedValue> elsewhere = {value(1024, 0, 1), in_place_of(on_device(value(1024, 1, 2), 1), 0)};
  MemoryPlan plan = checked_plan(elsewhere);
  EXPECT_THAT(offsets(plan), ::testing::ElementsAre(0, 0));
  EXPECT_THAT(plan.arena_bytes, ::testing::ElementsAre(1024, 1024));
}

TEST(MemoryPlan, GivesADyingInputToOnlyOneResultOfAStep) {
  // Both results of step 1 name value 0; the first (by index) takes it.
  std::vector<PlannedValue> values = {value(1024, 0, 1), in_place_of(value(1024, 1, 3), 0),
                                      in_place_of(value(1024, 1, 3), 0)};
  EXPECT_THAT(offsets(checked_plan(values)), ::testing::ElementsAre(0, 0, 1024));
}

TEST(MemoryPlan, AViewSharesItsValuesBytesAndKeepsThemAlive) {
  // v views a and is read at step 3, so a's bytes stay taken through step 3:
  // b may not overwrite a in place at step 1, and c (step 2) cannot reuse them.
  std::vector<PlannedValue> values = {value(1024, 0, 1), view_of(value(1024, 1, 3), 0),
                                      in_place_of(value(1024, 1, 2), 0), value(1024, 2, kEnd)};
  MemoryPlan plan = checked_plan(values);
  EXPECT_THAT(offsets(plan), ::testing::ElementsAre(0, 0, 1024, 2048));
  EXPECT_EQ(plan.intermediate_bytes, 3072u);  // the view holds no bytes of its own
}

TEST(MemoryPlan, AnInPlaceResultMayOverwriteAViewThatDiesAtItsStep) {
  // a -> reshape v (read last at step 2) -> b in place over v: all at 0.
  std::vector<PlannedValue> values = {value(1024, 0, 1), view_of(value(1024, 1, 2), 0),
                                      in_place_of(value(1024, 2, kEnd), 1)};
  MemoryPlan plan = checked_plan(values);
  EXPECT_THAT(offsets(plan), ::testing::ElementsAre(0, 0, 0));
  EXPECT_THAT(plan.arena_bytes, ::testing::ElementsAre(1024));
}

TEST(MemoryPlan, WritesThePartsOfAConcatenationIntoItsBytes) {
  // x (step 0, 256 B) and y (step 2, 128 B) are the parts of z (complete at
  // step 2, read at 3), so z's block is taken from step 0: t (step 1, 512 B)
  // cannot share it. Largest first: t at 0; w (step 3 on, 448 B) also at 0,
  // after t died; z's block (384 B, steps 0-3) above both at 512: x at 512,
  // y at 512 + 256.
  std::vector<PlannedValue> values = {part_of(value(256, 0, 1), 3, 0), value(512, 1, 1),
                                      part_of(value(128, 2, 2), 3, 256), value(384, 2, 3), value(448, 3, kEnd)};
  MemoryPlan plan = checked_plan(values);
  EXPECT_THAT(offsets(plan), ::testing::ElementsAre(512, 0, 768, 512, 0));
  EXPECT_THAT(plan.arena_bytes, ::testing::ElementsAre(896));
  EXPECT_EQ(plan.intermediate_bytes, 512u + 384 + 448);
}

TEST(MemoryPlan, NestsThePartsOfAConcatenationThatIsItselfAPart) {
  // a and b are the parts of c; d and c those of e: offsets add up the chain.
  std::vector<PlannedValue> values = {part_of(value(64, 0, 2), 2, 0), part_of(value(128, 1, 2), 2, 64),
                                      part_of(value(192, 1, 2), 4, 64), part_of(value(64, 2, 2), 4, 0),
                                      value(256, 2, kEnd)};
  MemoryPlan plan = checked_plan(values);
  EXPECT_THAT(offsets(plan), ::testing::ElementsAre(64, 128, 64, 0, 0));
  EXPECT_THAT(plan.arena_bytes, ::testing::ElementsAre(256));
}

TEST(MemoryPlan, KeepsOneArenaPerDevice) {
  std::vector<PlannedValue> values = {value(64, 0, kEnd), on_device(value(640, 0, kEnd), 2), value(128, 1, kEnd)};
  MemoryPlan plan = checked_plan(values);
  EXPECT_THAT(offsets(plan), ::testing::ElementsAre(128, 0, 0));
  EXPECT_EQ(plan.placements[1].device, 2);
  EXPECT_THAT(plan.arena_bytes, ::testing::ElementsAre(192, 0, 640));
  EXPECT_EQ(plan.total_arena_bytes(), 832u);
}

TEST(MemoryPlan, LeavesEmptyTensorsAtOffsetZeroOutsideTheArena) {
  std::vector<PlannedValue> values = {value(0, 0, kEnd), value(64, 0, kEnd)};
  MemoryPlan plan = checked_plan(values);
  EXPECT_THAT(offsets(plan), ::testing::ElementsAre(0, 0));
  EXPECT_THAT(plan.arena_bytes, ::testing::ElementsAre(64));
}

std::string plan_error(const std::vector<PlannedValue>& values) {
  try {
    plan_memory(values);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(MemoryPlan, NamesTheValueOfAMalformedSchedule) {
  EXPECT_THAT(plan_error({value(64, 3, 2)}),
              ::testing::HasSubstr("memory plan: value 0 is last read at step 2, before step 3 defines it"));
  EXPECT_THAT(plan_error({on_device(value(64, 0, 0), -1)}), ::testing::HasSubstr("value 0 is on device -1"));
  EXPECT_THAT(plan_error({value(64, 0, 1), view_of(value(64, 1, 1), 5)}),
              ::testing::HasSubstr("value 1 views value 5"));
  EXPECT_THAT(plan_error({value(64, 0, 1), view_of(value(128, 1, 1), 0)}),
              ::testing::HasSubstr("value 1 views 128 bytes from byte 0 of value 0, which has 64"));
  EXPECT_THAT(plan_error({part_of(value(64, 0, 1), 1, 128), value(128, 1, 2)}),
              ::testing::HasSubstr("value 0 views 64 bytes from byte 128 of value 1, which has 128"));
  EXPECT_THAT(plan_error({part_of(value(64, 0, 1), 1, 32), value(128, 1, 2)}),
              ::testing::HasSubstr("value 0 views value 1 from byte 32"));
  EXPECT_THAT(plan_error({value(64, 0, 1), view_of(on_device(value(64, 1, 1), 1), 0)}),
              ::testing::HasSubstr("value 1 views value 0 on another device"));
  EXPECT_THAT(plan_error({view_of(value(64, 0, 1), 1), view_of(value(64, 0, 1), 0)}),
              ::testing::HasSubstr("value 0 is a view in a cycle of views"));
  EXPECT_THAT(plan_error({value(64, 1, 2), in_place_of(value(64, 1, 2), 0)}),
              ::testing::HasSubstr("value 1 names in-place candidate 0, not defined before it"));
  EXPECT_THAT(plan_error({value(64, 0, 2), in_place_of(view_of(value(64, 1, 2), 0), 0)}),
              ::testing::HasSubstr("value 1 is both a view and an in-place result"));
}

TEST(MemoryPlanChecker, FindsTensorsThatShareBytesWhileAlive) {
  // The checker is the oracle of the random cases: it must see a bad plan.
  std::vector<PlannedValue> values = {value(100, 0, 1), value(200, 1, 2), value(64, 2, kEnd)};
  MemoryPlan plan = plan_memory(values);
  plan.placements[0].offset = 0;  // over b, alive at step 1 with it
  EXPECT_THAT(plan_problems(values, plan),
              ::testing::ElementsAre("value 0 and value 1 share bytes while both are alive"));
  // In place is sound only over an input that dies at the result's step.
  std::vector<PlannedValue> read_later = {value(1024, 0, 2), in_place_of(value(1024, 1, 2), 0)};
  MemoryPlan shared = plan_memory(read_later);
  shared.placements[1].offset = 0;
  EXPECT_THAT(plan_problems(read_later, shared),
              ::testing::ElementsAre("value 0 and value 1 share bytes while both are alive"));
  // A tensor alive while the parts of a concatenation are written is not in its block.
  std::vector<PlannedValue> concatenation = {part_of(value(256, 0, 1), 2, 0), value(256, 1, 1), value(256, 1, 2)};
  MemoryPlan over_part = plan_memory(concatenation);
  over_part.placements[1].offset = over_part.placements[2].offset;
  EXPECT_THAT(plan_problems(concatenation, over_part),
              ::testing::ElementsAre("value 0 and value 1 share bytes while both are alive",
                                     "value 1 and value 2 share bytes while both are alive"));
  plan = plan_memory(values);
  plan.placements[2].offset = 384;
  EXPECT_THAT(plan_problems(values, plan), ::testing::ElementsAre("value 2 outside its device's arena"));
}

// A random schedule: steps defining one to three values each, read by later
// steps or kept as outputs, on one or two devices, some results in place over
// an input of their step, some views of an earlier value, some parts of a
// concatenation no step writes.
std::vector<PlannedValue> random_schedule(std::mt19937& rng, int steps) {
  std::vector<PlannedValue> values;
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  for (int step = 0; step < steps; ++step) {
    // Inputs of this step: a few earlier values, each read here.
    std::vector<size_t> inputs;
    for (int k = 0, n = values.empty() ? 0 : 1 + pick(3); k < n; ++k) inputs.push_back(pick(values.size()));
    for (size_t in : inputs) values[in].last_use = std::max<int64_t>(values[in].last_use, step);
    for (int r = 0, n = 1 + pick(3) / 2 + pick(4) / 3; r < n; ++r) {
      PlannedValue v = value(64 * pick(20) + pick(64), step, step);
      v.device = pick(5) == 0 ? 1 : 0;
      if (!inputs.empty() && pick(3) == 0) {
        size_t in = inputs[pick(inputs.size())];
        if (pick(2) == 0 && values[in].device == v.device) {
          v.alias_of = in;
          v.nbytes = std::min(v.nbytes, values[in].nbytes);
        } else {
          v.inplace_candidate = in;
        }
      }
      values.push_back(v);
    }
    // Sometimes a concatenation of up to three values with no sharing yet,
    // read here: each becomes a part of it, at 64-byte aligned offsets.
    if (pick(4) == 0) {
      std::vector<size_t> parts;
      for (size_t i = values.size(); i-- > 0 && parts.size() < 3;)
        if (!values[i].alias_of && !values[i].inplace_candidate && values[i].device == 0 && pick(2) == 0)
          parts.push_back(i);
      if (parts.empty()) continue;
      PlannedValue whole = value(0, 0, step);
      for (size_t p : parts) {
        values[p].alias_of = values.size();
        values[p].alias_offset = whole.nbytes;
        whole.nbytes += (values[p].nbytes + 63) / 64 * 64;
        whole.defined_at = std::max(whole.defined_at, values[p].defined_at);
      }
      values.push_back(whole);
    }
  }
  // Later reads, and outputs that live to the end.
  for (PlannedValue& v : values) {
    if (pick(10) == 0)
      v.last_use = kEnd;
    else if (v.last_use != kEnd && pick(3) == 0)
      v.last_use = std::min<int64_t>(steps - 1, v.last_use + pick(8));
  }
  return values;
}

TEST(MemoryPlanChecker, FindsNoProblemInThePlansOfRandomSchedules) {
  std::mt19937 rng(13);
  size_t in_place = 0, views = 0, parts = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<PlannedValue> values = random_schedule(rng, 2 + trial % 40);
    MemoryPlan plan = plan_memory(values);
    ASSERT_THAT(plan_problems(values, plan), ::testing::IsEmpty()) << "trial " << trial;
    EXPECT_EQ(plan, plan_memory(values)) << "trial " << trial << ": not deterministic";
    for (size_t i = 0; i < values.size(); ++i) {
      views += values[i].alias_of.has_value();
      parts += values[i].alias_of && values[i].defined_at <= values[*values[i].alias_of].defined_at;
      in_place += values[i].inplace_candidate &&
                  plan.placements[i].offset == plan.placements[*values[i].inplace_candidate].offset;
    }
    size_t per_device_bytes = 0;
    for (const PlannedValue& v : values) per_device_bytes += v.alias_of ? 0 : (v.nbytes + 63) / 64 * 64;
    EXPECT_LE(plan.total_arena_bytes(), per_device_bytes);
  }
  // The schedules exercise both kinds of sharing.
  EXPECT_GT(in_place, 50u);
  EXPECT_GT(views, 100u);
  EXPECT_GT(parts, 100u);
}

}  // namespace
}  // namespace weft::testing
