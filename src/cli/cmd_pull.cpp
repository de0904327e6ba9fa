// rockpack pull REF DEST: fetches an image for one platform from a registry and writes it to
// oci:DIR[:TAG], oci-archive:FILE[:TAG] or docker-archive:FILE[:NAME:TAG].
#include <spdlog/spdlog.h>

#include <cstdio>

#include "cli/commands.hpp"
#include "cli/progress_display.hpp"
#include "cli/registry_flags.hpp"
#include "build/image_io.hpp"
#include "output/output_spec.hpp"
#include "registry/pull.hpp"
#include "reference/reference.hpp"
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
  Reference ref = parse_reference(args.reference);
  ImageLocation to = ImageLocation::parse(args.destination);
  if (!to.name.empty()) (void)parse_reference(to.name + ":" + to.tag);
  Platform platform = Platform::parse(args.platform);

  ContentStore store(args.cache_dir.empty() ? ContentStore::default_root() : fs::path(args.cache_dir));
  ProgressDisplay progress(ProgressDisplay::mode_for_stderr());
  registry::PullResult pulled = registry::pull_image(ref, platform, store, registry_options(args.registry));
  SealedImage image = registry::sealed_from_pull(pulled, store);
  // The tag of the reference names the image unless the destination gives one; a docker archive
  // names it with the reference's repository, as `docker pull` + `docker save` would.
  std::string tag = ref.has_tag() ? ref.tag : ref.has_digest() ? "" : kDefaultTag;
  std::string familiar = ref.registry != kDockerHub      ? ref.name()
                         : ref.repository.rfind("library/", 0) == 0 ? ref.repository.substr(8)
                                                                     : ref.repository;
  build::DefaultNames names{familiar,
                     tag.empty() ? std::vector<std::string>{} : std::vector<std::string>{tag}};
  build::write_image(image, store, to, names, 0);
  size_t n = pulled.image.layers.size();
  spdlog::info("pulled {} ({} layer{}) into {}", pulled.pinned(), n, n == 1 ? "" : "s", to.str());
  if (image.manifest.digest != pulled.manifest_digest)
    spdlog::info("the Docker schema 2 manifest became an OCI manifest: {}", image.manifest.digest);
  // The digest of what was written (the registry's, unless a Docker manifest was converted).
  std::printf("%s\n", image.manifest.digest.c_str());
}

}  // namespace

void add_pull_command(CLI::App& app, GlobalOptions&) {
  auto args = std::make_shared<PullArgs>();
  CLI::App* cmd = app.add_subcommand("pull", "Pull an image from a registry into an OCI layout or an archive");
  cmd->add_option("reference", args->reference, "The image: [registry/]name[:tag][@digest]")->required();
  cmd->add_option("destination", args->destination,
                  "Where to write it: oci:DIR[:TAG], oci-archive:FILE[:TAG] or docker-archive:FILE[:NAME:TAG]")
      ->required();
  cmd->add_option("--platform", args->platform, "Which image of a multi-platform index (default linux/amd64)");
  cmd->add_option("--cache-dir", args->cache_dir, "The content store (default $XDG_CACHE_HOME/rockpack)");
  add_registry_flags(cmd, args->registry);
  cmd->callback([args] { run_pull(*args); });
}

}  // namespace rp::cli
