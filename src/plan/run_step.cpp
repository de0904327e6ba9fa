#include "plan/run_step.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <optional>

#include "assemble/store_content.hpp"
#include "image/layer_archive.hpp"
#include "sandbox/materialize.hpp"
#include "sandbox/sandbox.hpp"
#include "sandbox/tree_diff.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace rp {

namespace {

// Bumped whenever what a cached run layer holds would differ for the same inputs.
constexpr const char* kRunCacheVersion = "rockpack-run-v1";
constexpr const char* kRecordKind = "run-layer";

// What `--resolved` and `--metadata-file` say of the run step.
struct RunItemRecord {
  std::string name;
  std::string layer;
  std::string cache_key;
  bool cached = false;
  double seconds = 0;  // 0 when cached
  size_t entries = 0;
};

class RunRecord final : public StepRecord {
 public:
  std::vector<RunItemRecord> items;
  nlohmann::json to_json() const override {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& i : items)
      out.push_back({{"name", i.name}, {"layer", i.layer}, {"cache_key", i.cache_key}, {"cached", i.cached},
                     {"entries", i.entries}});
    return {{"items", out}};
  }
};

// The image so far, as one identity: the base's layers by diff_id, then every planned layer's
// listing with content keys. Whatever a command could see differently changes it.
std::string parent_identity(const BuildPlan& plan) {
  Sha256 h;
  h.update(std::string(kRunCacheVersion) + "\n");
  for (const auto& l : plan.base.layers) h.update("base " + l.diff_id + "\n");
  for (const auto& l : plan.layers) {
    h.update("layer " + l.name + "\n");
    hash_entry_listing(h, l.entries, false);
  }
  return h.finish_digest();
}

std::string config_string(const BuildPlan& plan, const char* key) {
  const auto& base = plan.base.config;
  if (!base.contains("config") || !base["config"].is_object()) return {};
  auto it = base["config"].find(key);
  return it != base["config"].end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The command line: a shell script runs as `/bin/sh -c SCRIPT`, as docker's RUN does.
std::vector<std::string> argv_of(const recipe::RunItem& item) {
  if (item.shell) return {"/bin/sh", "-c", *item.shell};
  return item.command;
}

// The image's Env so far with the item's `env:` on top (same name: the item wins).
std::vector<std::string> env_of(const StepContext& context, const recipe::RunItem& item) {
  std::vector<std::string> env = context.image_env();
  for (const auto& [k, v] : item.env) {
    std::string prefix = k + "=";
    bool replaced = false;
    for (auto& e : env)
      if (e.compare(0, prefix.size(), prefix) == 0) {
        e = prefix + v;
        replaced = true;
      }
    if (!replaced) env.push_back(prefix + v);
  }
  return env;
}

std::string cache_key_of(const std::string& parent, const recipe::RunItem& item, const std::vector<std::string>& argv,
                         const std::vector<std::string>& env, const std::string& user, const std::string& workdir) {
  nlohmann::json j = {{"parent", parent},   {"argv", argv},     {"env", env},
                      {"user", user},       {"workdir", workdir}, {"network", item.network},
                      {"keep_litter", item.keep_litter}, {"keep_pycache", item.keep_pycache}};
  nlohmann::json inputs = nlohmann::json::array();
  for (const auto& file : item.cache_key) {
    std::string bytes;
    try {
      bytes = read_file(file);
    } catch (const Error& e) {
      throw InputError(item.where.str() + ": cannot read the cache_key file " + file.string() + ": " + e.what());
    }
    inputs.push_back({file.filename().string(), sha256_digest(bytes)});
  }
  j["inputs"] = inputs;
  return sha256_digest(std::string(kRunCacheVersion) + "\n" + j.dump());
}

// A cached run layer: its entries with every file's content in the store.
nlohmann::json record_of(const std::vector<Entry>& entries) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& e : entries) {
    nlohmann::json j = {{"path", e.path}, {"type", static_cast<int>(e.type)}, {"mode", e.mode},
                        {"uid", e.uid},   {"gid", e.gid}};
    if (!e.link_target.empty()) j["link"] = e.link_target;
    if (e.type == EntryType::kFile) {
      j["digest"] = e.content->content_key();
      j["size"] = e.content->size();
    }
    list.push_back(std::move(j));
  }
  return {{"entries", list}};
}

