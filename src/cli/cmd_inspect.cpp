// rockpack inspect: what an OCI layout or docker archive holds — layers, sizes, config.
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/progress_display.hpp"
#include "image/rootfs_view.hpp"
#include "output/image_reader.hpp"
#include "python/installed_distributions.hpp"
#include "store/content_store.hpp"

namespace rp::cli {

namespace {
struct InspectArgs {
  std::string location;
  bool json = false;
  bool python = false;
  std::string cache_dir;
};

// The image's Python distributions: its layers are imported into the store (verified), then read
// as one file system, keeping only the .dist-info files needed.
nlohmann::json python_packages(const InspectArgs& args) {
  ContentStore store(args.cache_dir.empty() ? ContentStore::default_root() : fs::path(args.cache_dir));
  Image image = import_local_image(ImageLocation::parse(args.location), store);
  RootfsView view;
  for (const auto& layer : image.layers)
    view.add_layer(store, layer.blob, [](std::string_view p) { return python::distribution_file_of_interest(p); });
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
      std::printf("  %s\n", location.c_str());
    }
    std::printf("    %-32s %-24s %s\n", p["name"].get<std::string>().c_str(), p["version"].get<std::string>().c_str(),
                p["installer"].get<std::string>().c_str());
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

void print_text(const nlohmann::json& j) {
  auto str = [](const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
  std::printf("Image:        %s\n", str(j["source"]).c_str());
  if (j.contains("digest")) std::printf("Digest:       %s\n", str(j["digest"]).c_str());
  if (j.contains("repoTags")) std::printf("Tags:         %s\n", j["repoTags"].dump().c_str());
  std::printf("Platform:     %s/%s\n", str(j["os"]).c_str(), str(j["architecture"]).c_str());
  std::printf("Created:      %s\n", str(j["created"]).c_str());
  std::printf("Size:         %s in %zu layers\n", human_bytes(j["size"].get<uint64_t>()).c_str(), j["layers"].size());
  const auto& c = j["config"];
  for (const char* key : {"User", "WorkingDir", "Entrypoint", "Cmd"})
    if (c.contains(key)) std::printf("%-13s %s\n", (std::string(key) + ":").c_str(), str(c[key]).c_str());
  if (c.contains("Env")) {
    std::printf("Env:\n");
    for (const auto& e : c["Env"]) std::printf("  %s\n", str(e).c_str());
  }
  if (c.contains("Labels") && c["Labels"].is_object()) {
    std::printf("Labels:\n");
    for (const auto& [k, v] : c["Labels"].items()) std::printf("  %s=%s\n", k.c_str(), str(v).c_str());
  }
  if (j.contains("annotations")) {
    std::printf("Annotations:\n");
    for (const auto& [k, v] : j["annotations"].items()) std::printf("  %s=%s\n", k.c_str(), str(v).c_str());
  }
  std::printf("Layers:\n");
  for (const auto& l : j["layers"]) {
    std::string id = l.contains("digest") ? str(l["digest"]).substr(7, 12) : str(l["diff_id"]).substr(7, 12);
    std::printf("  %s  %10s  %s\n", id.c_str(), human_bytes(l["size"].get<uint64_t>()).c_str(),
                l.contains("created_by") ? str(l["created_by"]).c_str() : "");
  }
}

void run_inspect(const InspectArgs& args) {
  LocalImage img = read_local_image(ImageLocation::parse(args.location));
  nlohmann::json j = to_json(img);
  if (args.python) j["python_packages"] = python_packages(args);
  if (args.json) {
    std::printf("%s\n", j.dump(2).c_str());
    return;
  }
  print_text(j);
  if (args.python) print_python_packages(j["python_packages"]);
}
}  // namespace

void add_inspect_command(CLI::App& app, GlobalOptions&) {
  auto args = std::make_shared<InspectArgs>();
  CLI::App* cmd = app.add_subcommand("inspect", "Show an image's layers, sizes and config");
  cmd->add_option("image", args->location, "oci:DIR[:TAG] or docker-archive:FILE")->required();
  cmd->add_flag("--json", args->json, "Print JSON");
  cmd->add_flag("--python", args->python, "List the Python packages installed in the image (reads its layers)");
  cmd->add_option("--cache-dir", args->cache_dir, "The content store the layers are read through (with --python)");
  cmd->callback([args] { run_inspect(*args); });
}

}  // namespace rp::cli
