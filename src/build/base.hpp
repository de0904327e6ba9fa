#pragma once
// A recipe's base resolved for a build, a plan or a lock — the one place that decides how (pulled by
// its locked digest, or as the recipe names it) — and where a recipe's lock file is.
#include <string>

#include "image/base_image.hpp"
#include "plan/lock_file.hpp"
#include "plan/plan.hpp"
#include "registry/transport.hpp"
#include "store/content_store.hpp"
#include "util/platform.hpp"

namespace rp::build {

// `lock_file` when given, else RECIPE.lock next to the recipe; a recipe on stdin ("-") needs one.
// A variant of the recipe's matrix: has a lock of its own (its args, and so its files, differ):
// RECIPE.VARIANT.lock, or `lock_file` with `{variant}` replaced by its name (build/variant_files.hpp).
std::string lock_path_for(const std::string& recipe, const std::string& lock_file, const std::string& variant = {});

// The recipe's base, resolved: pulled from its registry or imported from oci:/oci-archive:/
// docker-archive: (transports::resolve_base). With a `locked_digest`, a registry reference without a
// digest is pulled by that digest (the tag may have moved since) but keeps its name as the recipe
// writes it, so the image's base annotation, and its digest, are what an unlocked build gives. Local
// bases and an empty `locked_digest` resolve as they are (the plan then checks the digest:
// check_locked_base). `keep`: the files the recipe's steps read from the base.
BaseImage resolve_base(const std::string& base, const Platform& platform, ContentStore& store,
                       registry::Session& session, const RootfsView::KeepContent& keep = {},
                       const std::string& locked_digest = {});

// PlanOptions::resolve_base for `store` and `session`: resolve_base, with `lock`'s base digest when a
// lock is given. `store`, `session` and `lock` must outlive the plan.
decltype(PlanOptions::resolve_base) base_resolver(ContentStore& store, registry::Session& session,
                                                  const LockFile* lock = nullptr);

}  // namespace rp::build
