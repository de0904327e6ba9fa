// rockpack diff A B: what changed between two images — config, layers, packages (deb, python, rocm)
// and, with --files, files — read from any image rockpack can read, layers streamed, nothing unpacked.
#include <cstdio>
#include <future>

#include "cli/commands.hpp"
#include "cli/progress_display.hpp"
#include "cli/registry_flags.hpp"
#include "inventory/diff.hpp"
#include "inventory/inventory.hpp"
#include "store/content_store.hpp"
#include "transports/load.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace rp::cli {

namespace {

struct DiffArgs {
  std::string a, b;
  bool files = false;
  bool json = false;
  std::string platform = "linux/amd64";
  std::string cache_dir;
  RegistryFlags registry;
};

using nlohmann::json;

// Every value printed comes from an image, and an image is untrusted: control characters are
// escaped (util/strings.hpp, terminal_safe) so a path or label cannot drive the terminal.
std::string text_of(const json& v) {
  if (v.is_null()) return "(unset)";
  return terminal_safe(v.is_string() ? v.get<std::string>() : v.dump(-1, ' ', false, json::error_handler_t::replace));
}

void print_packages(const json& p) {
  size_t n = p["added"].size() + p["removed"].size() + p["changed"].size();
  std::printf("Packages: %zu change%s\n", n, n == 1 ? "" : "s");
  auto where = [](const json& j) { return j.contains("arch") ? " (" + text_of(j["arch"]) + ")" : std::string(); };
  for (const auto& j : p["removed"])
    std::printf("  - %-7s %-32s %s%s\n", text_of(j["kind"]).c_str(), text_of(j["name"]).c_str(),
                text_of(j["version"]).c_str(), where(j).c_str());
  for (const auto& j : p["added"])
    std::printf("  + %-7s %-32s %s%s\n", text_of(j["kind"]).c_str(), text_of(j["name"]).c_str(),
                text_of(j["version"]).c_str(), where(j).c_str());
  for (const auto& j : p["changed"])
    std::printf("  ~ %-7s %-32s %s -> %s%s\n", text_of(j["kind"]).c_str(), text_of(j["name"]).c_str(),
                text_of(j["old"]).c_str(), text_of(j["new"]).c_str(), where(j).c_str());
}

void print_diff_text(const json& d) {
  std::printf("A: %s %s\n", text_of(d["a"]["source"]).c_str(), text_of(d["a"]["digest"]).c_str());
  std::printf("B: %s %s\n", text_of(d["b"]["source"]).c_str(), text_of(d["b"]["digest"]).c_str());
  if (d["identical"].get<bool>()) {
    std::printf("Identical: same config, layers and packages%s\n", d.contains("files") ? " and files" : "");
    return;
  }
  std::printf("Config: %zu change%s\n", d["config"].size(), d["config"].size() == 1 ? "" : "s");
  for (const auto& c : d["config"])
    std::printf("  %s: %s -> %s\n", text_of(c["field"]).c_str(), text_of(c["old"]).c_str(), text_of(c["new"]).c_str());
  const auto& l = d["layers"];
  std::printf("Layers: %zu shared (%s), %zu only in A (%s), %zu only in B (%s)\n", l["shared"].size(),
              human_bytes(l["shared_size"].get<uint64_t>()).c_str(), l["only_a"].size(),
              human_bytes(l["only_a_size"].get<uint64_t>()).c_str(), l["only_b"].size(),
              human_bytes(l["only_b_size"].get<uint64_t>()).c_str());
  for (const auto& x : l["only_a"])
    std::printf("  - %s  %s\n", text_of(x["diff_id"]).substr(7, 12).c_str(), human_bytes(x["size"].get<uint64_t>()).c_str());
  for (const auto& x : l["only_b"])
    std::printf("  + %s  %s\n", text_of(x["diff_id"]).substr(7, 12).c_str(), human_bytes(x["size"].get<uint64_t>()).c_str());
  print_packages(d["packages"]);
  if (d.contains("files")) {
    const auto& f = d["files"];
    std::printf("Files: %zu added, %zu removed, %zu changed\n", f["added"].size(), f["removed"].size(), f["changed"].size());
    for (const auto& x : f["removed"])
      std::printf("  - %s  %s\n", text_of(x["path"]).c_str(), human_bytes(x["size"].get<uint64_t>()).c_str());
    for (const auto& x : f["added"])
      std::printf("  + %s  %s\n", text_of(x["path"]).c_str(), human_bytes(x["size"].get<uint64_t>()).c_str());
    for (const auto& x : f["changed"])
      std::printf("  ~ %s  %s -> %s\n", text_of(x["path"]).c_str(), human_bytes(x["old_size"].get<uint64_t>()).c_str(),
                  human_bytes(x["new_size"].get<uint64_t>()).c_str());
  }
}

void run_diff(const DiffArgs& args) {
  ContentStore store(args.cache_dir.empty() ? ContentStore::default_root() : fs::path(args.cache_dir));
  Platform platform = Platform::parse(args.platform);
  auto options = registry_options(args.registry);
  // Both images at once: an oci: layout is read in place (no copy into the store), an archive is
  // imported and a registry image pulled (blobs the store lacks), the two side by side.
  auto load = [&](const std::string& location) {
    registry::Session session(options);
    return transports::load_image(transports::parse_location(location), platform, store, session,
                                  transports::Layers::kInPlace);
  };
  auto loading_b = std::async(std::launch::async, load, args.b);
  transports::SourcedImage a;
  try {
    a = load(args.a);
  } catch (...) {
    try {
      loading_b.get();
    } catch (...) {
    }
    throw;
  }
  transports::SourcedImage b = loading_b.get();
  auto blobs = [](const transports::SourcedImage& s) {
    return inventory::ImageBlobs{&s.image, s.blob_paths.empty() ? nullptr : &s.blob_paths};
  };
  std::vector<inventory::Inventory> inv = inventory::take_inventories({blobs(a), blobs(b)}, store, args.files);
  inv[0].source = args.a;
  inv[0].manifest_digest = a.manifest_digest;
  inv[1].source = args.b;
  inv[1].manifest_digest = b.manifest_digest;
  json d = inventory::diff(inv[0], inv[1]);
  // ASCII only: C1 controls and bytes that are not UTF-8 in an image's paths become \u escapes, never raw.
  if (args.json) std::printf("%s\n", d.dump(2, ' ', true, json::error_handler_t::replace).c_str());
  else print_diff_text(d);
}

}  // namespace

void add_diff_command(CLI::App& app, GlobalOptions&) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* cmd = app.add_subcommand("diff", "Show what changed between two images: config, layers, packages, files");
  const char* where = "oci:DIR[:TAG], oci-archive:FILE[:TAG], docker-archive:FILE or a registry reference";
  cmd->add_option("a", args->a, where)->required();
  cmd->add_option("b", args->b, where)->required();
  cmd->add_flag("--files", args->files, "Also compare every file (path, type, size, mode, link target)");
  cmd->add_flag("--json", args->json, "Print JSON");
  cmd->add_option("--platform", args->platform, "Which image of a multi-platform index (default linux/amd64)");
  cmd->add_option("--cache-dir", args->cache_dir, "The content store the layers are read through");
  add_registry_flags(cmd, args->registry);
  cmd->callback([args] { run_diff(*args); });
}

}  // namespace rp::cli
