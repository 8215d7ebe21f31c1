// A fixed amount of compiler work: tools/test.sh times its compilation to scale the stage budgets to
// the machine's speed (docs/testing.md). Never change this file: the reference time in tools/test.sh
// was measured on it.
#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

namespace probe {

template <int N>
struct Fib {
  static constexpr long value = Fib<N - 1>::value + Fib<N - 2>::value;
};
template <>
struct Fib<1> {
  static constexpr long value = 1;
};
template <>
struct Fib<0> {
  static constexpr long value = 0;
};

using Value = std::variant<long, double, std::string, std::vector<long>>;

std::string describe(const Value& v)
{
  return std::visit(
      [](const auto& x) {
        std::ostringstream o;
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::vector<long>>)
          o << "vector of " << x.size();
        else
          o << x;
        return o.str();
      },
      v);
}

std::map<std::string, std::vector<Value>> table(const std::vector<std::string>& lines)
{
  const std::regex row(R"(^\s*([a-z_]+)\s*=\s*(-?[0-9]+(\.[0-9]+)?)\s*$)");
  std::map<std::string, std::vector<Value>> out;
  for (const auto& line : lines) {
    std::smatch m;
    if (std::regex_match(line, m, row)) {
      if (m[3].matched)
        out[m[1]].emplace_back(std::stod(m[2]));
      else
        out[m[1]].emplace_back(std::stol(m[2]));
    } else {
      out["text"].emplace_back(line);
    }
  }
  return out;
}

}  // namespace probe

int main(int argc, char** argv)
{
  std::vector<std::string> lines(argv, argv + argc);
  std::unordered_map<std::string, std::function<long(long)>> ops = {
      {"double", [](long x) { return 2 * x; }},
      {"fib", [](long) { return probe::Fib<40>::value; }},
  };
  long sum = 0;
  for (const auto& [key, values] : probe::table(lines))
    for (const auto& v : values) {
      sum += static_cast<long>(probe::describe(v).size());
      sum += ops.at(key.size() % 2 ? "double" : "fib")(sum);
    }
  std::sort(lines.begin(), lines.end());
  std::cout << sum << " " << std::filesystem::current_path().string().size() << " " << lines.size() << "\n";
  return 0;
}
