#pragma once
// `rockpack plan` and `build --dry-run`: what a build would make, printed before anything is
// written — the base, every layer with the step that plans it, its entry count and (when the store
// has it already) its digest, and every component the steps resolved (version, URL, sha256). As a
// table for people, or JSON (--json) for machines; the JSON is what a lock file will hold.
#include <nlohmann/json.hpp>

#include "assemble/compression.hpp"
#include "plan/plan.hpp"
#include "store/content_store.hpp"

namespace rp::cli {

// The plan as JSON: {"name", "platform", "base": {name, digest} | null, "layers": [{index, step,
// name, entries, digest?, diff_id?}], "components": [{step, kind, name, version, url, sha256, size,
// origin, layer}], "resolution": {...}, "tags"}. A layer's "entries" is null when the step resolved
// it without its contents (python packages before download).
nlohmann::json plan_json(const BuildPlan& plan, const ContentStore& store, const Compression& compression);

// Prints the plan to stdout: plan_json(...).dump(2) with `json`, else tables.
void print_plan(const BuildPlan& plan, const ContentStore& store, const Compression& compression, bool json);

}  // namespace rp::cli
