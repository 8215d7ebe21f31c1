#pragma once
// One name table per enum: the names a scenario spells an enum's values with, written once and
// read by the loader (its valid choices), the models (from a name) and the outputs (to a name).

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fleetsim::models {

template <class E, std::size_t N>
using NameTable = std::array<std::pair<std::string_view, E>, N>;

/// The value named `name`, or nullopt.
template <class E, std::size_t N>
[[nodiscard]] constexpr std::optional<E> from_name(const NameTable<E, N>& table, std::string_view name)
{
  for (const auto& [n, e] : table)
    if (n == name)
      return e;
  return std::nullopt;
}

/// The name of `value` ("" if the table lacks it).
template <class E, std::size_t N>
[[nodiscard]] constexpr std::string_view name_of(const NameTable<E, N>& table, E value)
{
  for (const auto& [n, e] : table)
    if (e == value)
      return n;
  return {};
}

/// Every name, in the table's order.
template <class E, std::size_t N>
[[nodiscard]] std::vector<std::string> names(const NameTable<E, N>& table)
{
  std::vector<std::string> out;
  for (const auto& entry : table)
    out.emplace_back(entry.first);
  return out;
}

}  // namespace fleetsim::models
