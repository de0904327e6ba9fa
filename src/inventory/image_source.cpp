#include "inventory/image_source.hpp"

#include "output/image_reader.hpp"
#include "output/output_spec.hpp"
#include "registry/pull.hpp"
#include "reference/reference.hpp"

namespace rp::inventory {

SourcedImage load_image(const std::string& location, const Platform& platform, ContentStore& store,
                        const registry::RegistryOptions& options, bool in_place) {
  SourcedImage out;
  if (ImageLocation::is_local(location)) {
    ImageLocation where = ImageLocation::parse(location);
    if (in_place && where.kind == ImageLocation::Kind::kOciLayout) {
      out.image = read_oci_layout_in_place(where, out.blob_paths, &out.manifest_digest);
      return out;
    }
    out.image = import_local_image(where, store, &out.manifest_digest);
    return out;
  }
  std::string text = location.starts_with("docker://") ? location.substr(9) : location;
  registry::PullResult pulled = registry::pull_image(parse_reference(text), platform, store, options);
  out.image = std::move(pulled.image);
  out.manifest_digest = pulled.manifest_digest;
  return out;
}

}  // namespace rp::inventory
