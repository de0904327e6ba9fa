#pragma once
// Typed values out of one YAML document of a recipe (the recipe itself or a fragment). Every accessor
// checks the type and substitutes ${VAR}; on a problem it records an error at the node's
// file:line:column and returns nullopt, so the loader carries on and one run reports every problem.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "recipe/diagnostics.hpp"

namespace rp::recipe {

class DocumentReader {
 public:
  DocumentReader(std::filesystem::path file, Diagnostics& diag, const std::map<std::string, std::string>& vars)
      : file_(std::move(file)), diag_(diag), vars_(vars) {}

  const std::filesystem::path& file() const { return file_; }
  SourceLocation at(const YAML::Node& node) const;
  void error(const YAML::Node& node, std::string message, std::string hint = {}) const;

  std::optional<std::string> text(const YAML::Node& node, const std::string& key) const;
  // A list of strings; a single value counts as a list of one.
  std::optional<std::vector<std::string>> string_list(const YAML::Node& node, const std::string& key) const;
  std::optional<std::vector<std::pair<std::string, std::string>>> string_map(const YAML::Node& node,
                                                                            const std::string& key) const;
  // `true` or `false`, nothing else (YAML 1.1's yes/no/on/off are too easy to write by accident).
  std::optional<bool> boolean(const YAML::Node& node, const std::string& key) const;
  std::optional<uint32_t> number(const YAML::Node& node, const std::string& key, int base, uint32_t max) const;
  // An absolute path in the image without "..".
  std::optional<std::string> image_path(const YAML::Node& node, const std::string& key) const;
  // Reports duplicate keys and unknown ones (with a suggestion); false when there was any.
  bool check_keys(const YAML::Node& map, const std::vector<std::string>& known, const std::string& what) const;
  // A path on the build host as written in this document: relative ones are resolved against the
  // document's directory. Absolute and normalized; existence is not checked.
  std::filesystem::path host_path(const std::string& written) const;

 private:
  std::filesystem::path file_;
  Diagnostics& diag_;
  const std::map<std::string, std::string>& vars_;
};

}  // namespace rp::recipe
