#pragma once
// The recipe's `run:` section (docs/run.md): a list of commands run in a sandbox against the image
// built so far, each producing one layer. Not yet wired into recipe::Recipe / the loader (issue 12).
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "recipe/document_reader.hpp"

namespace rp::recipe {

struct RunItem {
  SourceLocation where;
  std::string name;                       // default: "run-<n>" (1-based)
  std::optional<std::string> shell;       // `shell: |` — run by /bin/sh -c
  std::vector<std::string> command;       // `command: [...]` — exec'd directly
  std::vector<std::pair<std::string, std::string>> env;
  std::string user;                       // numeric uid[:gid] or a name from the rootfs's /etc/passwd
  std::string workdir = "/";
  bool network = false;
  uint32_t timeout_seconds = 3600;
  std::string layer;                      // default: the item's name
  std::vector<std::filesystem::path> cache_key;  // host files whose contents join the cache key
};

// Reads `node`, the value of `run:` in one document, appending its items to `items`. Every problem
// is reported at its file:line:column through `in`.
void read_run_section(const DocumentReader& in, const YAML::Node& node, std::vector<RunItem>& items);

}  // namespace rp::recipe
