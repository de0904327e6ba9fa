#include "python/standalone.hpp"

#include <memory>

#include "util/error.hpp"

namespace rp::python {

namespace {

// The member's path below `strip`/, "" for the top directory itself; nullopt when outside it.
// Throws for paths that would escape the prefix.
std::optional<std::string> path_below(const std::string& member, const std::string& strip,
                                      const std::string& archive_name, const std::string& origin) {
  std::string where = origin + ": " + archive_name + " member '" + member + "'";
  if (!member.empty() && member.front() == '/')
    throw InputError(where + " has an absolute path", "use an archive whose members are relative paths");
  std::string path = member;
  while (path.rfind("./", 0) == 0) path.erase(0, 2);
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (path == strip) return std::string();
  if (path.rfind(strip + "/", 0) != 0) return std::nullopt;
  return normalize_image_path(path.substr(strip.size() + 1), where);  // throws on ".."
}

}  // namespace

std::vector<Entry> standalone_entries(const MemberArchive& archive, const std::string& archive_name,
                                      const std::string& prefix,
                                      const std::string& strip_dir, const std::string& origin) {
  if (prefix.empty() || prefix.front() != '/')
    throw InputError(origin + ": the prefix '" + prefix + "' is not an absolute path", "write it as /opt/python");
  std::string root = normalize_image_path(prefix, origin);
  std::string strip = strip_dir;
  while (!strip.empty() && strip.back() == '/') strip.pop_back();
  while (strip.rfind("./", 0) == 0) strip.erase(0, 2);
  if (strip.empty() || strip.front() == '/' || strip.find("..") != std::string::npos)
    throw InputError(origin + ": strip '" + strip_dir + "' must name the archive's top directory", "e.g. strip: python");

  std::vector<Entry> out;
  out.reserve(archive.members().size());
  for (const auto& m : archive.members()) {
    auto rel = path_below(m.path, strip, archive_name, origin);
    if (!rel)
      throw InputError(origin + ": " + archive_name + " has '" + m.path + "' outside its top directory '" + strip + "/'",
                       "set python.standalone.strip to the archive's top directory");
    if (rel->empty() && m.type != EntryType::kDirectory)
      throw InputError(origin + ": " + archive_name + ": the top directory '" + strip + "' is not a directory");
    Entry e;
    e.path = rel->empty() ? root : root + "/" + *rel;
    e.type = m.type;
    e.mode = m.mode;
    e.origin = origin;
    switch (m.type) {
      case EntryType::kFile:
        e.content = archive.content(m);
        break;
      case EntryType::kSymlink:
        if (m.link_target.empty())
          throw InputError(origin + ": " + archive_name + " symlink '" + m.path + "' has no target");
        e.link_target = m.link_target;  // as written: relative targets keep working under the prefix
        break;
      case EntryType::kHardlink: {
        auto target = path_below(m.link_target, strip, archive_name, origin);
        if (!target || target->empty())
          throw InputError(origin + ": " + archive_name + " hardlink '" + m.path + "' points outside '" + strip +
                           "/' (to '" + m.link_target + "')");
        e.link_target = root + "/" + *target;
        break;
      }
      case EntryType::kDirectory: break;
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace rp::python
