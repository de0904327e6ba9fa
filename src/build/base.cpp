#include "build/base.hpp"

#include "build/variant_files.hpp"

#include "output/output_spec.hpp"
#include "registry/base_image.hpp"
#include "registry/reference.hpp"
#include "util/error.hpp"

namespace rp::build {

std::string lock_path_for(const std::string& recipe, const std::string& lock_file, const std::string& variant) {
  if (!lock_file.empty()) return variant.empty() ? lock_file : per_variant_path(lock_file, variant);
  if (recipe == "-") throw InputError("a recipe on stdin has no default lock file", "name it: --lock FILE");
  return variant.empty() ? recipe + ".lock" : recipe + "." + variant + ".lock";
}

BaseImage resolve_base(const std::string& base, const Platform& platform, ContentStore& store,
                       registry::Session& session, const RootfsView::KeepContent& keep, const std::string& digest) {
  if (digest.empty() || ImageLocation::is_local(base)) return registry::resolve_base(base, platform, store, session, keep);
  registry::Reference ref = registry::parse_reference(base);
  if (ref.has_digest()) return registry::resolve_base(base, platform, store, session, keep);
  BaseImage out = registry::resolve_base(ref.with_digest(digest).str(), platform, store, session, keep);
  // The image names its base as the recipe does: a locked build gives the unlocked build's digest.
  out.name = ref.str();
  return out;
}

decltype(PlanOptions::resolve_base) base_resolver(ContentStore& store, registry::Session& session, const LockFile* lock) {
  return [&store, &session, lock](const std::string& base, const Platform& platform, const RootfsView::KeepContent& keep) {
    return resolve_base(base, platform, store, session, keep, lock ? lock->base_digest : std::string());
  };
}

}  // namespace rp::build
