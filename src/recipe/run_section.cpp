#include "recipe/run_section.hpp"

#include <regex>

#include "util/strings.hpp"

namespace rp::recipe {

namespace {

const std::vector<std::string> kRunKeys = {"name", "shell", "command", "env", "user", "workdir",
                                           "network", "timeout", "layer", "cache_key",
                                           "keep_litter", "keep_pycache"};
constexpr uint32_t kMaxTimeout = 7 * 24 * 3600;

void read_item(const DocumentReader& in, const YAML::Node& node, size_t index, std::vector<RunItem>& items,
               const std::string& section, const HostPathAllowed& host_path_allowed) {
  if (!node.IsMap()) {
    in.error(node, "each " + section + ": item must be a mapping (shell: or command:, name:, env:, ...)");
    return;
  }
  if (!in.check_keys(node, kRunKeys, section + " item")) return;
  RunItem item;
  item.where = in.at(node);
  item.name = section + "-" + std::to_string(index + 1);
  if (auto n = node["name"]) {
    auto t = in.text(n, "name");
    static const std::regex kName("[a-z0-9][a-z0-9._-]{0,62}");
    if (t && !std::regex_match(*t, kName))
      in.error(n, "run step name '" + *t + "' is not a simple name", "use lowercase letters, digits, '.', '_', '-'");
    else if (t)
      item.name = *t;
  }
  auto shell = node["shell"];
  auto command = node["command"];
  if (shell && command) {
    in.error(node, "a " + section + " item has both shell: and command:", "keep one: shell: runs a script by /bin/sh -c, "
                                                               "command: runs a program with its arguments");
  } else if (!shell && !command) {
    in.error(node, "a " + section + " item needs shell: or command:");
  } else if (shell) {
    item.shell = in.text(shell, "shell");
    if (item.shell && item.shell->find_first_not_of(" \t\n") == std::string::npos)
      in.error(shell, "shell: is empty");
  } else {
    if (!command.IsSequence()) in.error(command, "command: must be a list: [program, arg, ...]");
    else if (auto list = in.string_list(command, "command")) item.command = *list;
    if (command.IsSequence() && item.command.empty()) in.error(command, "command: is empty");
  }
  if (auto n = node["env"]) {
    if (auto m = in.string_map(n, "env")) {
      static const std::regex kVar("[A-Za-z_][A-Za-z0-9_]*");
      for (const auto& [k, v] : *m)
        if (!std::regex_match(k, kVar)) in.error(n, "'" + k + "' is not an environment variable name");
      item.env = *m;
    }
  }
  if (auto n = node["user"]) item.user = in.text(n, "user").value_or("");
  if (auto n = node["workdir"]) item.workdir = in.image_path(n, "workdir").value_or("");
  if (auto n = node["network"]) item.network = in.boolean(n, "network").value_or(false);
  if (auto n = node["keep_litter"]) item.keep_litter = in.boolean(n, "keep_litter").value_or(false);
  if (auto n = node["keep_pycache"]) item.keep_pycache = in.boolean(n, "keep_pycache").value_or(false);
  if (auto n = node["timeout"]) {
    auto t = in.number(n, "timeout", 10, kMaxTimeout);
    if (t && *t == 0) in.error(n, "timeout: must be at least 1 (seconds)");
    else if (t) item.timeout_seconds = *t;
  }
  item.layer = item.name;
  if (auto n = node["layer"]) item.layer = in.text(n, "layer").value_or(item.name);
  if (auto n = node["cache_key"]) {
    if (auto list = in.string_list(n, "cache_key"))
      for (size_t i = 0; i < list->size(); ++i) {
        const std::string& f = (*list)[i];
        auto p = in.host_path(f);
        // The file's bytes become a cache key and its digest may reach an error: it is read only
        // where files: src may read, so a recipe cannot probe the host with it.
        std::string written = n.IsSequence() && i < n.size() ? n[i].Scalar() : f;
        if (host_path_allowed && !host_path_allowed(p, written))
          in.error(n, "cache_key file '" + shorten(f) + "' is outside the directory of " + in.file().filename().string() + " (" +
                          std::filesystem::absolute(in.file().parent_path()).lexically_normal().string() + ")",
                   "a recipe reads only its own directory, like docker's build context; pass `--allow-path DIR` to let it "
                   "read DIR too");
        else if (!std::filesystem::is_regular_file(p))
          in.error(n, "cache_key file '" + shorten(f) + "' does not exist", "paths are relative to the recipe's directory");
        else
          item.cache_key.push_back(p);
      }
  }
  for (const auto& other : items)
    if (other.name == item.name)
      in.error(node, "two " + section + " items are named '" + item.name + "' (the other at " + other.where.str() + ")");
  items.push_back(std::move(item));
}

}  // namespace

void read_run_section(const DocumentReader& in, const YAML::Node& node, std::vector<RunItem>& items,
                      const std::string& section, const HostPathAllowed& host_path_allowed) {
  if (!node.IsSequence()) {
    in.error(node, "'" + section + "' must be a list of items (- shell: ... or - command: [...])");
    return;
  }
  for (size_t i = 0; i < node.size(); ++i) read_item(in, node[i], items.size(), items, section, host_path_allowed);
}

}  // namespace rp::recipe
