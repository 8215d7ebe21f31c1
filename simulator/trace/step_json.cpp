#include "step_json.hpp"

#include <string_view>
#include <type_traits>

namespace fleetsim::sim {

nlohmann::ordered_json step_json(const models::StepBreakdown& b, bool with_tokens)
{
  nlohmann::ordered_json j;
  visit_step_fields(b, [&](const char* name, const auto& v) {
    if (!with_tokens && std::string_view(name) == models::summary::step::kTokensPerStep.key)
      return;
    if constexpr (std::is_same_v<std::decay_t<decltype(v)>, units::Seconds>)
      j[name] = v.si();
    else
      j[name] = v;
  });
  return j;
}

models::StepBreakdown step_from_json(const nlohmann::json& j)
{
  models::StepBreakdown b;
  visit_step_fields(b, [&](const char* name, auto& v) {
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<T, units::Seconds>)
      v = units::Seconds(j.at(name).get<double>());
    else
      v = j.at(name).get<T>();
  });
  return b;
}

}  // namespace fleetsim::sim
