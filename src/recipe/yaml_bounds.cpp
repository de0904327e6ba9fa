#include "recipe/yaml_bounds.hpp"

namespace rp::recipe {

namespace {

struct Walk {
  const YamlBounds& bounds;
  size_t bytes = 0;
  size_t nodes = 0;
  std::optional<std::string> problem;

  void visit(const YAML::Node& node, size_t depth) {
    if (problem) return;
    if (depth > bounds.max_depth) {
      problem = "the YAML nests deeper than " + std::to_string(bounds.max_depth) + " levels (line " +
                std::to_string(node.Mark().line + 1) + ")";
      return;
    }
    if (++nodes > bounds.max_nodes) {
      problem = "the YAML has more than " + std::to_string(bounds.max_nodes) + " values once its aliases (*name) are expanded";
      return;
    }
    if (node.IsScalar()) {
      bytes += node.Scalar().size();
      if (bytes > bounds.max_expanded_bytes)
        problem = "the YAML is larger than " + std::to_string(bounds.max_expanded_bytes >> 20) +
                  " MiB once its aliases (*name) are expanded (line " + std::to_string(node.Mark().line + 1) + ")";
      return;
    }
    if (node.IsSequence()) {
      for (const auto& item : node) visit(item, depth + 1);
    } else if (node.IsMap()) {
      for (auto it = node.begin(); it != node.end(); ++it) {
        visit(it->first, depth + 1);
        visit(it->second, depth + 1);
      }
    }
  }
};

}  // namespace

std::optional<std::string> yaml_bounds_problem(const YAML::Node& root, const YamlBounds& bounds) {
  Walk walk{bounds};
  walk.visit(root, 0);
  return walk.problem;
}

}  // namespace rp::recipe
