#include "recipe/yaml_bounds.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

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

// Counts nodes as the parser meets them and stops the parse at the bound.
struct TooMany {
  size_t line;
};
class NodeCounter : public YAML::EventHandler {
 public:
  explicit NodeCounter(size_t max) : max_(max) {}
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { count(m); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { count(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string&) override { count(m); }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    count(m);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    count(m);
  }
  void OnMapEnd() override {}

 private:
  void count(const YAML::Mark& m) {
    if (++nodes_ > max_) throw TooMany{static_cast<size_t>(m.line) + 1};
  }
  size_t max_;
  size_t nodes_ = 0;
};

}  // namespace

std::optional<std::string> yaml_written_problem(std::istream& in, const YamlBounds& bounds) {
  NodeCounter counter(bounds.max_written_nodes);
  try {
    YAML::Parser parser(in);
    parser.HandleNextDocument(counter);
  } catch (const TooMany& t) {
    return "the YAML has more than " + std::to_string(bounds.max_written_nodes) + " values (line " +
           std::to_string(t.line) + ")";
  } catch (const YAML::DeepRecursion&) {
    throw;
  } catch (const YAML::Exception&) {
    // A syntax error: the loader's own parse reports it with its place.
  }
  return std::nullopt;
}

std::optional<std::string> yaml_bounds_problem(const YAML::Node& root, const YamlBounds& bounds) {
  Walk walk{bounds, 0, 0, std::nullopt};
  walk.visit(root, 0);
  return walk.problem;
}

}  // namespace rp::recipe
