#pragma once
// Validation apart from calibration, by construction (issue 42, CONVENTIONS.md 15): a step case's
// resolved inputs (what `fleetsim validate --dump-resolved` prints, names and descriptions aside)
// compared between cases. A validation case whose inputs equal a calibration case's is no test of
// the model (its error is the gap between two published figures of one configuration): a test
// fails on it, and `fleetsim calibrate` refuses to fit on such a calibration case. A validation case
// that differs from a calibration case only in its layout (the same model on the same cluster) is a
// test, but a weaker one: `reproduce` reports those as a group of their own, and the headline error
// with and without them. No SimGrid here.

#include "validation_case.hpp"

#include <map>
#include <string>
#include <vector>

namespace fleetsim::validation {

/// A case's resolved inputs, key -> text, without name and description; the case's step_model, when
/// it gives one, as run.step_model. Empty, with `error` set, when the scenario does not load.
[[nodiscard]] std::map<std::string, std::string> resolved_inputs(const ValidationCase& c, std::string& error);

/// True for the keys that make a case's layout rather than its model or cluster: parallelism.*, the
/// micro-batch and global batch, and the GPUs they need.
[[nodiscard]] bool is_layout_key(const std::string& key);

/// Every validation case whose resolved inputs equal a calibration case's, one message each.
[[nodiscard]] std::vector<std::string> shared_input_problems(const CaseList& list);

/// The validation cases that share model and cluster with a calibration case, differing only in
/// layout keys: validation id -> the calibration case's id.
[[nodiscard]] std::map<std::string, std::string> layout_siblings(const CaseList& list);

/// True for the keys that say how the training stack ran a model rather than what the model is or
/// which layout it had: kernels fused or eager, attention kernels, recomputation, precision, dropout,
/// the micro-batch, interleaving and the pipeline's details, the distributed optimizer and sharding,
/// and what the stack overlaps.
[[nodiscard]] bool is_stack_key(const std::string& key);

/// What breaks "a validation case's stack knobs come from its source, or from its stack's one
/// declared default" in the step cases of `list`, one message each: a case that includes no file of
/// `stacks_dir` (one per training stack: its defaults, each with its reasoning), or more than one; a
/// stack file that sets a key that is not a stack key; a case file that sets a stack key itself
/// without quoting its source on that line (a source tag such as [MLM], and no ASSUMPTION: an
/// assumption is the stack's, the same for every case of it). Empty when none.
[[nodiscard]] std::vector<std::string> stack_problems(const CaseList& list, const std::string& stacks_dir);

}  // namespace fleetsim::validation
