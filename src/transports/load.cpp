#include "transports/load.hpp"

#include "output/image_reader.hpp"
#include "registry/pull.hpp"

namespace rp::transports {

namespace {

SourcedImage load_local(const ImageLocation& where, ContentStore& store, Layers layers) {
  SourcedImage out;
  if (where.kind == ImageLocation::Kind::kOciLayout && layers != Layers::kStore) {
    const bool check_blobs = layers == Layers::kInPlace;
    out.image = read_oci_layout_in_place(where, out.blob_paths, &out.manifest_digest, check_blobs);
    if (!check_blobs) {
      out.blob_paths.clear();  // unchecked paths are nothing to stream from
      out.has_layers = false;
    }
    return out;
  }
  out.image = import_local_image(where, store, &out.manifest_digest);
  return out;
}

SourcedImage load_remote(const Reference& ref, const Platform& platform, ContentStore& store, registry::Session& session,
                         Layers layers) {
  SourcedImage out;
  const bool fetch_layers = layers != Layers::kNone;
  registry::PullResult pulled = registry::pull_image(ref, platform, store, session, fetch_layers);
  out.image = std::move(pulled.image);
  out.manifest_digest = std::move(pulled.manifest_digest);
  out.has_layers = fetch_layers;
  return out;
}

}  // namespace

SourcedImage load_image(const AnyLocation& where, const Platform& platform, ContentStore& store,
                        registry::Session& session, Layers layers) {
  if (where.local) return load_local(*where.local, store, layers);
  return load_remote(where.remote, platform, store, session, layers);
}

}  // namespace rp::transports
