#include "transports/base_image.hpp"

#include <spdlog/spdlog.h>

#include <future>

#include "image/base_layer_check.hpp"
#include "transports/load.hpp"
#include "util/error.hpp"

namespace rp::transports {

namespace {

// A registry base is pulled for the build's platform; a file holds one image, which must be it.
void check_platform(const std::string& base, const Image& image, const Platform& platform) {
  Platform has;
  has.os = image.config.value("os", "");
  has.architecture = image.config.value("architecture", "");
  has.variant = image.config.value("variant", "");
  if (!platform.matches(has))
    throw InputError("the base " + base + " is a " + has.str() + " image, but the build is for " + platform.str(),
                     "use a base for " + platform.str() + ", or build for " + has.str() +
                         " (the recipe's platform: key or build --platform)");
}

}  // namespace

BaseImage resolve_base(const std::string& base, const Platform& platform, ContentStore& store, registry::Session& session,
                       const RootfsView::KeepContent& keep) {
  const AnyLocation where = parse_location(base);
  SourcedImage loaded = load_image(where, platform, store, session);
  if (where.is_local()) check_platform(base, loaded.image, platform);
  BaseImage out;
  out.image = std::move(loaded.image);
  out.name = where.str();
  out.digest = std::move(loaded.manifest_digest);
  // On a thread of its own: on a cold store this is half a second per 64 MB layer, which planning
  // (index pages, downloads) can use. The plan waits for it before its base is used (BuildPlan), and
  // a step that looks into the base waits for its read (StepContext::rootfs).
  out.verified = std::async(std::launch::async, [image = out.image, name = out.name, &store, keep] {
                   return verify_base_layers(image, store, name, keep);
                 }).share();
  size_t n = out.image.layers.size();
  spdlog::info("base {}{} ({} layer{})", out.name, out.digest.empty() ? "" : "@" + out.digest, n, n == 1 ? "" : "s");
  return out;
}

}  // namespace rp::transports
