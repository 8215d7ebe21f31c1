#pragma once
// What every registry of the extension points shares (recovery policies, failure scopes,
// topologies: docs/extending.md): entries by name, in registration order, the built-ins first.
// Entries live in a deque, so adding one never moves the others: a pointer or a view handed out
// for an entry stays valid.

#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fleetsim::models {

template <class T>
class NamedRegistry {
public:
  struct Entry {
    std::string name;
    T value;
  };

  /// The entry's position (a handle: Scope is one), or nullopt.
  [[nodiscard]] std::optional<size_t> index_of(std::string_view name) const
  {
    for (size_t i = 0; i < entries_.size(); ++i)
      if (entries_[i].name == name)
        return i;
    return std::nullopt;
  }
  [[nodiscard]] const T* find(std::string_view name) const
  {
    const auto i = index_of(name);
    return i ? &entries_[*i].value : nullptr;
  }
  [[nodiscard]] const Entry& at(size_t i) const { return entries_.at(i); }
  [[nodiscard]] size_t size() const { return entries_.size(); }
  [[nodiscard]] std::vector<std::string> names() const
  {
    std::vector<std::string> out;
    for (const auto& e : entries_)
      out.push_back(e.name);
    return out;
  }
  /// Adds an entry; false (and nothing added) when the name is taken.
  bool add(std::string name, T value)
  {
    if (index_of(name))
      return false;
    entries_.push_back({std::move(name), std::move(value)});
    return true;
  }

private:
  std::deque<Entry> entries_;
};

}  // namespace fleetsim::models
