#pragma once
// What `build --locked` and `rockpack lock` share: where a recipe's lock file is, and the base pulled
// by its locked digest.
#include <string>

#include "image/base_image.hpp"
#include "registry/transport.hpp"
#include "store/content_store.hpp"
#include "util/platform.hpp"

namespace rp::cli {

// `lock_file` when given, else RECIPE.lock next to the recipe; a recipe on stdin ("-") needs one.
std::string lock_path_for(const std::string& recipe, const std::string& lock_file);

// The recipe's base, resolved: a registry reference without a digest is pulled by `digest` (the
// locked one; the tag may have moved since) but keeps its name as the recipe writes it, so the
// image's base annotation, and its digest, are what an unlocked build gives. Local bases and an
// empty `digest` resolve as they are (the plan then checks the digest: check_locked_base). `keep`
// as for transports::resolve_base.
BaseImage resolve_locked_base(const std::string& base, const std::string& digest, const Platform& platform,
                              ContentStore& store, registry::Session& session, const RootfsView::KeepContent& keep = {});

}  // namespace rp::cli
