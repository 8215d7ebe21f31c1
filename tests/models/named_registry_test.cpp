#include "models/core/named_registry.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using fleetsim::models::NamedRegistry;

TEST(NamedRegistry, KeepsRegistrationOrderAndRefusesATakenName)
{
  NamedRegistry<int> r;
  EXPECT_TRUE(r.add("b", 2));
  EXPECT_TRUE(r.add("a", 1));
  EXPECT_FALSE(r.add("b", 3));
  EXPECT_EQ(r.size(), 2u);
  EXPECT_EQ(r.names(), (std::vector<std::string>{"b", "a"}));
  ASSERT_NE(r.find("b"), nullptr);
  EXPECT_EQ(*r.find("b"), 2) << "the first registration stays";
  EXPECT_EQ(r.index_of("a"), 1u);
  EXPECT_EQ(r.find("c"), nullptr);
  EXPECT_FALSE(r.index_of("c").has_value());
}

TEST(NamedRegistry, AnEntryHandedOutStaysValidWhileOthersAreAdded)
{
  NamedRegistry<std::string> r;
  r.add("first", "value of the first");
  const std::string* first = r.find("first");
  const std::string_view name = r.at(0).name;
  for (int i = 0; i < 10000; ++i)
    r.add(std::string("n").append(std::to_string(i)), std::to_string(i));
  EXPECT_EQ(first, r.find("first"));
  EXPECT_EQ(*first, "value of the first");
  EXPECT_EQ(name, "first");
}

}  // namespace
