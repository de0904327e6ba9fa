#include "entries/file_tree.hpp"

#include <algorithm>

namespace rp {

std::vector<std::string> FileTree::find(const std::function<bool(std::string_view path)>& match) const {
  std::vector<std::string> out;
  std::vector<std::string> todo = {""};
  while (!todo.empty()) {
    std::string dir = std::move(todo.back());
    todo.pop_back();
    for (const auto& name : list("/" + dir)) {
      std::string path = dir.empty() ? name : dir + "/" + name;
      auto node = lstat("/" + path);
      if (!node) continue;
      if (match(path)) out.push_back(path);
      if (node->type == EntryType::kDirectory) todo.push_back(path);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace rp
