#include "cli/locking.hpp"

#include "transports/base_image.hpp"
#include "transports/location.hpp"
#include "util/error.hpp"

namespace rp::cli {

std::string lock_path_for(const std::string& recipe, const std::string& lock_file) {
  if (!lock_file.empty()) return lock_file;
  if (recipe == "-") throw InputError("a recipe on stdin has no default lock file", "name it: --lock FILE");
  return recipe + ".lock";
}

BaseImage resolve_locked_base(const std::string& base, const std::string& digest, const Platform& platform,
                              ContentStore& store, registry::Session& session, const RootfsView::KeepContent& keep) {
  const transports::AnyLocation where = transports::parse_location(base);
  if (digest.empty() || where.is_local() || where.remote.has_digest())
    return transports::resolve_base(base, platform, store, session, keep);
  BaseImage out = transports::resolve_base(where.remote.with_digest(digest).str(), platform, store, session, keep);
  // The image names its base as the recipe does: a locked build gives the unlocked build's digest.
  out.name = where.remote.str();
  return out;
}

}  // namespace rp::cli
