// rockpack attach REF --report FILE: attaches a build report written earlier to an image already in
// a registry, as `build --push --report` does. For a workflow that builds and checks an image first
// and pushes it with a second (fully cached) build: the report of the first build is the one with
// the real times, so that is the one attached.
#include <spdlog/spdlog.h>

#include "build/report.hpp"
#include "cli/commands.hpp"
#include "cli/registry_flags.hpp"
#include "registry/manifest_fetch.hpp"
#include "reference/reference.hpp"
#include "report/report.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace rp::cli {

namespace {

struct AttachArgs {
  std::string image;
  std::string report_file;
  std::string cache_dir;
  RegistryFlags registry;
};

void run_attach(const AttachArgs& args) {
  Reference ref = parse_reference(args.image);
  std::error_code ec;
  const auto size = fs::file_size(args.report_file, ec);
  if (ec) throw Error("cannot read --report " + args.report_file + ": " + ec.message(), "give the file `rockpack build --report` wrote");
  if (size > (16u << 20)) throw Error("--report " + args.report_file + " is larger than a report can be (16 MiB)");
  const std::string text = read_file(args.report_file);
  const report::Report parsed = report::parse_report(text, args.report_file);  // checked before anything is pushed

  ContentStore store(args.cache_dir.empty() ? ContentStore::default_root() : fs::path(args.cache_dir));
  registry::Session session(registry_options(args.registry));
  registry::FetchedManifest manifest =
      registry::fetch_manifest(session.transport(ref.registry), ref.repository, ref.identifier());
  if (manifest.digest != parsed.image_digest)
    throw InputError("the report " + args.report_file + " describes " + parsed.image_digest + ", but " + args.image +
                         " is " + manifest.digest,
                     "attach the report of the build that made this image");
  SealedImage image;
  image.manifest.media_type = manifest.media_type;
  image.manifest.digest = manifest.digest;
  image.manifest.size = static_cast<int64_t>(manifest.bytes.size());
  build::attach_report(text, image, {ref}, store, session);
}

}  // namespace

void add_attach_command(CLI::App& app, GlobalOptions&) {
  auto args = std::make_shared<AttachArgs>();
  CLI::App* cmd = app.add_subcommand("attach", "Attach a build report to an image in a registry as an OCI referrer");
  cmd->add_option("image", args->image, "The image: [registry/]name:tag or name@sha256:...")->required();
  cmd->add_option("--report", args->report_file, "The report `rockpack build --report` wrote for this image")->required();
  cmd->add_option("--cache-dir", args->cache_dir, "The content store the report blob goes through");
  add_registry_flags(cmd, args->registry);
  cmd->callback([args] { run_attach(*args); });
}

}  // namespace rp::cli
