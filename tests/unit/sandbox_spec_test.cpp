#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "sandbox/oci_spec.hpp"
#include "sandbox/output_lines.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

using namespace rp;

namespace {
SpecInput input() {
  SpecInput in;
  in.rootfs = "/run/rockpack/x/rootfs";
  in.argv = {"/bin/sh", "-c", "true"};
  in.env = {"PATH=/bin"};
  in.uids = {1878982656, 65536};
  in.gids = {1878982656, 65536};
  in.seccomp = nlohmann::json::object();
  return in;
}
}  // namespace

TEST_CASE("oci spec: always a user namespace with the mapping -- podman's capabilities -- no terminal -- no new privileges") {
  auto spec = make_oci_spec(input());
  const auto& linux = spec["linux"];
  bool user_ns = false, net_ns = false;
  for (const auto& ns : linux["namespaces"]) {
    user_ns |= ns["type"] == "user";
    net_ns |= ns["type"] == "network";
  }
  CHECK(user_ns);
  CHECK(net_ns);
  CHECK(linux["uidMappings"][0]["hostID"] == 1878982656u);
  CHECK(linux["uidMappings"][0]["containerID"] == 0);
  CHECK(spec["process"]["terminal"] == false);
  CHECK(spec["process"]["noNewPrivileges"] == true);
  CHECK(spec["process"]["capabilities"]["bounding"].size() == 11);
  CHECK(spec["process"]["capabilities"]["effective"] == spec["process"]["capabilities"]["bounding"]);
  CHECK(linux["resources"]["pids"]["limit"] == 4096);
  CHECK(linux["maskedPaths"].size() > 5);

  SpecInput user = input();
  user.uid = 1000;
  user.gid = 1000;
  user.network = true;
  auto as_user = make_oci_spec(user);
  CHECK(as_user["process"]["capabilities"]["effective"].empty());  // docker: a non-root user has none
  CHECK(as_user["process"]["capabilities"]["permitted"].empty());
  for (const auto& ns : as_user["linux"]["namespaces"]) CHECK(ns["type"] != "network");
}

TEST_CASE("oci spec: what a runtime would misread is refused") {
  auto bad = [](auto change) {
    SpecInput in = input();
    change(in);
    CHECK_THROWS_AS(make_oci_spec(in), InputError);
  };
  bad([](SpecInput& in) { in.argv.clear(); });
  bad([](SpecInput& in) { in.argv[2] = std::string("a\0b", 3); });
  bad([](SpecInput& in) { in.env = {"NOEQUALS"}; });
  bad([](SpecInput& in) { in.env = {"=value"}; });
  bad([](SpecInput& in) { in.cwd = "relative/dir"; });
  bad([](SpecInput& in) { in.cwd = std::string("/a\0b", 4); });
  bad([](SpecInput& in) { in.uid = 70000; });
  bad([](SpecInput& in) { in.uids = {}; });  // never without a user namespace
}

TEST_CASE("oci seccomp: the containers profile's rules for our capabilities and architecture") {
  if (!std::filesystem::exists("/usr/share/containers/seccomp.json")) {
    MESSAGE("skipped: /usr/share/containers/seccomp.json is not installed");
    return;
  }
  auto profile = nlohmann::json::parse(read_file("/usr/share/containers/seccomp.json"));
  auto out = oci_seccomp(profile, default_capabilities());
  CHECK(out["defaultAction"] == "SCMP_ACT_ERRNO");
  auto action_of = [&](const std::string& name) {
    std::vector<std::string> actions;
    for (const auto& r : out["syscalls"])
      for (const auto& n : r["names"])
        if (n == name) actions.push_back(r["action"]);
    return actions;
  };
  CHECK(action_of("chroot") == std::vector<std::string>{"SCMP_ACT_ALLOW"});  // CAP_SYS_CHROOT is ours
  CHECK(action_of("bpf") == std::vector<std::string>{"SCMP_ACT_ERRNO"});      // CAP_SYS_ADMIN is not
  CHECK(action_of("kexec_load") == std::vector<std::string>{"SCMP_ACT_ERRNO"});
  CHECK(action_of("init_module") == std::vector<std::string>{"SCMP_ACT_ERRNO"});
  CHECK_THROWS_AS(oci_seccomp(nlohmann::json::array(), default_capabilities()), Error);
}

TEST_CASE("output lines: newline-less output is cut into bounded pieces in linear time") {
  std::vector<std::string> lines;
  OutputLines splitter([&](std::string l) { lines.push_back(std::move(l)); }, 8);
  splitter.feed("ab\ncd", 5);
  splitter.feed("efghijklmnop\n12345678\nx", 23);
  splitter.finish();
  CHECK(lines == std::vector<std::string>{"ab", "cdefghij", "klmnop", "12345678", "x"});

  // 64 MiB without a newline: bounded pieces, each byte looked at once (this takes well under a second).
  size_t pieces = 0, bytes = 0;
  OutputLines big([&](std::string l) {
    ++pieces;
    bytes += l.size();
    CHECK(l.size() <= 16 * 1024);
  });
  std::string chunk(65536, 'z');
  for (int i = 0; i < 1024; ++i) big.feed(chunk.data(), chunk.size());
  big.finish();
  CHECK(bytes == 64u << 20);
  CHECK(pieces == (64u << 20) / (16 * 1024));
}
