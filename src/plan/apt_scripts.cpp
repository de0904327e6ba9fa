#include "plan/apt_scripts.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <map>
#include <memory>
#include <optional>

#include "apt/dpkg_database.hpp"
#include "apt/maintainer_scripts.hpp"
#include "plan/sandbox_layers.hpp"
#include "sandbox/materialize.hpp"
#include "sandbox/sandbox.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace rp {

bool apt_scripts_run(const recipe::AptSection& section, const FileTree& installed_tree,
                     const std::vector<apt::UnpackedPackage>& added) {
  bool run_scripts = section.scripts != recipe::AptScripts::kNative && !added.empty();
  if (run_scripts && section.scripts == recipe::AptScripts::kAuto) {
    if (auto why = sandbox_unavailable()) {
      // The image then differs from one built where the sandbox works: say so loudly.
      spdlog::warn("apt: scripts: auto: the sandbox cannot run here ({}); the maintainer scripts are not run, their "
                   "common effects are produced natively",
                   *why);
      run_scripts = false;
    }
  }
  if (run_scripts && !installed_tree.lstat("/usr/bin/dpkg"))
    throw InputError(section.where.str() + ": apt: scripts: run needs dpkg in the image, and neither the base nor the "
                                           "packages have /usr/bin/dpkg",
                     "add dpkg to apt.packages (a minbase has it), or use scripts: native");
  return run_scripts;
}

LayerPlan maintainer_scripts_layer(const StepContext& context, const recipe::AptSection& section,
                                   const apt::InstalledDatabase& installed, const std::vector<apt::UnpackedPackage>& added,
                                   const std::vector<LayerPlan>& apt_layers, SandboxLayers* sandbox,
                                   const std::function<void()>& scripts_start) {
  const std::string origin = section.where.str() + " apt (maintainer scripts)";
  // The state dpkg leaves after unpacking: the new packages "unpacked", conffiles as .dpkg-new.
  std::vector<Entry> unpacked;
  Entry status;
  status.path = "var/lib/dpkg/status";
  status.mode = 0644;
  status.content = std::make_shared<InlineContent>(apt::merged_status(installed, added, true));
  status.origin = origin;
  unpacked.push_back(std::move(status));
  std::map<std::string, const Entry*> planned;
  for (const auto& l : apt_layers)
    for (const auto& e : l.entries) planned[e.path] = &e;
  for (const auto& p : added)
    for (const auto& [path, md5] : p.conffiles) {
      std::string key = path.substr(path.find_first_not_of('/'));
      auto it = planned.find(key);
      if (it == planned.end() || it->second->type != EntryType::kFile) continue;  // dpkg says what is missing
      Entry waiting = *it->second;
      waiting.path = key + ".dpkg-new";
      unpacked.push_back(std::move(waiting));
      Entry gone;
      size_t slash = key.rfind('/');
      gone.path = slash == std::string::npos ? ".wh." + key : key.substr(0, slash + 1) + ".wh." + key.substr(slash + 1);
      gone.content = std::make_shared<InlineContent>("");
      unpacked.push_back(std::move(gone));
    }
  auto own_policy = std::make_shared<bool>(false);

  SandboxJob job;
  job.name = "apt scripts";
  job.origin = origin;
  // apt-get's sequence of unpacks and early configurations (apt/script_order.hpp); the points where
  // it configures before the end are logged, so a build log shows them.
  std::vector<apt::ScriptBatch> sequence = apt::script_sequence(added, installed.installed);
  std::vector<std::string> early;
  for (const auto& batch : sequence) {
    if (batch.action != apt::ScriptBatch::Action::kConfigure) continue;
    std::vector<std::string> names;
    for (size_t i : batch.packages) names.push_back(added[i].name);
    early.push_back(join(names, " "));
  }
  if (!early.empty()) spdlog::info("apt: configured before the end, as apt-get does: {}", join(early, "; "));
  job.argv = {"/bin/sh", "-c", apt::configure_script(added, sequence)};
  job.env = apt::configure_environment();
  // useradd (adduser), man-db and others honour it: /etc/shadow's last-change day is then the build's.
  job.env.push_back("SOURCE_DATE_EPOCH=" + std::to_string(context.plan.source_date_epoch));
  job.user = "0";
  job.workdir = "/";
  job.timeout_seconds = 3600;
  job.failure_hint = "a maintainer script failed: its output is above; use scripts: native to install without running them";
  job.prepare = [&, own_policy](const fs::path& root, const IdMapping& ids) {
    if (scripts_start) scripts_start();
    materialize_layer(unpacked, root, ids, context.plan.source_date_epoch);
    struct stat st {};
    if (::lstat((root / "usr/sbin/policy-rc.d").c_str(), &st) == 0) return;  // the image has its own
    Entry policy;
    policy.path = "usr/sbin/policy-rc.d";
    policy.mode = 0755;
    policy.content = std::make_shared<InlineContent>(apt::policy_rc_d());
    materialize_layer({policy}, root, ids);
    *own_policy = true;
  };
  job.cleanup = [own_policy](const fs::path& root, const IdMapping& ids) {
    if (!*own_policy) return;
    Entry gone;
    gone.path = "usr/sbin/.wh.policy-rc.d";
    gone.content = std::make_shared<InlineContent>("");
    materialize_layer({gone}, root, ids);
  };
  spdlog::info("apt: running the maintainer scripts of {} packages in the sandbox", added.size());
  std::optional<SandboxLayers> own;
  if (!sandbox) sandbox = &own.emplace(context.plan, *context.store);
  SandboxLayerResult result = sandbox->run(job, apt_layers);
  LayerPlan layer;
  layer.name = "apt-scripts";
  layer.created_by = "rockpack apt: maintainer scripts (preinst install, dpkg --configure --pending)";
  layer.entries = std::move(result.entries);
  return layer;
}

}  // namespace rp
