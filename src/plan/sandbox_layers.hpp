#pragma once
// Commands run in the sandbox on the image built so far, each one's file system change a layer,
// cached in the store: what the `run:` step and the apt step's maintainer scripts share.
//
// The image so far (the plan's base and layers, then the layers the calling step made before this
// job) is written into a directory once, lazily: a build whose jobs are all cached writes nothing.
// A job's cache key is everything its result can depend on: the image so far (base layers by
// diff_id, planned layers by their entry listing with content keys), the command, env, user,
// workdir, network, the litter options and the caller's extra inputs.
#include <functional>
#include <memory>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "plan/plan.hpp"
#include "sandbox/id_map.hpp"
#include "store/content_store.hpp"

namespace rp {

struct SandboxJob {
  std::string name;    // log prefix ("[name] line") and messages
  std::string origin;  // where the job comes from, for errors ("recipe.yaml:12:5 run build")
  std::vector<std::string> argv;
  std::vector<std::string> env;  // "NAME=value"
  std::string user;              // "name", "uid", "name:group", "uid:gid"; empty: root
  std::string workdir = "/";     // made when missing (and then part of the layer), as docker's WORKDIR
  bool network = false;
  uint32_t timeout_seconds = 0;  // 0: none
  bool keep_litter = false;
  bool keep_pycache = false;
  std::string extra_key;  // more inputs of the result (e.g. the digests of cache_key files)
  // Runs on the root just before the command. What it changes counts as the command's change (the
  // layer holds it unless the command or cleanup() undoes it): e.g. the dpkg status the command
  // rewrites, a helper file cleanup() removes again. What it writes must be owned through `ids`
  // (materialize_layer(entries, root, ids)), the sandbox's user namespace.
  std::function<void(const std::filesystem::path& root, const IdMapping& ids)> prepare;
  // Runs on the root after the command succeeded, before the change is measured.
  std::function<void(const std::filesystem::path& root, const IdMapping& ids)> cleanup;
  std::string failure_hint = "fix the command; nothing was written";
};

struct SandboxLayerResult {
  std::vector<Entry> entries;  // finalized; file contents in the store
  bool cached = false;
  double seconds = 0;  // running time; 0 when cached
  std::string key;     // the cache key
};

struct SandboxCheckResult {
  int exit_code = 0;  // 128+N when killed by signal N
  bool timed_out = false;
  std::string setup_error;  // the sandbox could not start the command (the runtime's reason)
  double seconds = 0;
  std::vector<std::string> last_lines;
};

class SandboxLayers {
 public:
  SandboxLayers(const BuildPlan& plan, ContentStore& store);
  ~SandboxLayers();  // waits for start_root's thread
  // Starts writing the image so far (the plan's base and layers) into the root on a thread of its
  // own, so that it overlaps the caller's other work (the apt step's downloads); the first run() or
  // check() waits for it and reports its failure. Worth it only when a job will run: a build whose
  // jobs are all cached would write the root for nothing.
  void start_root();
  // Runs `job` (or finds its layer in the store) on the plan's image with `own_layers` on top: the
  // layers the calling step made so far, in order, each of them earlier results of this object or
  // other planned layers. Throws rp::Error with the exit code and the last lines of output when the
  // command fails or times out.
  SandboxLayerResult run(const SandboxJob& job, const std::vector<LayerPlan>& own_layers);
  // Runs `job` on the plan's image for its exit status only (`rockpack check`): nothing is cached
  // or measured, and what it writes stays in the scratch root for the next check to see.
  SandboxCheckResult check(const SandboxJob& job);

 private:
  class Workspace;
  // The command of `job` on the workspace's root (a missing workdir is made there first).
  struct Prepared;
  Prepared prepare(const SandboxJob& job, const std::vector<LayerPlan>& own_layers);
  const BuildPlan& plan_;
  ContentStore& store_;
  std::string plan_identity_;
  std::unique_ptr<Workspace> workspace_;
  std::thread root_writer_;        // start_root's
  std::exception_ptr root_error_;  // what it threw
  void finish_root();              // joins it; rethrows its failure
};

}  // namespace rp