// The entries of a cached run layer, or nullopt when the record is malformed or a blob is gone.
std::optional<std::vector<Entry>> entries_of(const nlohmann::json& record, const ContentStore& store,
                                             const std::string& origin) {
  try {
    std::vector<Entry> out;
    for (const auto& j : record.at("entries")) {
      Entry e;
      e.path = j.at("path").get<std::string>();
      int type = j.at("type").get<int>();
      if (type < 0 || type > static_cast<int>(EntryType::kHardlink)) return std::nullopt;
      e.type = static_cast<EntryType>(type);
      e.mode = j.at("mode").get<uint32_t>();
      e.uid = j.at("uid").get<uint32_t>();
      e.gid = j.at("gid").get<uint32_t>();
      e.link_target = j.value("link", "");
      e.origin = origin;
      if (e.type == EntryType::kFile) {
        std::string digest = j.at("digest").get<std::string>();
        if (!store.contains(digest)) return std::nullopt;
        e.content = std::make_shared<StoreBlobContent>(store, digest, j.at("size").get<uint64_t>());
      }
      out.push_back(std::move(e));
    }
    return out;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

// Copies each changed file out of the sandbox's root into the store: the layer then no longer
// depends on the root, which is removed when the step ends, and a warm build finds it there.
void move_contents_to_store(std::vector<Entry>& entries, ContentStore& store) {
  for (auto& e : entries) {
    if (e.type != EntryType::kFile || !e.content) continue;
    auto writer = store.begin_blob();
    e.content->write_to(*writer);
    uint64_t size = writer->size();
    std::string digest = writer->commit();
    e.content = std::make_shared<StoreBlobContent>(store, digest, size);
  }
}

// The directory the commands run in: the image so far, written out once (lazily: a build whose run
// layers are all cached never writes it). It lives in the store's tmp/ under a name that carries
// this process's pid, so a killed build's copy is swept by the next one.
class Workspace {
 public:
  explicit Workspace(const ContentStore& store) : store_(store) {}
  ~Workspace() {
    if (dir_.empty()) return;
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  const fs::path& root() const { return root_; }
  bool ready() const { return !root_.empty(); }

  void materialize(const BuildPlan& plan, const std::vector<LayerPlan>& own_layers) {
    auto started = std::chrono::steady_clock::now();
    dir_ = temp_sibling(store_.root() / "tmp" / "run");
    root_ = dir_ / "rootfs";
    fs::create_directories(root_);
    ::chmod(root_.c_str(), 0755);
    for (const auto& l : plan.base.layers) {
      LayerArchive layer(store_, l.blob);
      materialize_archive(layer.get(), root_, layer.where());
      layer.verify_digest();
    }
    for (const auto& l : plan.layers) materialize_layer(l.entries, root_);
    for (const auto& l : own_layers) materialize_layer(l.entries, root_);
    prepare_sandbox_rootfs(root_);
    before_ = snapshot_tree(root_);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    spdlog::info("run: wrote the image so far into the sandbox's root ({:.1f} s, {} paths)", seconds, before_.size());
  }

  TreeSnapshot& before() { return before_; }

 private:
  const ContentStore& store_;
  fs::path dir_;
  fs::path root_;
  TreeSnapshot before_;
};

std::string summary(const recipe::RunItem& item) {
  std::string text = item.shell ? *item.shell : join(item.command, " ");
  for (auto& c : text)
    if (c == '\n' || c == '\t') c = ' ';
  return shorten(text, 200);
}

}  // namespace

StepOutput RunStep::plan(const StepContext& context) const {
  StepOutput out;
  if (context.mode == StepMode::kOffline) return out;
  auto record = std::make_shared<RunRecord>();
  std::string parent = context.mode == StepMode::kBuild ? parent_identity(context.plan) : std::string();
  std::optional<Workspace> workspace;
  const std::string base_user = config_string(context.plan, "User");
  const std::string base_workdir = config_string(context.plan, "WorkingDir");

  for (const auto& item : context.recipe.run) {
    const std::string origin = item.where.str() + " run " + item.name;
    LayerPlan layer;
    layer.name = item.layer;
    layer.created_by = "rockpack run " + item.name + ": " + summary(item);
    RunItemRecord rec{item.name, item.layer, {}, false, 0, 0};
    if (context.mode != StepMode::kBuild) {
      out.layers.push_back(std::move(layer));
      record->items.push_back(rec);
      continue;
    }
    const std::vector<std::string> argv = argv_of(item);
    const std::vector<std::string> env = env_of(context, item);
    const std::string user = item.user.empty() ? base_user : item.user;
    const std::string workdir = !item.workdir.empty() ? item.workdir : (base_workdir.empty() ? "/" : base_workdir);
    const std::string key = cache_key_of(parent, item, argv, env, user, workdir);
    rec.cache_key = key;

    std::optional<std::vector<Entry>> entries;
    if (auto cached = context.store->get_record(kRecordKind, key)) entries = entries_of(*cached, *context.store, origin);
    if (entries) {
      rec.cached = true;
      spdlog::info("run {}: cached (key {})", item.name, key.substr(7, 12));
      // A later item that is not cached runs on a root that has this layer too.
      if (workspace && workspace->ready()) {
        materialize_layer(*entries, workspace->root());
        workspace->before() = snapshot_tree(workspace->root());
      }
    } else {
      if (!workspace) {
        workspace.emplace(*context.store);
        workspace->materialize(context.plan, out.layers);
      }
      const fs::path& root = workspace->root();
      SandboxUser ids = resolve_user(root, user, origin);
      // As docker's WORKDIR: a missing working directory is made, and is part of the layer.
      std::string workdir_key = workdir.find_first_not_of('/') == std::string::npos ? "" : normalize_image_path(workdir, origin);
      struct stat st {};
      if (!workdir_key.empty() && ::lstat((root / workdir_key).c_str(), &st) != 0) {
        Entry dir;
        dir.path = workdir_key;
        dir.type = EntryType::kDirectory;
        dir.mode = 0755;
        dir.origin = origin;
        materialize_layer({dir}, root);
      }
      SandboxCommand command;
      command.name = "run " + item.name;
      command.argv = argv;
      command.env = env;
      command.uid = ids.uid;
      command.gid = ids.gid;
      command.workdir = workdir;
      command.network = item.network;
      command.timeout_seconds = static_cast<int>(item.timeout_seconds);
      spdlog::info("run {}: {}", item.name, summary(item));
      auto started = std::chrono::steady_clock::now();
      SandboxResult result = run_in_sandbox(root, command, [&](const std::string& line) {
        spdlog::info("[{}] {}", item.name, line);
      });
      rec.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (result.timed_out || result.exit_code != 0) {
        std::string what = result.timed_out
                               ? "was stopped after its time limit of " + std::to_string(item.timeout_seconds) + " s"
                               : "failed with exit code " + std::to_string(result.exit_code);
        std::string tail;
        for (const auto& l : result.last_lines) tail += "\n    " + shorten(l, 400);
        throw Error(origin + ": the command " + what + (tail.empty() ? "" : "; its last lines:" + tail),
                    result.timed_out ? "raise the item's timeout: (seconds), or make the command faster"
                                     : "fix the command; nothing was written");
      }
      TreeSnapshot after = snapshot_tree(root);
      DiffOptions options;
      options.keep_litter = item.keep_litter;
      options.keep_pycache = item.keep_pycache;
      options.origin = origin;
      std::vector<Entry> changed = diff_trees(root, workspace->before(), after, options);
      move_contents_to_store(changed, *context.store);
      context.store->put_record(kRecordKind, key, record_of(changed));
      workspace->before() = std::move(after);
      entries = std::move(changed);
      spdlog::info("run {}: done in {:.1f} s, {} paths changed", item.name, rec.seconds, entries->size());
    }
    rec.entries = entries->size();
    layer.entries = std::move(*entries);
    out.layers.push_back(std::move(layer));
    record->items.push_back(rec);
    parent = sha256_digest(parent + "\n" + key);  // the next item's parent has this layer on top
  }
  out.records.emplace_back("run", record);
  return out;
}

}  // namespace rp
