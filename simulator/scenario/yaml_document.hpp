#pragma once
// One YAML document read from a scenario-like file (a scenario, an included hardware file, the
// validation cases): the checks every such file gets before its keys are read -- not empty, one
// document, yaml-cpp's known endless loops avoided -- with diagnostics at file:line:col.

#include "diagnostics.hpp"

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <string_view>

namespace fleetsim::scenario {

/// The 1-based location of a yaml-cpp mark in `file` ({file, 0, 0} when the mark is unknown).
[[nodiscard]] SourceLocation at(const std::string& file, const YAML::Mark& m);

/// The text's single document, which must be a map; nullopt after recording why (empty file,
/// several documents, malformed YAML, not a map). `what` names the file's role in messages
/// ("scenario", "cases file").
[[nodiscard]] std::optional<YAML::Node> parse_map_document(std::string_view text, const std::string& display_name,
                                                           const std::string& what, Diagnostics& diags);

/// The whole content of a file, or nullopt after recording why it cannot be read.
[[nodiscard]] std::optional<std::string> read_text_file(const std::string& path, const std::string& what,
                                                        Diagnostics& diags, SourceLocation where = {});

}  // namespace fleetsim::scenario
