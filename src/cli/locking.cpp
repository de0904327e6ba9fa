#include "cli/locking.hpp"

#include "output/output_spec.hpp"
#include "registry/base_image.hpp"
#include "reference/reference.hpp"
#include "util/error.hpp"

namespace rp::cli {

std::string lock_path_for(const std::string& recipe, const std::string& lock_file) {
  if (!lock_file.empty()) return lock_file;
  if (recipe == "-") throw InputError("a recipe on stdin has no default lock file", "name it: --lock FILE");
  return recipe + ".lock";
}

BaseImage resolve_locked_base(const std::string& base, const std::string& digest, const Platform& platform,
                              ContentStore& store, registry::Session& session, const RootfsView::KeepContent& keep) {
  if (digest.empty() || ImageLocation::is_local(base)) return registry::resolve_base(base, platform, store, session, keep);
  Reference ref = parse_reference(base);
  if (ref.has_digest()) return registry::resolve_base(base, platform, store, session, keep);
  BaseImage out = registry::resolve_base(ref.with_digest(digest).str(), platform, store, session, keep);
  // The image names its base as the recipe does: a locked build gives the unlocked build's digest.
  out.name = ref.str();
  return out;
}

}  // namespace rp::cli
