#include "registry/base_image.hpp"

#include <spdlog/spdlog.h>

#include <future>

#include "image/base_layer_check.hpp"
#include "output/image_reader.hpp"
#include "output/output_spec.hpp"
#include "registry/pull.hpp"
#include "reference/reference.hpp"
#include "util/error.hpp"

namespace rp::registry {

bool is_scratch(const std::string& base) { return base.empty() || base == "scratch"; }

BaseImage resolve_base(const std::string& base, const Platform& platform, ContentStore& store, Session& session,
                       const RootfsView::KeepContent& keep) {
  BaseImage out;
  if (ImageLocation::is_local(base)) {
    ImageLocation where = ImageLocation::parse(base);
    out.image = import_local_image(where, store, &out.digest);
    out.name = where.str();
    Platform has;
    has.os = out.image.config.value("os", "");
    has.architecture = out.image.config.value("architecture", "");
    has.variant = out.image.config.value("variant", "");
    if (!platform.matches(has))
      throw InputError("the base " + base + " is a " + has.str() + " image, but the build is for " + platform.str(),
                       "use a base for " + platform.str() + ", or build for " + has.str() +
                           " (the recipe's platform: key or build --platform)");
  } else {
    Reference ref = parse_reference(base);
    PullResult pulled = pull_image(ref, platform, store, session);
    out.image = std::move(pulled.image);
    out.name = ref.str();
    out.digest = pulled.manifest_digest;
  }
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

}  // namespace rp::registry
