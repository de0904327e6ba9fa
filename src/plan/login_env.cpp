#include "plan/login_env.hpp"

#include <set>
#include <sstream>

#include "plan/plan.hpp"

namespace rp {

namespace {

// What /etc/profile sets PATH to on Debian and Ubuntu (root's list; other users get a subset).
const std::set<std::string> kLoginPath = {"/usr/local/sbin", "/usr/local/bin", "/usr/sbin",
                                          "/usr/bin",        "/sbin",           "/bin"};

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  std::stringstream ss(path);
  for (std::string part; std::getline(ss, part, ':');)
    if (!part.empty()) out.push_back(part);
  return out;
}

// POSIX sh single quoting: 'it'\''s'.
std::string sh_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool valid_name(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

}  // namespace

std::optional<std::string> login_env_script(const nlohmann::json& env) {
  if (!env.is_array()) return std::nullopt;
  std::vector<std::string> path;
  std::vector<std::pair<std::string, std::string>> others;
  for (const auto& e : env) {
    if (!e.is_string()) continue;
    std::string s = e.get<std::string>();
    auto eq = s.find('=');
    if (eq == std::string::npos) continue;
    std::string name = s.substr(0, eq), value = s.substr(eq + 1);
    if (name == "PATH")
      path = split_path(value);
    else if (valid_name(name) && name != "HOME" && name != "HOSTNAME" && name != "TERM")
      others.emplace_back(name, value);
  }
  bool loses_something = false;
  for (const auto& p : path) loses_something = loses_something || !kLoginPath.count(p);
  if (!loses_something) return std::nullopt;

  std::string script =
      "# Written by rockpack from the image's Env: /etc/profile resets PATH for login shells\n"
      "# (bash -l, su -, ssh); this puts the image's PATH back in front, in the image's order.\n"
      "_rockpack_path=";
  std::string joined;
  for (const auto& p : path) joined += (joined.empty() ? "" : ":") + p;
  script += sh_quote(joined) + "\n";
  script +=
      "_rockpack_rest=\n"
      "_rockpack_ifs=$IFS; IFS=:\n"
      "for _rockpack_dir in $PATH; do\n"
      "  case \":$_rockpack_path:\" in *\":$_rockpack_dir:\"*) ;; *) _rockpack_rest=\"$_rockpack_rest:$_rockpack_dir\" ;; esac\n"
      "done\n"
      "IFS=$_rockpack_ifs\n"
      "PATH=\"$_rockpack_path$_rockpack_rest\"\n"
      "export PATH\n"
      "unset _rockpack_path _rockpack_rest _rockpack_dir _rockpack_ifs\n";
  if (!others.empty()) script += "# The rest of the image's Env, where the login shell does not have it.\n";
  for (const auto& [name, value] : others)
    script += "[ -n \"${" + name + "+set}\" ] || export " + name + "=" + sh_quote(value) + "\n";
  return script;
}

StepOutput LoginEnvStep::plan(const StepContext& context) const {
  StepOutput out;
  // `validate` reports what it checked; the script is derived, there is nothing to check in it.
  if (context.mode == StepMode::kOffline) return out;
  const BuildPlan& plan = context.plan;
  if (!plan.config.contains("config") || !plan.config["config"].is_object()) return out;
  auto script = login_env_script(plan.config["config"].value("Env", nlohmann::json::array()));
  if (!script) return out;
  Entry e;
  e.path = kLoginEnvPath;
  e.type = EntryType::kFile;
  e.mode = 0644;
  e.content = std::make_shared<InlineContent>(*script);
  e.origin = "the image Env (login shells)";
  // A layer of its own: a change of Env rebuilds a few hundred bytes, not a package layer.
  LayerPlan layer{kLoginEnvLayer, std::string("rockpack: /") + kLoginEnvPath + " (from the image Env)", {std::move(e)}, {}};
  finalize_entries(layer.entries);
  out.layers.push_back(std::move(layer));
  return out;
}

}  // namespace rp
