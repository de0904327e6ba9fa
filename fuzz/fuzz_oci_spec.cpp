// Fuzzes the sandbox's runtime spec generation with what an untrusted image gives it: the image
// config's Env, User and WorkingDir (the input, as JSON) and its /etc/passwd and /etc/group (the
// same bytes, written into a scratch root), through the same path `rockpack check` takes
// (sandbox_job_of -> resolve_user -> make_oci_spec). Only rp::Error may come out; a spec that is
// made must keep its invariants (a user namespace with the mapping, no terminal, noNewPrivileges, no
// capability beyond the default set) and serialize as JSON.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "fuzz_scratch.hpp"
#include "plan/run_step.hpp"
#include "sandbox/materialize.hpp"
#include "sandbox/oci_spec.hpp"
#include "util/error.hpp"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fs::path root = fs::path(fuzz_scratch_dir()) / "root";
  std::string text(reinterpret_cast<const char*>(data), size);
  fs::create_directories(root / "etc");
  std::ofstream(root / "etc/passwd", std::ios::trunc) << text;
  std::ofstream(root / "etc/group", std::ios::trunc) << text;

  auto config = nlohmann::json::parse(text, nullptr, false);
  std::vector<std::string> env;
  std::string user, workdir;
  if (config.is_object()) {
    if (config.contains("Env") && config["Env"].is_array())
      for (const auto& e : config["Env"])
        if (e.is_string()) env.push_back(e.get<std::string>());
    if (config.contains("User") && config["User"].is_string()) user = config["User"].get<std::string>();
    if (config.contains("WorkingDir") && config["WorkingDir"].is_string()) workdir = config["WorkingDir"].get<std::string>();
  } else {
    // Raw lines: user, workdir, then env entries.
    size_t nl = text.find('\n');
    user = text.substr(0, nl);
    if (nl != std::string::npos) {
      size_t nl2 = text.find('\n', nl + 1);
      workdir = text.substr(nl + 1, nl2 == std::string::npos ? std::string::npos : nl2 - nl - 1);
      if (nl2 != std::string::npos) env.push_back(text.substr(nl2 + 1));
    }
  }
  rp::recipe::RunItem item;
  item.name = "fuzz";
  item.shell = "true";
  try {
    rp::SandboxJob job = rp::sandbox_job_of(item, "check", env, user, workdir);
    rp::SandboxUser ids = rp::resolve_user(root, job.user, job.origin);
    rp::SpecInput in;
    in.rootfs = "/run/rockpack/fuzz/rootfs";
    in.argv = job.argv;
    in.env = job.env;
    in.uid = ids.uid;
    in.gid = ids.gid;
    in.cwd = job.workdir;
    in.uids = {1878982656, 65536};
    in.gids = {1878982656, 65536};
    in.seccomp = nlohmann::json::object();
    nlohmann::json spec = rp::make_oci_spec(in);
    (void)spec.dump();  // must not throw: every string in it is UTF-8
    bool user_ns = false;
    for (const auto& ns : spec["linux"]["namespaces"]) user_ns |= ns["type"] == "user";
    if (!user_ns || spec["linux"]["uidMappings"][0]["hostID"] != 1878982656u) std::abort();
    if (spec["process"]["terminal"] != false || spec["process"]["noNewPrivileges"] != true) std::abort();
    const auto& defaults = rp::default_capabilities();
    std::set<std::string> allowed(defaults.begin(), defaults.end());
    for (const char* set : {"bounding", "effective", "permitted", "inheritable", "ambient"})
      for (const auto& c : spec["process"]["capabilities"][set])
        if (!allowed.count(c.get<std::string>())) std::abort();
    if (ids.uid != 0 && !spec["process"]["capabilities"]["effective"].empty()) std::abort();
  } catch (const rp::Error&) {
  }
  return 0;
}
