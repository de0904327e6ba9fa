#include "build/vcs_info.hpp"

#include <cstdio>
#include <cstdlib>

#include "net/url.hpp"

namespace rp::build {

namespace {
std::string run_git(const fs::path& dir, const std::string& args) {
  std::string cmd = "git -C '" + dir.string() + "' " + args + " 2>/dev/null";
  if (dir.string().find('\'') != std::string::npos) return {};
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return {};
  std::string out;
  char buf[512];
  while (size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  if (::pclose(p) != 0) return {};
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

// Whether git could find a repository for `dir`: a ".git" in it or above it, or GIT_DIR set.
// Without one, running git (twice) would only cost a warm build about 15 ms.
bool may_be_in_git_repository(const fs::path& dir) {
  if (std::getenv("GIT_DIR")) return true;
  std::error_code ec;
  fs::path p = fs::absolute(dir, ec);
  if (ec) return true;
  for (;;) {
    if (fs::exists(p / ".git", ec)) return true;
    if (!p.has_relative_path()) return false;
    p = p.parent_path();
  }
}
}  // namespace

VcsInfo detect_vcs(const fs::path& dir) {
  VcsInfo info;
  if (!may_be_in_git_repository(dir)) return info;
  info.revision = run_git(dir, "rev-parse HEAD");
  if (info.revision.size() != 40) info.revision.clear();
  std::string url = net::redact_credentials(run_git(dir, "remote get-url origin"));
  if (url.rfind("https://", 0) == 0 || url.rfind("http://", 0) == 0) info.source = url;
  return info;
}

}  // namespace rp::build
