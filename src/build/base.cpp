#include "build/base.hpp"

#include "build/variant_files.hpp"

#include "transports/base_image.hpp"
#include "transports/location.hpp"
#include "util/error.hpp"

namespace rp::build {

std::string lock_path_for(const std::string& recipe, const std::string& lock_file, const std::string& variant) {
  if (!lock_file.empty()) return variant.empty() ? lock_file : per_variant_path(lock_file, variant);
  if (recipe == "-") throw InputError("a recipe on stdin has no default lock file", "name it: --lock FILE");
  return variant.empty() ? recipe + ".lock" : recipe + "." + variant + ".lock";
}

BaseImage resolve_base(const std::string& base, const Platform& platform, ContentStore& store,
                       registry::Session& session, const RootfsView::KeepContent& keep, const std::string& digest) {
  const transports::AnyLocation where = transports::parse_location(base);
  if (digest.empty() || where.is_local() || where.remote.has_digest())
    return transports::resolve_base(base, platform, store, session, keep);
  BaseImage out = transports::resolve_base(where.remote.with_digest(digest).str(), platform, store, session, keep);
  // The image names its base as the recipe does: a locked build gives the unlocked build's digest.
  out.name = where.remote.str();
  return out;
}

decltype(PlanOptions::resolve_base) base_resolver(ContentStore& store, registry::Session& session, const LockFile* lock) {
  return [&store, &session, lock](const std::string& base, const Platform& platform, const RootfsView::KeepContent& keep) {
    return resolve_base(base, platform, store, session, keep, lock ? lock->base_digest : std::string());
  };
}

}  // namespace rp::build
