#include "inventory/image_source.hpp"

#include "output/image_reader.hpp"
#include "output/output_spec.hpp"
#include "registry/pull.hpp"
#include "registry/reference.hpp"

namespace rp::inventory {

SourcedImage load_image(const std::string& location, const Platform& platform, ContentStore& store,
                        const registry::RegistryOptions& options) {
  SourcedImage out;
  if (ImageLocation::is_local(location)) {
    out.image = import_local_image(ImageLocation::parse(location), store, &out.manifest_digest);
    return out;
  }
  std::string text = location.starts_with("docker://") ? location.substr(9) : location;
  registry::PullResult pulled = registry::pull_image(registry::parse_reference(text), platform, store, options);
  out.image = std::move(pulled.image);
  out.manifest_digest = pulled.manifest_digest;
  return out;
}

}  // namespace rp::inventory
