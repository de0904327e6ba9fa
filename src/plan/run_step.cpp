#include "plan/run_step.hpp"

#include <algorithm>

#include "plan/sandbox_layers.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace rp {

namespace {

// What `--resolved` and `--metadata-file` say of the run step (no timings: the record must be the
// same for the same image).
struct RunItemRecord {
  std::string name;
  std::string layer;
  std::string cache_key;
  bool cached = false;
  size_t entries = 0;
};

class RunRecord final : public StepRecord {
 public:
  std::vector<RunItemRecord> items;
  nlohmann::json to_json() const override {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& i : items)
      out.push_back({{"name", i.name}, {"layer", i.layer}, {"cache_key", i.cache_key}, {"entries", i.entries}});
    return {{"items", out}};
  }
};

std::string base_config_string(const BuildPlan& plan, const char* key) {
  const auto& base = plan.base.config;
  if (!base.contains("config") || !base["config"].is_object()) return {};
  auto it = base["config"].find(key);
  return it != base["config"].end() && it->is_string() ? it->get<std::string>() : std::string();
}

// `env` with the item's `env:` on top (same name: the item wins).
std::vector<std::string> env_of(std::vector<std::string> env, const recipe::RunItem& item) {
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

// The digests of the item's cache_key files: their contents are inputs of the layer.
std::string inputs_of(const recipe::RunItem& item) {
  std::string out;
  for (const auto& file : item.cache_key) {
    std::string bytes;
    try {
      bytes = read_file(file);
    } catch (const Error& e) {
      throw InputError(item.where.str() + ": cannot read the cache_key file " + file.string() + ": " + e.what());
    }
    out += file.filename().string() + " " + sha256_digest(bytes) + "\n";
  }
  return out;
}

std::string summary(const recipe::RunItem& item) {
  std::string text = item.shell ? *item.shell : join(item.command, " ");
  for (auto& c : text)
    if (c == '\n' || c == '\t') c = ' ';
  return shorten(text, 200);
}

}  // namespace

SandboxJob sandbox_job_of(const recipe::RunItem& item, const std::string& section, const std::vector<std::string>& env,
                          const std::string& default_user, const std::string& default_workdir) {
  SandboxJob job;
  job.name = section + " " + item.name;
  job.origin = item.where.str() + " " + section + " " + item.name;
  // A shell script runs as `/bin/sh -c SCRIPT`, as docker's RUN does.
  job.argv = item.shell ? std::vector<std::string>{"/bin/sh", "-c", *item.shell} : item.command;
  job.env = env_of(env, item);
  // As docker does for a config without them: a default PATH, and root's HOME.
  auto has = [&](const char* name) {
    return std::any_of(job.env.begin(), job.env.end(), [&](const std::string& e) { return e.rfind(std::string(name) + "=", 0) == 0; });
  };
  if (!has("PATH")) job.env.push_back("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  job.user = item.user.empty() ? default_user : item.user;
  job.workdir = !item.workdir.empty() ? item.workdir : (default_workdir.empty() ? "/" : default_workdir);
  job.network = item.network;
  if (!has("HOME") && (job.user.empty() || job.user == "0" || job.user == "root" || job.user.rfind("0:", 0) == 0 ||
                       job.user.rfind("root:", 0) == 0))
    job.env.push_back("HOME=/root");
  job.timeout_seconds = item.timeout_seconds;
  job.keep_litter = item.keep_litter;
  job.keep_pycache = item.keep_pycache;
  return job;
}

StepOutput RunStep::plan(const StepContext& context) const {
  StepOutput out;
  if (context.mode == StepMode::kOffline) return out;
  auto record = std::make_shared<RunRecord>();
  std::unique_ptr<SandboxLayers> sandbox;
  if (context.mode == StepMode::kBuild) sandbox = std::make_unique<SandboxLayers>(context.plan, *context.store);
  // As docker's RUN after FROM: the base image's User and WorkingDir, unless the item says. The
  // recipe's own user:/workdir: are the finished image's.
  const std::string base_user = base_config_string(context.plan, "User");
  const std::string base_workdir = base_config_string(context.plan, "WorkingDir");

  for (const auto& item : context.recipe.run) {
    LayerPlan layer;
    layer.name = item.layer;
    layer.created_by = "rockpack run " + item.name + ": " + summary(item);
    RunItemRecord rec{item.name, item.layer, {}, false, 0};
    if (sandbox) {
      SandboxJob job = sandbox_job_of(item, "run", context.image_env(), base_user, base_workdir);
      // As BuildKit passes it to RUN: tools that honour it (useradd, pip's compile, gzip -n) then
      // write the build's time, not the host's.
      if (std::none_of(job.env.begin(), job.env.end(), [](const std::string& e) { return e.rfind("SOURCE_DATE_EPOCH=", 0) == 0; }))
        job.env.push_back("SOURCE_DATE_EPOCH=" + std::to_string(context.plan.source_date_epoch));
      job.extra_key = inputs_of(item);
      SandboxLayerResult result = sandbox->run(job, out.layers);
      rec.cache_key = result.key;
      rec.cached = result.cached;
      rec.entries = result.entries.size();
      layer.entries = std::move(result.entries);
    }
    out.layers.push_back(std::move(layer));
    record->items.push_back(rec);
  }
  out.records.emplace_back("run", record);
  return out;
}

}  // namespace rp
