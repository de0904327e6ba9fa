#include "cli/vcs_info.hpp"

#include <cstdio>

namespace rp::cli {

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
}  // namespace

std::string strip_userinfo(const std::string& url) {
  auto scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  auto host_start = scheme + 3;
  auto path_start = url.find('/', host_start);
  auto at = url.rfind('@', path_start == std::string::npos ? url.size() : path_start);
  if (at == std::string::npos || at < host_start) return url;
  return url.substr(0, host_start) + url.substr(at + 1);
}

VcsInfo detect_vcs(const fs::path& dir) {
  VcsInfo info;
  info.revision = run_git(dir, "rev-parse HEAD");
  if (info.revision.size() != 40) info.revision.clear();
  std::string url = strip_userinfo(run_git(dir, "remote get-url origin"));
  if (url.rfind("https://", 0) == 0 || url.rfind("http://", 0) == 0) info.source = url;
  return info;
}

}  // namespace rp::cli
