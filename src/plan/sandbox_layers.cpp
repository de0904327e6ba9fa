#include "plan/sandbox_layers.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
#include <thread>
#include <utility>

#include "assemble/store_content.hpp"
#include "image/layer_archive.hpp"
#include "sandbox/materialize.hpp"
#include "sandbox/sandbox.hpp"
#include "sandbox/tree_diff.hpp"
#include "util/cpus.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/parallel.hpp"
#include "util/phase_clock.hpp"
#include "util/strings.hpp"
#include "util/temp_files.hpp"

namespace rp {

namespace {

// Bumped whenever what a cached layer holds would differ for the same inputs.
constexpr const char* kCacheVersion = "rockpack-sandbox-layer-v1";
constexpr const char* kRecordKind = "sandbox-layer";

void hash_layers(Sha256& h, const std::vector<LayerPlan>& layers) {
  for (const auto& l : layers) {
    h.update("layer " + l.name + "\n");
    hash_entry_listing(h, l.entries, false);
  }
}

// A cached layer: its entries, every file's content in the store.
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

// The entries of a cached layer, or nullopt when the record is malformed or a blob is gone (then
// the job runs again).
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
// depends on the root, which is removed when the build ends, and a warm build finds it there.
void move_contents_to_store(std::vector<Entry>& entries, ContentStore& store) {
  // In parallel: a step that writes thousands of small files is bound by per-file system calls.
  std::vector<size_t> files;
  for (size_t i = 0; i < entries.size(); ++i)
    if (entries[i].type == EntryType::kFile && entries[i].content) files.push_back(i);
  const size_t workers = std::max<size_t>(1, std::min<size_t>(8, worker_count()));
  std::vector<std::function<void()>> work;
  for (size_t w = 0; w < workers; ++w)
    work.push_back([&, w] {
      for (size_t k = w; k < files.size(); k += workers) {
        Entry& e = entries[files[k]];
        auto writer = store.begin_blob();
        e.content->write_to(*writer);
        uint64_t size = writer->size();
        std::string digest = writer->commit();
        e.content = std::make_shared<StoreBlobContent>(store, digest, size);
      }
    });
  run_parallel(work, static_cast<int>(workers));
}

}  // namespace

// The directory the commands run in. It lives in the store's tmp/ under a name that carries this
// process's pid, so a killed build's copy is swept by the next one.
class SandboxLayers::Workspace {
 public:
  Workspace(const BuildPlan& plan, const ContentStore& store) : mtime_(plan.source_date_epoch) {
    auto started = std::chrono::steady_clock::now();
    dir_ = temp_sibling(store.root() / "tmp" / "sandbox");
    root_ = dir_ / "rootfs";
    try {
      fs::create_directories(dir_.parent_path());
      // 0700: the image's setuid files must not be reachable by other users of the machine.
      if (::mkdir(dir_.c_str(), 0700) != 0) throw Error("cannot create " + dir_.string() + ": " + strerror(errno));
      slot_ = register_temporary_tree(dir_.c_str());  // removed on SIGINT/SIGTERM too
      fs::create_directories(root_);
      ::chmod(root_.c_str(), 0755);
      plan.wait_base_verified();  // no command runs on a base that does not match its descriptors
      for (const auto& l : plan.base.layers) {
        LayerArchive layer(store, l.blob);
        materialize_archive(layer.get(), root_, layer.where(), ids_);
        layer.verify_digest();
      }
      for (const auto& l : plan.layers) materialize_layer(l.entries, root_, ids_, mtime_);
      prepare_sandbox_rootfs(root_, ids_);
    } catch (...) {
      unregister_temporary(slot_);
      std::error_code ec;  // no destructor runs for a half-made object: leave nothing behind
      fs::remove_all(dir_, ec);
      throw;
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    spdlog::info("sandbox: wrote the image so far into the sandbox's root in {:.1f} s", seconds);
  }
  ~Workspace() {
    if (std::getenv("ROCKPACK_KEEP_SANDBOX")) {  // debugging: see what the commands saw
      spdlog::info("sandbox: kept {}", root_.string());
      unregister_temporary(slot_);
      return;
    }
    unregister_temporary(slot_);
    auto started = std::chrono::steady_clock::now();
    std::error_code ec;
    fs::remove_all(dir_, ec);
    // On a busy disk this is no small part of a build: every file of the image is unlinked.
    spdlog::debug("sandbox: removed the sandbox's root in {:.1f} s",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  }

  // Brings the root up to the plan's image plus `own`: the layers not applied yet are written,
  // except the ones a job made right here.
  void sync(const std::vector<LayerPlan>& own) {
    bool changed = false;
    for (size_t i = applied_; i < own.size(); ++i)
      if (!made_here_.count(i)) {
        materialize_layer(own[i].entries, root_, ids_, mtime_);
        changed = true;
      }
    applied_ = own.size();
    if (changed || !have_snapshot_) {
      before_ = snapshot_tree(root_);
      have_snapshot_ = true;
    }
  }
  // The job that ran here made what will be own layer `index`.
  void made_here(size_t index) { made_here_.insert(index); }

  const fs::path& root() const { return root_; }
  const IdMapping& ids() const { return ids_; }
  TreeSnapshot& before() { return before_; }

 private:
  int64_t mtime_;                  // the planned layers' files get the mtime the image gives them
  IdMapping ids_ = sandbox_ids();  // the root is owned by the ids the sandbox's user namespace maps
  int slot_ = -1;
  fs::path dir_;
  fs::path root_;
  TreeSnapshot before_;
  bool have_snapshot_ = false;
  size_t applied_ = 0;
  std::set<size_t> made_here_;
};

SandboxLayers::SandboxLayers(const BuildPlan& plan, ContentStore& store) : plan_(plan), store_(store) {
  Sha256 h;
  h.update(std::string(kCacheVersion) + "\n");
  for (const auto& l : plan.base.layers) h.update("base " + l.diff_id + "\n");
  hash_layers(h, plan.layers);
  plan_identity_ = h.finish_digest();
}

SandboxLayers::~SandboxLayers() {
  if (root_writer_.joinable()) root_writer_.join();
}

void SandboxLayers::start_root() {
  if (workspace_ || root_writer_.joinable()) return;
  root_writer_ = std::thread([this] {
    try {
      workspace_ = std::make_unique<Workspace>(plan_, store_);
    } catch (...) {
      root_error_ = std::current_exception();
    }
  });
}

void SandboxLayers::finish_root() {
  if (!root_writer_.joinable()) return;
  root_writer_.join();
  if (root_error_) std::rethrow_exception(std::exchange(root_error_, nullptr));
}

struct SandboxLayers::Prepared {
  SandboxCommand command;
};

SandboxLayers::Prepared SandboxLayers::prepare(const SandboxJob& job, const std::vector<LayerPlan>& own_layers) {
  finish_root();
  if (!workspace_) workspace_ = std::make_unique<Workspace>(plan_, store_);
  workspace_->sync(own_layers);
  const fs::path& root = workspace_->root();
  if (job.prepare) job.prepare(root, workspace_->ids());
  SandboxUser ids = resolve_user(root, job.user, job.origin);
  Prepared prepared;
  SandboxCommand& command = prepared.command;
  command.name = job.name;
  command.argv = job.argv;
  command.env = job.env;
  command.uid = ids.uid;
  command.gid = ids.gid;
  command.workdir = job.workdir.empty() ? "/" : job.workdir;
  command.network = job.network;
  command.timeout_seconds = static_cast<int>(job.timeout_seconds);

  // As docker's WORKDIR: a missing working directory is made, and is part of the layer.
  std::string workdir_key =
      command.workdir.find_first_not_of('/') == std::string::npos ? "" : normalize_image_path(command.workdir, job.origin);
  struct stat st {};
  if (!workdir_key.empty() && ::lstat((root / workdir_key).c_str(), &st) != 0) {
    Entry dir;
    dir.path = workdir_key;
    dir.type = EntryType::kDirectory;
    dir.mode = 0755;
    dir.origin = job.origin;
    materialize_layer({dir}, root, workspace_->ids());
  }

  return prepared;
}

SandboxCheckResult SandboxLayers::check(const SandboxJob& job) {
  Prepared prepared = prepare(job, {});
  auto started = std::chrono::steady_clock::now();
  SandboxResult ran = run_in_sandbox(workspace_->root(), prepared.command,
                                     [&](const std::string& line) { spdlog::info("[{}] {}", job.name, line); });
  SandboxCheckResult result;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  result.exit_code = ran.exit_code;
  result.timed_out = ran.timed_out;
  result.setup_error = ran.setup_error;
  result.last_lines = std::move(ran.last_lines);
  if (job.cleanup) job.cleanup(workspace_->root(), workspace_->ids());
  return result;
}

SandboxLayerResult SandboxLayers::run(const SandboxJob& job, const std::vector<LayerPlan>& own_layers) {
  Sha256 parent;
  parent.update(plan_identity_ + "\n");
  hash_layers(parent, own_layers);
  nlohmann::json key_material = {{"version", kCacheVersion}, {"parent", parent.finish_digest()},
                                 {"argv", job.argv},          {"env", job.env},
                                 {"user", job.user},          {"workdir", job.workdir},
                                 {"network", job.network},    {"keep_litter", job.keep_litter},
                                 {"keep_pycache", job.keep_pycache}, {"extra", job.extra_key}};
  SandboxLayerResult result;
  result.key = sha256_digest(key_material.dump());

  if (auto cached = store_.get_record(kRecordKind, result.key)) {
    if (auto entries = entries_of(*cached, store_, job.origin)) {
      result.entries = std::move(*entries);
      result.cached = true;
      spdlog::info("{}: cached (key {})", job.name, result.key.substr(7, 12));
      return result;
    }
  }

  PhaseClock clock;
  Prepared prepared = prepare(job, own_layers);
  clock.lap("sandbox root (" + job.name + ")");
  const fs::path& root = workspace_->root();
  const SandboxCommand& command = prepared.command;
  auto started = std::chrono::steady_clock::now();
  SandboxResult ran = run_in_sandbox(root, command, [&](const std::string& line) { spdlog::info("[{}] {}", job.name, line); });
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (ran.timed_out || ran.exit_code != 0 || !ran.setup_error.empty()) {
    std::string what = ran.timed_out ? "was stopped after its time limit of " + std::to_string(job.timeout_seconds) +
                                           " s (its container was killed)"
                       : !ran.setup_error.empty() ? "could not be started in the sandbox (" + ran.runtime + "): " + ran.setup_error
                                                  : "failed with exit code " + std::to_string(ran.exit_code);
    std::string tail;
    for (const auto& l : ran.last_lines) tail += "\n    " + shorten(l, 400);
    // The root now holds a half-done change: the next job starts from a fresh copy.
    workspace_.reset();
    throw Error(job.origin + ": the command " + what + (tail.empty() ? "" : "; its last lines:" + tail),
                ran.timed_out ? "raise the timeout (seconds), or make the command faster" : job.failure_hint);
  }
  clock.lap("sandbox command (" + job.name + ")");
  if (job.cleanup) job.cleanup(root, workspace_->ids());
  auto measured = std::chrono::steady_clock::now();
  TreeSnapshot after = snapshot_tree(root);
  DiffOptions options;
  options.keep_litter = job.keep_litter;
  options.keep_pycache = job.keep_pycache;
  options.origin = job.origin;
  result.entries = diff_trees(root, workspace_->before(), after, options);
  // The command wrote as the ids of its user namespace (as root: an unprivileged host range;
  // rootless: this user); in the image they are the ids the command saw. A host id outside the
  // mapping (nothing the command can make) becomes nobody rather than leaking into the image.
  const IdMapping& ids = workspace_->ids();
  for (auto& e : result.entries) {
    e.uid = ids.uids.to_container(e.uid).value_or(65534);
    e.gid = ids.gids.to_container(e.gid).value_or(65534);
  }
  move_contents_to_store(result.entries, store_);
  store_.put_record(kRecordKind, result.key, record_of(result.entries));
  workspace_->before() = std::move(after);
  workspace_->made_here(own_layers.size());
  double diff_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - measured).count();
  clock.lap("sandbox diff (" + job.name + ")");
  spdlog::info("{}: done in {:.2f} s, {} paths changed (found and stored in {:.2f} s)", job.name, result.seconds,
               result.entries.size(), diff_seconds);
  return result;
}

}  // namespace rp
