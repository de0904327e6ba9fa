// rockpack pull REF oci:DIR[:TAG]: fetches an image for one platform and writes it as an OCI layout.
#include <spdlog/spdlog.h>

#include <cstdio>

#include "cli/commands.hpp"
#include "cli/registry_flags.hpp"
#include "output/oci_layout.hpp"
#include "output/output_spec.hpp"
#include "registry/pull.hpp"
#include "registry/reference.hpp"
#include "registry/sealed_io.hpp"
#include "util/error.hpp"

namespace rp::cli {

namespace {

struct PullArgs {
  std::string reference;
  std::string destination;
  std::string platform = "linux/amd64";
  std::string cache_dir;
  RegistryFlags registry;
};

void run_pull(const PullArgs& args) {
  registry::Reference ref = registry::parse_reference(args.reference);
  ImageLocation to = ImageLocation::parse(args.destination);
  if (to.kind != ImageLocation::Kind::kOciLayout)
    throw InputError("rockpack pull writes OCI layouts only", "give the destination as oci:DIR[:TAG]");
  Platform platform = Platform::parse(args.platform);

  ContentStore store(args.cache_dir.empty() ? ContentStore::default_root() : fs::path(args.cache_dir));
  registry::PullResult pulled = registry::pull_image(ref, platform, store, registry_options(args.registry));
  SealedImage image = registry::sealed_from_pull(pulled, store);
  std::string tag = !to.tag.empty() ? to.tag : ref.has_tag() ? ref.tag : ref.has_digest() ? "" : registry::kDefaultTag;
  write_oci_layout(image, store, to.path, tag.empty() ? std::vector<std::string>{} : std::vector<std::string>{tag});
  spdlog::info("pulled {} ({} layers) into {}", pulled.pinned(), pulled.image.layers.size(), to.str());
  if (image.manifest.digest != pulled.manifest_digest)
    spdlog::info("the Docker schema 2 manifest became an OCI manifest: {}", image.manifest.digest);
  // The digest of what was written (the registry's, unless a Docker manifest was converted).
  std::printf("%s\n", image.manifest.digest.c_str());
}

}  // namespace

void add_pull_command(CLI::App& app, GlobalOptions&) {
  auto args = std::make_shared<PullArgs>();
  CLI::App* cmd = app.add_subcommand("pull", "Pull an image from a registry into an OCI layout");
  cmd->add_option("reference", args->reference, "The image: [registry/]name[:tag][@digest]")->required();
  cmd->add_option("destination", args->destination, "Where to write it: oci:DIR[:TAG]")->required();
  cmd->add_option("--platform", args->platform, "Which image of a multi-platform index (default linux/amd64)");
  cmd->add_option("--cache-dir", args->cache_dir, "The content store (default $XDG_CACHE_HOME/rockpack)");
  add_registry_flags(cmd, args->registry);
  cmd->callback([args] { run_pull(*args); });
}

}  // namespace rp::cli
