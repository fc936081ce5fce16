// Reference counting and iterative destruction of IR objects.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "small_stack.h"
#include "weft/object.h"

namespace weft {
namespace {

struct Node : Object {
  explicit Node(int* live, Ref<Node> next = nullptr) : live(live), next(std::move(next)) { ++*live; }
  ~Node() override { --*live; }
  int* live;
  Ref<Node> next;
};

struct Derived : Node {
  using Node::Node;
};

TEST(Object, RefCountsFollowCopiesMovesAndResets) {
  int live = 0;
  Ref<Node> a = make_ref<Node>(&live);
  EXPECT_EQ(a->use_count(), 1);
  {
    Ref<Node> b = a;
    EXPECT_EQ(a->use_count(), 2);
    EXPECT_TRUE(a.same_as(b));
    Ref<Node> c = std::move(b);
    EXPECT_FALSE(b.defined());
    EXPECT_EQ(a->use_count(), 2);
  }
  EXPECT_EQ(a->use_count(), 1);
  a = nullptr;
  EXPECT_EQ(live, 0);
}

TEST(Object, ReleaseHandsOverTheReferenceWithoutDroppingIt) {
  int live = 0;
  Ref<Node> a = make_ref<Node>(&live);
  Node* raw = a.release();
  EXPECT_FALSE(a.defined());
  EXPECT_EQ(raw->use_count(), 1);
  EXPECT_EQ(live, 1);
  raw->dec_ref();
  EXPECT_EQ(live, 0);
}

TEST(Object, DowncastAndAsSeeTheDynamicType) {
  int live = 0;
  Ref<Node> base = make_ref<Derived>(&live);
  EXPECT_NE(base.as<Derived>(), nullptr);
  Ref<const Derived> d = downcast<Derived>(base);
  EXPECT_TRUE(d.defined());
  EXPECT_EQ(d.get(), base.get());
  Ref<Node> plain = make_ref<Node>(&live);
  EXPECT_FALSE(downcast<Derived>(plain).defined());
  EXPECT_EQ(plain.as<Derived>(), nullptr);
}

TEST(Object, SharedChildOutlivesOneParent) {
  int live = 0;
  Ref<Node> child = make_ref<Node>(&live);
  Ref<Node> p1 = make_ref<Node>(&live, child);
  Ref<Node> p2 = make_ref<Node>(&live, child);
  child = nullptr;
  p1 = nullptr;
  EXPECT_EQ(live, 2);  // p2 and the child
  p2 = nullptr;
  EXPECT_EQ(live, 0);
}

TEST(Object, ReleasingTheRootOfA100000NodeChainDoesNotRecurse) {
  // On a 2 MiB stack, recursive destruction of 100,000 nodes would overflow.
  int live = 0;
  testing::run_with_stack(testing::kSmallStack, [&] {
    Ref<Node> head;
    for (int i = 0; i < 100000; ++i) head = make_ref<Node>(&live, head);
    EXPECT_EQ(live, 100000);
    head = nullptr;
    EXPECT_EQ(live, 0);
  });
}

TEST(Object, ChainsCanBeReleasedRepeatedlyOnTheSameThread) {
  // The deferred-release queue is per outermost release; it must be reset after.
  int live = 0;
  testing::run_with_stack(testing::kSmallStack, [&] {
    for (int round = 0; round < 3; ++round) {
      Ref<Node> head;
      for (int i = 0; i < 50000; ++i) head = make_ref<Node>(&live, head);
      head = nullptr;
      EXPECT_EQ(live, 0);
    }
  });
}

TEST(Object, ThreadsReleaseTheirOwnChainsIndependently) {
  // Each thread has its own deferred-release queue.
  std::atomic<int> live{0};
  struct CountedNode : Object {
    CountedNode(std::atomic<int>* live, Ref<CountedNode> next) : live(live), next(std::move(next)) { ++*live; }
    ~CountedNode() override { --*live; }
    std::atomic<int>* live;
    Ref<CountedNode> next;
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      Ref<CountedNode> head;
      for (int i = 0; i < 50000; ++i) head = make_ref<CountedNode>(&live, head);
      head = nullptr;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(live.load(), 0);
}

TEST(Object, RefHashIsIdentity) {
  int live = 0;
  Ref<Node> a = make_ref<Node>(&live);
  Ref<Node> b = a;
  Ref<Node> c = make_ref<Node>(&live);
  EXPECT_EQ(RefHash()(a), RefHash()(b));
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a == c);
}

}  // namespace
}  // namespace weft
