// rockpack inspect: what an image holds — layers, sizes, config — from an OCI layout, an archive, or
// a registry (manifest and config only, no layers: like skopeo inspect).
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/progress_display.hpp"
#include "cli/registry_flags.hpp"
#include "image/media_types.hpp"
#include "image/rootfs_view.hpp"
#include "output/image_reader.hpp"
#include "registry/manifest_fetch.hpp"
#include "registry/pull.hpp"
#include "reference/reference.hpp"
#include "transports/location.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "python/installed_distributions.hpp"
#include "store/content_store.hpp"

namespace rp::cli {

namespace {
struct InspectArgs {
  std::string location;
  bool json = false;
  bool python = false;
  bool raw = false;
  std::string platform = "linux/amd64";
  std::string cache_dir;
  RegistryFlags registry;
};

ContentStore open_store(const InspectArgs& args) {
  return ContentStore(args.cache_dir.empty() ? ContentStore::default_root() : fs::path(args.cache_dir));
}

bool is_index_type(const std::string& t) { return t == media::kOciIndex || t == media::kDockerManifestList; }

// A registry image without its layers: the manifest (and the index above it, if any) and the config.
struct RemoteImage {
  LocalImage image;
  std::string index_digest;
  nlohmann::json platforms = nlohmann::json::array();  // of the index: {"platform", "digest"}
};

RemoteImage inspect_remote(const InspectArgs& args, const Reference& ref, registry::Session& session) {
  registry::Transport& t = session.transport(ref.registry);
  registry::FetchedManifest m = registry::fetch_manifest(t, ref.repository, ref.identifier());
  RemoteImage out;
  out.image.source = "docker://" + ref.str();
  if (is_index_type(m.media_type)) {
    out.index_digest = m.digest;
    auto index = nlohmann::json::parse(m.bytes);
    for (const auto& e : index.value("manifests", nlohmann::json::array())) {
      Descriptor d = Descriptor::from_json(e, ref.str() + " index");
      if (d.platform) out.platforms.push_back({{"platform", d.platform->str()}, {"digest", d.digest}});
    }
    Descriptor chosen = registry::select_platform(index, Platform::parse(args.platform), ref.str());
    m = registry::fetch_manifest(t, ref.repository, chosen.digest);
  }
  Descriptor desc;
  desc.media_type = m.media_type;
  desc.digest = m.digest;
  desc.size = static_cast<int64_t>(m.bytes.size());
  out.image.manifest = desc;
  out.image.manifest_bytes = m.bytes;
  out.image.manifest_json = nlohmann::json::parse(m.bytes);
  Descriptor config = Descriptor::from_json(out.image.manifest_json.value("config", nlohmann::json()), ref.str() + " config");
  ContentStore store = open_store(args);
  registry::fetch_blob(t, ref.repository, config.digest, store);  // verified; small
  out.image.config_digest = config.digest;
  out.image.config_bytes = store.read_all(config.digest);
  out.image.config = nlohmann::json::parse(out.image.config_bytes, nullptr, false);
  if (!out.image.config.is_object()) throw Error(ref.str() + ": the image config is not JSON");
  for (const auto& l : out.image.manifest_json.value("layers", nlohmann::json::array())) {
    Descriptor d = Descriptor::from_json(l, ref.str() + " layer");
    out.image.layers.push_back({d.media_type, d.digest, "", static_cast<uint64_t>(d.size), ""});
  }
  auto diff_ids = out.image.config.contains("rootfs") ? out.image.config["rootfs"].value("diff_ids", nlohmann::json::array())
                                                      : nlohmann::json::array();
  for (size_t i = 0; i < out.image.layers.size() && i < diff_ids.size(); ++i)
    if (diff_ids[i].is_string()) out.image.layers[i].diff_id = diff_ids[i];
  return out;
}

// The bare bytes of the manifest (or index) the reference names, as the registry sent them.
std::string raw_remote(const Reference& ref, registry::Session& session) {
  registry::Transport& t = session.transport(ref.registry);
  return registry::fetch_manifest(t, ref.repository, ref.identifier()).bytes;
}

// The image's Python distributions: its layers are imported into the store (verified), then read
// as one file system, keeping only the .dist-info files needed.
nlohmann::json python_packages(const InspectArgs& args) {
  ContentStore store = open_store(args);
  Image image = import_local_image(ImageLocation::parse(args.location), store);
  // An untrusted image: what its layers may hold in memory is bounded, as for diff.
  RootfsView::MetadataBudget budget;
  RootfsView view;
  for (const auto& layer : image.layers)
    view.apply_layer(*RootfsView::read_layer(store, layer.blob,
                                             [](std::string_view p) { return python::distribution_file_of_interest(p); },
                                             {}, &budget));
  nlohmann::json out = nlohmann::json::array();
  for (const auto& d : python::find_installed_distributions(view))
    out.push_back({{"name", d.name},
                   {"version", d.version},
                   {"location", d.location},
                   {"installer", d.installer},
                   {"requested", d.requested}});
  return out;
}

void print_python_packages(const nlohmann::json& packages) {
  std::printf("Python packages:\n");
  if (packages.empty()) std::printf("  (none)\n");
  std::string location;
  for (const auto& p : packages) {
    if (p["location"] != location) {
      location = p["location"].get<std::string>();
      std::printf("  %s\n", terminal_safe(location).c_str());
    }
    std::printf("    %-32s %-24s %s\n", terminal_safe(p["name"].get<std::string>()).c_str(),
                terminal_safe(p["version"].get<std::string>()).c_str(), terminal_safe(p["installer"].get<std::string>()).c_str());
  }
}

nlohmann::json to_json(const LocalImage& img) {
  nlohmann::json j;
  j["source"] = img.source;
  if (img.manifest) {
    j["digest"] = img.manifest->digest;
    j["mediaType"] = img.manifest->media_type;
  }
  if (!img.repo_tags.empty()) j["repoTags"] = img.repo_tags;
  j["configDigest"] = img.config_digest;
  j["os"] = img.config.value("os", "");
  j["architecture"] = img.config.value("architecture", "");
  j["created"] = img.config.value("created", "");
  j["config"] = img.config.value("config", nlohmann::json::object());
  if (!img.manifest_json.is_null() && img.manifest_json.contains("annotations"))
    j["annotations"] = img.manifest_json["annotations"];
  j["layers"] = nlohmann::json::array();
  auto history = img.config.value("history", nlohmann::json::array());
  size_t h = 0;
  uint64_t total = 0;
  for (const auto& l : img.layers) {
    nlohmann::json lj = {{"size", l.size}, {"diff_id", l.diff_id}};
    if (!l.digest.empty()) lj["digest"] = l.digest;
    if (!l.media_type.empty()) lj["mediaType"] = l.media_type;
    // Skip history entries of metadata-only steps to pair each layer with its step.
    while (h < history.size() && history[h].value("empty_layer", false)) ++h;
    if (h < history.size()) lj["created_by"] = history[h++].value("created_by", "");
    total += l.size;
    j["layers"].push_back(lj);
  }
  j["size"] = total;
  return j;
}

void print_inspect_text(const nlohmann::json& j) {
  // What an image says is untrusted: control characters are escaped (terminal_safe) so that a label
  // or a history line cannot drive the terminal.
  auto str = [](const nlohmann::json& v) {
    return terminal_safe(v.is_string() ? v.get<std::string>() : v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  };
  std::printf("Image:        %s\n", str(j["source"]).c_str());
  if (j.contains("digest")) std::printf("Digest:       %s\n", str(j["digest"]).c_str());
  if (j.contains("repoTags")) std::printf("Tags:         %s\n", str(j["repoTags"]).c_str());
  std::printf("Platform:     %s/%s\n", str(j["os"]).c_str(), str(j["architecture"]).c_str());
  std::printf("Created:      %s\n", str(j["created"]).c_str());
  size_t n = j["layers"].size();
  std::printf("Size:         %s in %zu layer%s\n", human_bytes(j["size"].get<uint64_t>()).c_str(), n, n == 1 ? "" : "s");
  const auto& c = j["config"];
  for (const char* key : {"User", "WorkingDir", "Entrypoint", "Cmd"})
    if (c.contains(key)) std::printf("%-13s %s\n", (std::string(key) + ":").c_str(), str(c[key]).c_str());
  if (c.contains("Env")) {
    std::printf("Env:\n");
    for (const auto& e : c["Env"]) std::printf("  %s\n", str(e).c_str());
  }
  if (j.contains("platforms")) {
    std::printf("Index:        %s\n", str(j["indexDigest"]).c_str());
    std::printf("Platforms:\n");
    for (const auto& p : j["platforms"])
      std::printf("  %-20s %s\n", str(p["platform"]).c_str(), str(p["digest"]).c_str());
  }
  if (c.contains("Labels") && c["Labels"].is_object()) {
    std::printf("Labels:\n");
    for (const auto& [k, v] : c["Labels"].items()) std::printf("  %s=%s\n", terminal_safe(k).c_str(), str(v).c_str());
  }
  if (j.contains("annotations")) {
    std::printf("Annotations:\n");
    for (const auto& [k, v] : j["annotations"].items()) std::printf("  %s=%s\n", terminal_safe(k).c_str(), str(v).c_str());
  }
  std::printf("Layers:\n");
  for (const auto& l : j["layers"]) {
    std::string id = l.contains("digest") ? str(l["digest"]).substr(7, 12) : str(l["diff_id"]).substr(7, 12);
    std::printf("  %s  %10s  %s\n", id.c_str(), human_bytes(l["size"].get<uint64_t>()).c_str(),
                l.contains("created_by") ? str(l["created_by"]).c_str() : "");
  }
}

void run_inspect(const InspectArgs& args) {
  const transports::AnyLocation where = transports::parse_location(args.location);
  if (!where.is_local()) {
    if (args.python)
      throw InputError("--python reads the image's layers, which inspect of a registry image does not fetch",
                       "pull it first: rockpack pull " + args.location + " oci:DIR, then inspect --python oci:DIR");
    const Reference& ref = where.remote;
    registry::Session session(registry_options(args.registry));
    if (args.raw) {
      std::string bytes = raw_remote(ref, session);
      std::fwrite(bytes.data(), 1, bytes.size(), stdout);
      if (!bytes.ends_with("\n")) std::printf("\n");
      return;
    }
    RemoteImage remote = inspect_remote(args, ref, session);
    nlohmann::json j = to_json(remote.image);
    j["name"] = ref.name();
    if (!remote.index_digest.empty()) {
      j["indexDigest"] = remote.index_digest;
      j["platforms"] = remote.platforms;
    }
    if (args.json) {
      std::printf("%s\n", j.dump(2, ' ', true, nlohmann::json::error_handler_t::replace).c_str());  // ASCII: no raw controls
      return;
    }
    print_inspect_text(j);
    return;
  }
  LocalImage img = read_local_image(*where.local);
  if (args.raw) {
    if (!img.manifest) throw InputError(img.source + " has no manifest of its own (a legacy docker archive)", "");
    std::printf("%s\n", img.manifest_bytes.c_str());
    return;
  }
  nlohmann::json j = to_json(img);
  if (args.python) j["python_packages"] = python_packages(args);
  if (args.json) {
    std::printf("%s\n", j.dump(2, ' ', true, nlohmann::json::error_handler_t::replace).c_str());  // ASCII: no raw controls
    return;
  }
  print_inspect_text(j);
  if (args.python) print_python_packages(j["python_packages"]);
}
}  // namespace

void add_inspect_command(CLI::App& app, GlobalOptions&) {
  auto args = std::make_shared<InspectArgs>();
  CLI::App* cmd = app.add_subcommand("inspect", "Show an image's layers, sizes and config (local, or in a registry)");
  cmd->add_option("image", args->location,
                  "oci:DIR[:TAG], oci-archive:FILE[:TAG], docker-archive:FILE, or a registry reference "
                  "([docker://][registry/]name[:tag][@digest]; its layers are not fetched)")
      ->required();
  cmd->add_flag("--json", args->json, "Print JSON");
  cmd->add_flag("--raw", args->raw, "Print the manifest (or a registry's index) exactly as stored");
  cmd->add_option("--platform", args->platform, "Which image of a multi-platform index to show (default linux/amd64)");
  cmd->add_flag("--python", args->python, "List the Python packages installed in the image (reads its layers)");
  cmd->add_option("--cache-dir", args->cache_dir, "The content store the layers are read through (with --python)");
  add_registry_flags(cmd, args->registry);
  cmd->callback([args] { run_inspect(*args); });
}

}  // namespace rp::cli
