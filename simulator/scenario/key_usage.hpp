#pragma once
// Which of the keys a scenario gives its run reads: each key's declaration says under which choices
// it is read (ParamSpec::read_when), and a key given where they do not hold is unused. The loader
// refuses such a key (exit 2, at the key: the choice that leaves it unused and the one that would
// use it), or lists it: a key from an included file (a hardware or cluster file describes the machine
// for whichever model reads it), and every key of a compare's or a sweep's point, where varying a
// choice may leave a base's key unused at some points (CONVENTIONS.md 14).

#include "diagnostics.hpp"
#include "parameter_table.hpp"
#include "scenario.hpp"
#include "scenario_loader.hpp"

#include <vector>

namespace fleetsim::scenario {

/// The keys `resolved` gives (not defaults) whose conditions do not hold on `s`, in table order.
[[nodiscard]] std::vector<UnusedKey> find_unused_keys(const std::vector<ResolvedValue>& resolved, const Scenario& s);

/// True when the run reads `key` (a concrete key: "failures.causes.nic.repair") under the choices of
/// `in` (its declaration's conditions hold; a key without conditions is always read).
[[nodiscard]] bool key_is_read(const std::string& key, const FactInput& in);

/// The message of an unused key: "'KEY' is not used: REASON".
[[nodiscard]] std::string unused_key_message(const UnusedKey& u);

}  // namespace fleetsim::scenario
