// rockpack cache du|prune|verify|path: the content store as a managed cache.
#include <spdlog/spdlog.h>

#include <iostream>

#include "cli/commands.hpp"
#include "assemble/layer_builder.hpp"
#include "cli/progress_display.hpp"
#include "image/layer_archive.hpp"
#include "store/cache_admin.hpp"
#include "store/content_store.hpp"
#include "util/error.hpp"

namespace rp::cli {

namespace {
struct CacheArgs {
  std::string cache_dir;
  std::string keep_days;  // parsed by parse_days, not CLI11: its "Could not convert" says nothing useful
  std::string keep_bytes;
  bool all = false;
  bool repair = false;
};

fs::path root_of(const CacheArgs& a) { return a.cache_dir.empty() ? ContentStore::default_root() : fs::path(a.cache_dir); }

// The layer records (a content key -> a layer) must say they were checked (built here, or a
// registry-cache layer checked against its entries), and a blob they name must be compressed as
// their media type says: a record from a version that took registry-cache layers unchecked may
// map a key to a layer of other content, and no build uses it.
RecordCheck layer_record_check(const fs::path& root) {
  RecordCheck c;
  c.kinds = {"layers", "layers-quick"};
  c.check = [root](const nlohmann::json& value) -> std::string {
    if (!LayerBuilder::record_is_checked(value))
      return "written by an older rockpack that took registry-cache layers unchecked; builds ignore it";
    std::string digest = value.value("digest", ""), media_type = value.value("mediaType", "");
    if (digest.size() != 71 || !digest.starts_with("sha256:")) return "names no layer digest";
    fs::path blob = root / "blobs" / "sha256" / digest.substr(7);
    std::error_code ec;
    if (!fs::exists(blob, ec)) return {};  // pruned: the record is a miss, harmless
    std::string said = LayerArchive::compression_of(media_type);
    std::string sniffed = LayerArchive::sniff_compression(blob);
    if (said != sniffed) return "its layer " + digest + " is " + sniffed + "-compressed, the record says " + media_type;
    return {};
  };
  return c;
}
}  // namespace

void add_cache_command(CLI::App& app, GlobalOptions&) {
  auto args = std::make_shared<CacheArgs>();
  CLI::App* cmd = app.add_subcommand("cache", "Inspect and manage the content store (du, prune, verify, path)");
  cmd->require_subcommand(1);
  cmd->add_option("--cache-dir", args->cache_dir, "The content store (default $XDG_CACHE_HOME/rockpack)");

  cmd->add_subcommand("path", "Print the store's directory")->callback([args] { std::cout << root_of(*args).string() << "\n"; });

  cmd->add_subcommand("du", "Disk usage of the store by kind and by age")->callback([args] {
    CacheUsage u = cache_usage(root_of(*args));
    std::cout << root_of(*args).string() << "\n";
    for (const auto& k : u.kinds)
      std::cout << "  " << k.name << ": " << k.files << " file" << (k.files == 1 ? "" : "s") << ", " << human_bytes(k.bytes) << "\n";
    std::cout << "  blobs last used: <1 day " << human_bytes(u.by_age[0]) << ", <7 days " << human_bytes(u.by_age[1])
              << ", <30 days " << human_bytes(u.by_age[2]) << ", older " << human_bytes(u.by_age[3]) << "\n";
    std::cout << "  total: " << human_bytes(u.total_bytes) << "\n";
  });

  CLI::App* prune = cmd->add_subcommand("prune", "Remove cached content (waits for running builds; they are never cut short)");
  prune->add_option("--keep-days", args->keep_days, "Remove what was not used in the last N days");
  prune->add_option("--keep-bytes", args->keep_bytes, "Then remove the least recently used until the store is at most SIZE (500M, 10G)");
  prune->add_flag("--all", args->all, "Remove everything");
  prune->callback([args] {
    PruneOptions o;
    if (!args->keep_days.empty()) o.keep_days = parse_days(args->keep_days);
    if (!args->keep_bytes.empty()) o.keep_bytes = parse_size(args->keep_bytes);
    o.all = args->all;
    PruneResult r = prune_cache(root_of(*args), o);
    spdlog::info("{}: removed {} file{} ({})", root_of(*args).string(), r.files, r.files == 1 ? "" : "s", human_bytes(r.bytes));
  });

  CLI::App* verify = cmd->add_subcommand("verify", "Hash every blob against its name and check the layer records (exit 1 when any is bad)");
  verify->add_flag("--repair", args->repair, "Remove the bad blobs (they are fetched or built anew when needed)");
  verify->callback([args] {
    fs::path root = root_of(*args);
    VerifyResult r = verify_cache(root, args->repair, layer_record_check(root));
    for (const auto& d : r.bad) spdlog::error("{}: blob {} does not match its digest{}", root.string(), d, r.repaired ? " (removed)" : "");
    for (const auto& d : r.bad_records) spdlog::error("{}: layer record {}{}", root.string(), d, r.repaired ? " (removed)" : "");
    spdlog::info("{}: {} blob{} checked, {} bad; {} bad layer record{}", root.string(), r.blobs, r.blobs == 1 ? "" : "s",
                 r.bad.size(), r.bad_records.size(), r.bad_records.size() == 1 ? "" : "s");
    size_t bad = r.bad.size() + r.bad_records.size();
    if (bad && !r.repaired)
      throw Error(std::to_string(r.bad.size()) + " blob" + (r.bad.size() == 1 ? "" : "s") + " and " +
                      std::to_string(r.bad_records.size()) + " layer record" + (r.bad_records.size() == 1 ? "" : "s") +
                      " in the store are corrupt or cannot be trusted",
                  "run `rockpack cache verify --repair` to remove them (what they held is built or fetched anew)");
  });
}

}  // namespace rp::cli
