// rockpack push SRC DEST...: copies an image from a local layout or archive (oci:, oci-archive:,
// docker-archive:) to registries, or to other local layouts and archives.
#include <spdlog/spdlog.h>

#include <cstdio>

#include "cli/commands.hpp"
#include "cli/progress_display.hpp"
#include "build/image_io.hpp"
#include "cli/registry_flags.hpp"
#include "output/image_reader.hpp"
#include "output/output_spec.hpp"
#include "output/sealed_layout.hpp"
#include "registry/push.hpp"
#include "reference/reference.hpp"
#include "registry/sealed_io.hpp"
#include "transports/location.hpp"
#include "util/error.hpp"

namespace rp::cli {

namespace {

struct PushArgs {
  std::string source;
  std::vector<std::string> destinations;
  std::string cache_dir;
  uint64_t chunk_size_mib = 0;
  RegistryFlags registry;
};

// The names a copy of `from` gets when its destination does not give any: a docker archive's first
// RepoTag, a layout's or oci-archive's tags.
build::DefaultNames names_of(const ImageLocation& from) {
  LocalImage local = read_local_image(from);
  build::DefaultNames names;
  if (from.kind == ImageLocation::Kind::kDockerArchive) {
    if (!local.repo_tags.empty()) {
      const std::string& first = local.repo_tags.front();
      names.name = first.substr(0, first.rfind(':'));
      names.tags.push_back(first.substr(first.rfind(':') + 1));
    }
  } else {
    names.tags = local.repo_tags;
  }
  return names;
}

void run_push(const PushArgs& args) {
  ImageLocation from = ImageLocation::parse(args.source);
  std::vector<Reference> refs;
  std::vector<ImageLocation> locals;
  for (const auto& d : args.destinations) {
    transports::AnyLocation where = transports::parse_location(d);
    if (where.is_local())
      locals.push_back(std::move(*where.local));
    else
      refs.push_back(std::move(where.remote));
  }

  ContentStore store(args.cache_dir.empty() ? ContentStore::default_root() : fs::path(args.cache_dir));
  ProgressDisplay progress(ProgressDisplay::mode_for_stderr());
  if (!locals.empty()) {
    // A local destination gets a copy: the manifest bytes stay where the source has a manifest, so
    // the digest does too.
    SealedImage image = seal_local_image(from, store);
    build::DefaultNames names = names_of(from);
    for (const auto& to : locals) {
      build::write_image(image, store, to, names, 0);
      spdlog::info("copied {} to {}", from.str(), to.str());
    }
    if (refs.empty()) {
      std::printf("%s\n", image.manifest.digest.c_str());
      return;
    }
  }
  registry::RegistryOptions options = registry_options(args.registry);
  if (args.chunk_size_mib) {
    options.chunk_size = args.chunk_size_mib << 20;
    options.monolithic_limit = options.chunk_size;
  }
  registry::Session session(options);

  registry::PushResult result;
  if (from.kind == ImageLocation::Kind::kOciLayout) {
    // The layout's own bytes go up: the digest in the registry is the digest in the layout.
    if (auto index = index_from_oci_layout(from.path, from.tag)) {
      result = registry::push_index(index->bytes, index->media_type, index->children, store, refs, session, from.path);
    } else {
      SealedImage image = sealed_from_oci_layout(from.path, from.tag);
      result = registry::push_image(image, store, refs, session, from.path);
    }
  } else {
    // An archive's layers enter the store first. An oci-archive keeps its manifest (and digest);
    // a docker archive has none of its own and gets an OCI manifest.
    result = registry::push_image(seal_local_image(from, store), store, refs, session);
  }
  spdlog::info("pushed {} blob{} ({:.1f} MiB), {} already there, {} mounted", result.stats.blobs_uploaded,
               result.stats.blobs_uploaded == 1 ? "" : "s", static_cast<double>(result.stats.bytes_uploaded) / (1 << 20),
               result.stats.blobs_existing, result.stats.blobs_mounted);
  for (const auto& p : result.pushed) spdlog::info("pushed {}", p);
  std::printf("%s\n", result.digest.c_str());
}

}  // namespace

void add_push_command(CLI::App& app, GlobalOptions&) {
  auto args = std::make_shared<PushArgs>();
  CLI::App* cmd = app.add_subcommand("push", "Push an image from an OCI layout or archive to a registry (or copy it)");
  cmd->add_option("source", args->source, "The image: oci:DIR[:TAG], oci-archive:FILE[:TAG] or docker-archive:FILE")
      ->required();
  cmd->add_option("reference", args->destinations,
                  "Where to: [registry/]name[:tag] (without a tag, :latest), or oci:, oci-archive:, docker-archive: "
                  "to copy (several may be given)")
      ->required();
  cmd->add_option("--cache-dir", args->cache_dir, "The content store (default $XDG_CACHE_HOME/rockpack)");
  cmd->add_option("--chunk-size", args->chunk_size_mib,
                  "Upload blobs larger than this many MiB in chunks of this size (default: 32 MiB limit, 128 MiB chunks)");
  add_registry_flags(cmd, args->registry);
  cmd->callback([args] { run_push(*args); });
}

}  // namespace rp::cli
