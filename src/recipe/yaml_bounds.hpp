#pragma once
// Bounds on a recipe's YAML before anything reads it: YAML aliases let a 1 MB file name a 1 MiB
// string thousands of times (each use becomes a copy once converted), and deep nesting makes every
// recursive reader pay. A recipe beyond these bounds is refused with a message that says which.
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <istream>
#include <optional>
#include <string>

namespace rp::recipe {

struct YamlBounds {
  size_t max_depth = 64;                  // nested mappings/lists
  size_t max_expanded_bytes = 64u << 20;  // scalar bytes once every alias is expanded
  size_t max_nodes = 1u << 20;            // nodes once every alias is expanded
  // Nodes as written, checked by yaml_written_problem before the document is loaded: yaml-cpp
  // spends about 500 bytes a node, so a 4 MB list of 2 Mi one-letter items took 1 GB to load.
  size_t max_written_nodes = 1u << 18;
};

// nullopt when `root` is within `bounds`; otherwise what is exceeded, for an error message. The
// walk stops as soon as a bound is passed, so a "billion laughs" document costs little to refuse.
std::optional<std::string> yaml_bounds_problem(const YAML::Node& root, const YamlBounds& bounds = {});

// Before loading: the first document of `in` read as parser events (nothing kept), counting its
// nodes as written; nullopt when within `bounds.max_written_nodes`, else what is exceeded. Parse
// errors are left to the loader (it reports them with their line); YAML::DeepRecursion is thrown
// from here as from YAML::Load.
std::optional<std::string> yaml_written_problem(std::istream& in, const YamlBounds& bounds = {});

}  // namespace rp::recipe
