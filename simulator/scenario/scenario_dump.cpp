// fleetsim validate --dump-resolved: every resolved key, grouped by section, with where it came from
// (a default, a preset, a line of an included file), as a YAML scenario that reloads to the same one.
#include "scenario_loader.hpp"

#include "data_file.hpp"
#include "key_usage.hpp"
#include "parameter_table.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

namespace fleetsim::scenario {

namespace {

// The values grouped by section, each section once, where it first appears (an included file's keys
// come before the scenario's: without grouping a section would open twice, which YAML forbids).
std::vector<const ResolvedValue*> grouped_by_section(const std::vector<ResolvedValue>& resolved)
{
  std::map<std::string, size_t> first;  // section path -> where it first appears
  auto order = [&](const std::string& key) {
    std::vector<size_t> at;
    for (size_t dot = key.find('.'); dot != std::string::npos; dot = key.find('.', dot + 1))
      at.push_back(first.at(key.substr(0, dot)));
    return at;
  };
  for (size_t i = 0; i < resolved.size(); ++i)
    for (size_t dot = resolved[i].key.find('.'); dot != std::string::npos; dot = resolved[i].key.find('.', dot + 1))
      first.emplace(resolved[i].key.substr(0, dot), i);
  std::vector<const ResolvedValue*> out;
  for (const auto& v : resolved)
    out.push_back(&v);
  std::stable_sort(out.begin(), out.end(),
                   [&](const ResolvedValue* a, const ResolvedValue* b) { return order(a->key) < order(b->key); });
  return out;
}

}  // namespace

std::string dump_resolved(const std::vector<ResolvedValue>& resolved, const Scenario* built)
{
  std::string out;
  std::vector<std::string> open;  // currently open sections
  // Only the keys this kind of run reads: the others are refused when given (ParamSpec::applies).
  // (A fleet with a replayed job reads the single job's keys too: they are its job's.)
  const Applies other = gives_workload(resolved) ? Applies::Job : Applies::Fleet;
  const bool both = gives_replayed_job(resolved);
  for (const ResolvedValue* value : grouped_by_section(resolved)) {
    const ResolvedValue& v = *value;
    if (const ParamSpec* spec = find_param(v.key); spec != nullptr && spec->applies == other && !both)
      continue;
    std::vector<std::string> segs;
    std::stringstream ss(v.key);
    for (std::string s; std::getline(ss, s, '.');)
      segs.push_back(s);
    size_t common = 0;
    while (common < open.size() && common + 1 < segs.size() && open[common] == segs[common])
      ++common;
    open.resize(common);
    for (size_t d = common; d + 1 < segs.size(); ++d) {
      out += std::string(2 * d, ' ') + segs[d] + ":\n";
      open.push_back(segs[d]);
    }
    // A data file is named relative to the file that names it: the dump names it resolved (absolute),
    // so that the dump reloads from anywhere. (A --set value stays as given: relative to the scenario.)
    std::string text = v.text;
    const bool data_file = std::find(detail::kDataFileKeys.begin(), detail::kDataFileKeys.end(), v.key) !=
                           detail::kDataFileKeys.end();
    if (data_file && v.where.line > 0 && !text.empty() && !std::filesystem::path(text).is_absolute())
      text = std::filesystem::absolute(std::filesystem::path(v.where.file).parent_path() / text)
                 .lexically_normal()
                 .string();
    YAML::Emitter e;
    e << text;
    const std::string no_name;
    const bool read = built == nullptr || key_is_read(v.key, FactInput{*built, resolved, no_name});
    out += std::string(2 * (segs.size() - 1), ' ') + (read ? "" : "# ") + segs.back() + ": " + e.c_str();
    std::string note;
    if (v.is_default)
      note = v.where.file.rfind("preset ", 0) == 0 ? v.where.file : "default";
    else if (v.included)
      note = v.where.file + ":" + std::to_string(v.where.line);
    if (!read)
      note += (note.empty() ? "" : ", ") + std::string("not read by this run");
    out += note.empty() ? "\n" : "  # " + note + "\n";
  }
  return out;
}

}  // namespace fleetsim::scenario
