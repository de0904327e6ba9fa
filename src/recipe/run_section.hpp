#pragma once
// The recipe's `run:` section (docs/run.md): a list of commands run in a sandbox against the image
// built so far, each producing one layer (src/plan/run_step); and `checks:`, commands `rockpack check`
// runs on a finished image (src/cli/cmd_check).
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "recipe/document_reader.hpp"
#include "recipe/model.hpp"

namespace rp::recipe {


// Reads `node`, the value of `run:` (or `checks:`, the same items run by `rockpack check`) in one
// document, appending its items to `items`. Every problem is reported at its file:line:column
// through `in`, naming `section`.
// `host_path_allowed(path, written)` says whether a cache_key: file may be read: the same rule as
// `files: src` (the document's directory, --allow-path, a --set value); empty: any path.
using HostPathAllowed = std::function<bool(const std::filesystem::path& path, const std::string& written)>;
void read_run_section(const DocumentReader& in, const YAML::Node& node, std::vector<RunItem>& items,
                      const std::string& section = "run", const HostPathAllowed& host_path_allowed = {});

}  // namespace rp::recipe
