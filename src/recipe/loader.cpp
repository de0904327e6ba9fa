// Recipe loading: YAML documents (the recipe and the fragments it includes) are read, their args
// collected and overridden by --set, then each document is converted onto one Recipe in merge
// order (fragments first, the recipe last). Conversion checks every key and type and substitutes
// ${VAR} as it goes, recording errors with their YAML location instead of stopping at the first.
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <ctime>
#include <fstream>
#include <sstream>
#include <regex>
#include <set>

#include "recipe/document_reader.hpp"
#include "recipe/model.hpp"
#include "recipe/accounts_section.hpp"
#include "recipe/apt_section.hpp"
#include "recipe/matrix_section.hpp"
#include "recipe/run_section.hpp"
#include "recipe/python_section.hpp"
#include "recipe/rocm_section.hpp"
#include "recipe/substitute.hpp"
#include "recipe/yaml_bounds.hpp"
#include "reference/reference.hpp"
#include "util/strings.hpp"

namespace rp::recipe {

namespace {

const std::vector<std::string> kRecipeKeys = {"name",   "args",       "platform", "base",   "include",
                                              "files",  "symlinks",   "env",      "user",   "workdir",
                                              "entrypoint", "cmd",    "labels",   "annotations", "tags",
                                              "python",     "rocm",       "compression", "apt", "accounts", "run", "checks",
                                              "matrix", "max_layer_size"};
const std::vector<std::string> kFileKeys = {"content", "src", "dest", "mode", "uid", "gid", "layer"};
const std::vector<std::string> kSymlinkKeys = {"path", "target", "uid", "gid", "layer"};
const std::set<std::string> kBuiltins = {"DATE", "SOURCE_DATE_EPOCH"};

// A local base split into transport, path and the rest: "oci:", "../img", ":v1". The path ends at
// the last ':' that starts a tag (oci:, oci-archive:) or at the first ':' (docker-archive:FILE:NAME:TAG).
struct LocalBase {
  std::string transport, path, rest;
};
std::optional<LocalBase> local_base(const std::string& base) {
  static const std::regex kTag("[A-Za-z0-9_][A-Za-z0-9._-]{0,127}");
  for (const char* transport : {"oci:", "oci-archive:"}) {
    if (base.rfind(transport, 0) != 0) continue;
    std::string rest = base.substr(std::string(transport).size());
    auto colon = rest.rfind(':');
    if (colon != std::string::npos && std::regex_match(rest.substr(colon + 1), kTag))
      return LocalBase{transport, rest.substr(0, colon), rest.substr(colon)};
    return LocalBase{transport, rest, ""};
  }
  if (base.rfind("docker-archive:", 0) == 0) {
    std::string rest = base.substr(15);
    auto colon = rest.find(':');
    return LocalBase{"docker-archive:", rest.substr(0, colon), colon == std::string::npos ? "" : rest.substr(colon)};
  }
  return std::nullopt;
}

struct Document {
  fs::path file;
  YAML::Node root;
  bool fragment = false;
};

class Loader {
 public:
  Loader(const LoadOptions& options, Diagnostics& diag) : options_(options), diag_(diag) {}

  Recipe run(const fs::path& file);
  std::vector<Variant> variants_of(const fs::path& file);

 private:
  void load_document(const fs::path& file, bool fragment, const SourceLocation& from);
  std::optional<fs::path> resolve_include(const std::string& name, const fs::path& including_file) const;
  void collect_args(const Document& doc);
  void apply_set_args();
  // The recipe's `matrix:` expanded (empty without one), and the one LoadOptions::variant names.
  std::vector<Variant> read_variants();
  const Variant* choose_variant(const std::vector<Variant>& variants);
  void apply_variant(const Variant& variant, Recipe& r);
  void convert(const Document& doc, Recipe& r);

  // The uid, gid and layer keys that files and symlinks items share.
  void owner_and_layer(const DocumentReader& in, const YAML::Node& item, uint32_t& uid, uint32_t& gid,
                       std::string& layer);
  void convert_file(const DocumentReader& in, const YAML::Node& item, Recipe& r);
  // `files: src` reads the declaring document's directory, or one of --allow-path's.
  bool src_allowed(const fs::path& src, const fs::path& document_dir) const;
  // "${VAR}" with VAR given by --set: the user named that host file on the command line.
  bool set_on_command_line(const std::string& written) const;
  void convert_symlink(const DocumentReader& in, const YAML::Node& item, Recipe& r);
  std::optional<std::vector<std::string>> command(const DocumentReader& in, const YAML::Node& node, const std::string& key);

  const LoadOptions& options_;
  Diagnostics& diag_;
  std::vector<Document> docs_;  // merge order
  std::set<fs::path> loading_;
  std::set<fs::path> loaded_;
  std::map<std::string, std::string> args_;
  std::map<std::string, SourceLocation> arg_where_;
  std::set<std::string> required_args_;
  std::map<std::string, std::string> vars_;
  std::optional<MatrixSection> matrix_;
};

Recipe Loader::run(const fs::path& file) {
  fs::path top = options_.recipe_text ? fs::current_path() / kStdinRecipeName : fs::absolute(file).lexically_normal();
  load_document(top, false, {"command line"});
  diag_.throw_if_any();
  for (const auto& doc : docs_) collect_args(doc);
  const std::vector<Variant> variants = read_variants();
  const Variant* variant = choose_variant(variants);
  if (variant) {
    for (const auto& [k, v] : variant->args) {
      args_[k] = v;
      required_args_.erase(k);
    }
  }
  apply_set_args();
  diag_.throw_if_any();

  vars_ = builtin_variables(options_);
  for (const auto& [k, v] : args_) vars_[k] = v;

  Recipe r;
  r.file = docs_.back().file;
  r.args = args_;
  for (const auto& doc : docs_) {
    if (doc.fragment) r.included.push_back(doc.file);
    convert(doc, r);
  }
  r.variant_count = variants.size();
  if (variant) apply_variant(*variant, r);
  if (r.name.empty() && diag_.empty())
    diag_.error({r.file.string()}, "the recipe has no 'name'", "add e.g. 'name: my-image' at the top level");
  if (r.python && diag_.empty()) check_python_section(*r.python, diag_, r.rocm.has_value());
  if (r.rocm && diag_.empty()) check_rocm_section(r, diag_);
  diag_.throw_if_any();
  return r;
}

void Loader::load_document(const fs::path& file, bool fragment, const SourceLocation& from) {
  if (loaded_.count(file)) return;  // a fragment included twice is merged once, at its first place
  if (loading_.count(file)) {
    diag_.error(from, "include cycle: " + file.string() + " includes itself");
    return;
  }
  // `build -`: the recipe's text came on stdin; its relative paths are relative to the working directory.
  bool from_text = !fragment && options_.recipe_text.has_value();
  std::error_code ec;
  if (!from_text && !fs::is_regular_file(file, ec)) {
    diag_.error(from, (fragment ? "included fragment " : "recipe ") + file.string() + " does not exist");
    return;
  }
  Document doc{file, {}, fragment};
  DocumentReader in(file, diag_, vars_);
  try {
    // Counted as events first, so a small file of many tiny values is refused before it is loaded.
    std::optional<std::string> written;
    if (from_text) {
      std::istringstream text(*options_.recipe_text);
      written = yaml_written_problem(text);
    } else {
      std::ifstream stream(file, std::ios::binary);
      written = yaml_written_problem(stream);
    }
    if (written) {
      diag_.error({file.string()}, "invalid recipe: " + *written,
                  "a recipe is small: check the file is the recipe you meant");
      return;
    }
    doc.root = from_text ? YAML::Load(*options_.recipe_text) : YAML::LoadFile(file.string());
  } catch (const YAML::DeepRecursion& e) {
    diag_.error({file.string(), e.mark.line + 1, e.mark.column + 1},
                "invalid YAML: nested " + std::to_string(e.depth()) + " levels deep, more than a recipe may",
                "a recipe nests a few levels; check the file is the recipe you meant");
    return;
  } catch (const YAML::ParserException& e) {
    diag_.error({file.string(), e.mark.line + 1, e.mark.column + 1}, "invalid YAML: " + e.msg);
    return;
  } catch (const YAML::Exception& e) {
    diag_.error({file.string()}, std::string("cannot read: ") + e.what());
    return;
  }
  if (auto problem = yaml_bounds_problem(doc.root)) {
    diag_.error({file.string()}, "invalid recipe: " + *problem,
                "a recipe is small: check the file is the recipe you meant, and that anchors (&name) are not reused to inflate it");
    return;
  }
  if (doc.root.IsNull()) doc.root = YAML::Node(YAML::NodeType::Map);
  if (!doc.root.IsMap()) {
    diag_.error(in.at(doc.root), "a recipe must be a YAML mapping of keys (name:, files:, ...)");
    return;
  }
  loading_.insert(file);
  const YAML::Node& root = doc.root;  // const: operator[] must not insert keys
  if (auto inc = root["include"]; inc) {
    auto names = in.string_list(inc, "include");
    if (names) {
      for (const auto& name : *names) {
        auto path = resolve_include(name, file);
        if (!path) {
          diag_.error(in.at(inc), "include '" + shorten(name) + "' not found",
                      "a bare name is looked up as layers/" + shorten(name) +
                          ".yaml next to the recipe or in a parent directory; a path is relative to " +
                          file.parent_path().string());
          continue;
        }
        load_document(*path, true, in.at(inc));
      }
    }
  }
  loading_.erase(file);
  loaded_.insert(file);
  docs_.push_back(std::move(doc));
}

std::optional<fs::path> Loader::resolve_include(const std::string& name, const fs::path& including_file) const {
  std::error_code ec;
  fs::path dir = including_file.parent_path();
  bool is_path = name.find('/') != std::string::npos || name.ends_with(".yaml") || name.ends_with(".yml");
  if (is_path) {
    fs::path p = (fs::path(name).is_absolute() ? fs::path(name) : dir / name).lexically_normal();
    if (fs::is_regular_file(p, ec)) return p;
    return std::nullopt;
  }
  for (fs::path d = dir;; d = d.parent_path()) {
    for (const char* ext : {".yaml", ".yml"}) {
      fs::path p = d / "layers" / (name + ext);
      if (fs::is_regular_file(p, ec)) return p.lexically_normal();
    }
    if (d == d.parent_path() || d.empty()) break;
  }
  return std::nullopt;
}

void Loader::collect_args(const Document& doc) {
  DocumentReader in(doc.file, diag_, vars_);
  YAML::Node args = doc.root["args"];
  if (!args) return;
  if (!args.IsMap()) {
    diag_.error(in.at(args), "'args' must be a mapping of NAME: default");
    return;
  }
  static const std::regex kArgName("[A-Za-z_][A-Za-z0-9_]*");
  auto builtins = builtin_variables(options_);
  for (auto it = args.begin(); it != args.end(); ++it) {
    std::string name = it->first.Scalar();
    SourceLocation where = in.at(it->first);
    if (!std::regex_match(name, kArgName)) {
      diag_.error(where, "arg name '" + shorten(name) + "' is not valid", "use letters, digits and _, e.g. UBUNTU_VERSION");
      continue;
    }
    if (kBuiltins.count(name)) {
      diag_.error(where, "arg '" + name + "' is a built-in variable and cannot be declared");
      continue;
    }
    arg_where_[name] = where;
    if (it->second.IsNull()) {
      required_args_.insert(name);
      args_[name] = "";
      continue;
    }
    if (!it->second.IsScalar()) {
      diag_.error(in.at(it->second), "the default of arg '" + name + "' must be a plain value");
      continue;
    }
    required_args_.erase(name);
    SubstitutionError err;
    auto value = substitute(it->second.Scalar(), builtins, err);
    if (!value) {
      diag_.error(in.at(it->second), err.message + " in the default of arg '" + name + "'",
                  "arg defaults may use the built-ins DATE and SOURCE_DATE_EPOCH only");
      continue;
    }
    args_[name] = *value;
  }
}

void Loader::apply_set_args() {
  std::vector<std::string> declared;
  for (const auto& [k, v] : args_) declared.push_back(k);
  for (const auto& [k, v] : options_.set_args) {
    if (!args_.count(k)) {
      std::string hint = did_you_mean(k, declared);
      if (hint.empty())
        hint = declared.empty() ? "the recipe declares no args" : "declared args: " + [&] {
          std::string s;
          for (const auto& d : declared) s += (s.empty() ? "" : ", ") + d;
          return s;
        }();
      diag_.error({"--set " + k + "=..."}, "unknown build arg '" + shorten(k) + "'", hint);
      continue;
    }
    args_[k] = v;
    required_args_.erase(k);
  }
  for (const auto& name : required_args_)
    diag_.error(arg_where_[name], "arg '" + name + "' has no default and was not set",
                "pass --set " + name + "=VALUE");
}

std::vector<Variant> Loader::read_variants() {
  if (docs_.empty()) return {};
  const Document& top = docs_.back();  // the recipe itself; a fragment's matrix: is refused in convert()
  const YAML::Node& node = top.root["matrix"];
  if (!node) return {};
  DocumentReader in(top.file, diag_, vars_);
  matrix_ = read_matrix_section(in, node, args_);
  if (!matrix_) return {};
  return expand_matrix(*matrix_, diag_);
}

const Variant* Loader::choose_variant(const std::vector<Variant>& variants) {
  if (options_.variant.empty() || !diag_.empty()) return nullptr;
  std::vector<std::string> names;
  for (const auto& v : variants) names.push_back(v.name);
  auto it = std::find_if(variants.begin(), variants.end(), [&](const Variant& v) { return v.name == options_.variant; });
  if (it == variants.end()) {
    std::string hint = variants.empty() ? "the recipe has no matrix:, so no variants" : did_you_mean(options_.variant, names);
    if (hint.empty()) hint = "variants: " + [&] {
      std::string s;
      for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
      return s;
    }();
    diag_.error({"--variant " + shorten(options_.variant)}, "the recipe has no variant '" + shorten(options_.variant) + "'", hint);
    return nullptr;
  }
  for (const auto& [k, v] : it->args)
    if (options_.set_args.count(k))
      diag_.error({"--set " + k + "=..."}, "arg '" + k + "' is set by the matrix for variant '" + it->name + "'",
                  "a variant's matrix args cannot be overridden; drop --set " + k + " or choose another variant");
  return &*it;
}

void Loader::apply_variant(const Variant& variant, Recipe& r) {
  // Tags: the matrix's templates (else the recipe's own tags) plus what include items add, all
  // evaluated with this variant's final args.
  std::vector<std::string> tags;
  if (matrix_->tags) tags = variant_tags(*matrix_->tags, vars_, matrix_->where, diag_);
  else tags = r.tags;
  for (const auto& t : variant_tags(variant.extra_tags, vars_, matrix_->where, diag_))
    if (std::find(tags.begin(), tags.end(), t) == tags.end()) tags.push_back(t);
  r.tags = std::move(tags);
  std::vector<std::string> floating_templates = matrix_->floating;
  floating_templates.insert(floating_templates.end(), variant.extra_floating.begin(), variant.extra_floating.end());
  r.variant = RecipeVariant{variant.name, variant.args, variant_tags(floating_templates, vars_, matrix_->where, diag_)};
  for (const auto& f : r.variant->floating)
    if (std::find(r.tags.begin(), r.tags.end(), f) != r.tags.end())
      diag_.error(matrix_->where, "variant '" + variant.name + "': tag '" + f + "' is both a tag and a floating tag",
                  "a floating tag moves only when the whole family is pushed (rockpack publish); list it once");
}

std::vector<Variant> Loader::variants_of(const fs::path& file) {
  fs::path top = options_.recipe_text ? fs::current_path() / kStdinRecipeName : fs::absolute(file).lexically_normal();
  load_document(top, false, {"command line"});
  diag_.throw_if_any();
  for (const auto& doc : docs_) collect_args(doc);
  std::vector<Variant> variants = read_variants();
  diag_.throw_if_any();
  return variants;
}

std::optional<std::vector<std::string>> Loader::command(const DocumentReader& in, const YAML::Node& node,
                                                        const std::string& key) {
  // A plain string is docker's shell form; a list is the exec form.
  if (node.IsScalar()) {
    auto t = in.text(node, key);
    if (!t) return std::nullopt;
    return std::vector<std::string>{"/bin/sh", "-c", *t};
  }
  if (node.IsNull()) return std::vector<std::string>{};
  return in.string_list(node, key);
}

void Loader::owner_and_layer(const DocumentReader& in, const YAML::Node& item, uint32_t& uid, uint32_t& gid,
                             std::string& layer) {
  if (auto n = item["uid"]) uid = in.number(n, "uid", 10, 0x7fffffff).value_or(0);
  if (auto n = item["gid"]) gid = in.number(n, "gid", 10, 0x7fffffff).value_or(0);
  if (auto n = item["layer"]) layer = in.text(n, "layer").value_or(kDefaultLayer);
}

namespace {
// Whether `path` (lexically normal, absolute) lies within `dir`, symlinks of its directories
// resolved: "sub/x" where sub links to /etc is outside. `path` itself may be a symlink (it is
// copied as one, never followed).
bool path_within(const fs::path& path, const fs::path& dir) {
  std::error_code ec;
  fs::path real_dir = fs::weakly_canonical(dir, ec);
  if (ec) return false;
  fs::path real = fs::weakly_canonical(path.parent_path(), ec) / path.filename();
  if (ec) return false;
  auto rel = real.lexically_relative(real_dir);
  return !rel.empty() && *rel.begin() != "..";
}
}  // namespace

bool Loader::set_on_command_line(const std::string& written) const {
  if (written.size() < 4 || !written.starts_with("${") || written.back() != '}') return false;
  std::string name = written.substr(2, written.size() - 3);
  return name.find_first_of("${}") == std::string::npos && options_.set_args.count(name) > 0;
}

bool Loader::src_allowed(const fs::path& src, const fs::path& document_dir) const {
  if (path_within(src, fs::absolute(document_dir))) return true;
  for (const auto& dir : options_.allow_paths)
    if (path_within(src, dir)) return true;
  return false;
}

void Loader::convert_file(const DocumentReader& in, const YAML::Node& item, Recipe& r) {
  if (!item.IsMap()) {
    diag_.error(in.at(item), "each 'files' item must be a mapping with dest and content or src");
    return;
  }
  if (!in.check_keys(item, kFileKeys, "files item")) return;
  FileStep f;
  f.where = in.at(item);
  if (auto n = item["content"]) f.content = in.text(n, "content");
  if (auto n = item["src"]) {
    if (auto s = in.text(n, "src")) {
      fs::path p = in.host_path(*s);
      std::error_code ec;
      if (!fs::exists(fs::symlink_status(p, ec)))
        diag_.error(in.at(n), "src '" + shorten(*s) + "' does not exist (looked for " + shorten(p.string()) + ")",
                    "src is relative to the file that declares it");
      else if (!set_on_command_line(n.Scalar()) && !src_allowed(p, in.file().parent_path()))
        diag_.error(in.at(n), "src '" + shorten(*s) + "' is outside the directory of " + in.file().filename().string() + " (" +
                                  fs::absolute(in.file().parent_path()).lexically_normal().string() + ")",
                    "a recipe reads only its own directory, like docker's build context; pass "
                    "`--allow-path DIR` to let it read DIR too");
      else
        f.src = p;
    }
  }
  if (item["content"] && item["src"])
    diag_.error(f.where, "a files item has both 'content' and 'src'", "keep one of them");
  else if (!item["content"] && !item["src"])
    diag_.error(f.where, "a files item needs 'content' or 'src'");
  if (auto n = item["dest"]) {
    if (auto d = in.image_path(n, "dest")) f.dest = *d;
  } else {
    diag_.error(f.where, "a files item needs 'dest'", "the absolute path in the image, e.g. dest: /usr/local/bin/tool");
  }
  if (auto n = item["mode"]) f.mode = in.number(n, "mode", 8, 07777);
  owner_and_layer(in, item, f.uid, f.gid, f.layer);
  r.files.push_back(std::move(f));
}

void Loader::convert_symlink(const DocumentReader& in, const YAML::Node& item, Recipe& r) {
  if (!item.IsMap()) {
    diag_.error(in.at(item), "each 'symlinks' item must be a mapping with path and target");
    return;
  }
  if (!in.check_keys(item, kSymlinkKeys, "symlinks item")) return;
  SymlinkStep s;
  s.where = in.at(item);
  if (auto n = item["path"]) {
    if (auto p = in.image_path(n, "path")) s.path = *p;
  } else {
    diag_.error(s.where, "a symlinks item needs 'path'");
  }
  if (auto n = item["target"]) {
    s.target = in.text(n, "target").value_or("");
    if (s.target.empty()) diag_.error(in.at(n), "'target' may not be empty");
  } else {
    diag_.error(s.where, "a symlinks item needs 'target'");
  }
  owner_and_layer(in, item, s.uid, s.gid, s.layer);
  r.symlinks.push_back(std::move(s));
}

void Loader::convert(const Document& doc, Recipe& r) {
  DocumentReader in(doc.file, diag_, vars_);
  const YAML::Node& root = doc.root;
  in.check_keys(root, kRecipeKeys, doc.fragment ? "fragment" : "recipe");
  if (auto n = root["matrix"]; n && doc.fragment)  // the recipe's own matrix: was read by read_variants()
    diag_.error(in.at(n), "'matrix' belongs in the recipe, not in an included fragment");

  if (auto n = root["name"]) {
    if (doc.fragment) {
      diag_.error(in.at(n), "'name' belongs in the recipe, not in an included fragment");
    } else if (auto v = in.text(n, "name")) {
      static const std::regex kName("[a-z0-9]+((\\.|_|__|-+)[a-z0-9]+)*(/[a-z0-9]+((\\.|_|__|-+)[a-z0-9]+)*)*");
      if (!std::regex_match(*v, kName))
        diag_.error(in.at(n), "name '" + shorten(*v) + "' is not a valid image name",
                    "use lowercase letters, digits and . _ - separators, e.g. pytorch-therock-rocm-ci");
      else
        r.name = *v;
    }
  }
  if (auto n = root["platform"]) {
    if (auto v = in.text(n, "platform")) {
      try {
        r.platform = Platform::parse(*v);
      } catch (const InputError& e) {
        diag_.error(in.at(n), e.what(), e.hint());
      }
    }
  }
  if (auto n = root["base"]) {
    if (auto v = in.text(n, "base")) {
      r.base = *v;
      r.base_where = in.at(n);
      // scratch, a local image (oci:DIR[:TAG], oci-archive:FILE[:TAG], docker-archive:FILE) or a
      // registry reference. A local image's path is relative to the file that declares it, like src:.
      if (auto local = local_base(*v)) {
        fs::path p = in.host_path(local->path);
        std::error_code ec;
        if (!fs::exists(p, ec))
          diag_.error(in.at(n), "base '" + shorten(*v) + "' does not exist (looked for " + shorten(p.string()) + ")",
                      "a local base's path is relative to the file that declares it");
        r.base = local->transport + p.string() + local->rest;
      } else if (r.base != "scratch") {
        try {
          (void)parse_reference(r.base);
        } catch (const InputError& e) {
          diag_.error(in.at(n), "base: " + std::string(e.what()), e.hint());
        }
      }
    }
  }
  if (auto n = root["files"]) {
    if (!n.IsSequence()) diag_.error(in.at(n), "'files' must be a list");
    else for (const auto& item : n) convert_file(in, item, r);
  }
  if (auto n = root["symlinks"]) {
    if (!n.IsSequence()) diag_.error(in.at(n), "'symlinks' must be a list");
    else for (const auto& item : n) convert_symlink(in, item, r);
  }
  if (auto n = root["env"]) {
    static const std::regex kEnvName("[A-Za-z_][A-Za-z0-9_]*");
    if (auto m = in.string_map(n, "env")) {
      for (auto& [k, v] : *m) {
        if (!std::regex_match(k, kEnvName)) {
          diag_.error(in.at(n), "env name '" + shorten(k) + "' is not valid", "use letters, digits and _");
          continue;
        }
        const std::string name = k;  // structured bindings cannot be captured before C++20's clang 16
        auto it = std::find_if(r.env.begin(), r.env.end(), [&](const auto& e) { return e.first == name; });
        if (it != r.env.end()) it->second = v;
        else r.env.emplace_back(k, v);
      }
    }
  }
  if (auto n = root["user"]) r.user = in.text(n, "user");
  if (auto n = root["workdir"]) r.workdir = in.image_path(n, "workdir");
  if (auto n = root["entrypoint"]) r.entrypoint = command(in, n, "entrypoint");
  if (auto n = root["cmd"]) r.cmd = command(in, n, "cmd");
  if (auto n = root["labels"])
    if (auto m = in.string_map(n, "labels"))
      for (auto& [k, v] : *m) r.labels[k] = v;
  if (auto n = root["annotations"])
    if (auto m = in.string_map(n, "annotations"))
      for (auto& [k, v] : *m) r.annotations[k] = v;
  if (auto n = root["tags"]) {
    static const std::regex kTag("[A-Za-z0-9_][A-Za-z0-9._-]{0,127}");
    if (auto tags = in.string_list(n, "tags")) {
      for (const auto& t : *tags) {
        if (!std::regex_match(t, kTag)) {
          diag_.error(in.at(n), "tag '" + shorten(t) + "' is not a valid tag",
                      "tags use letters, digits, '_', '.', '-', start with a letter, digit or '_', at most 128");
          continue;
        }
        if (std::find(r.tags.begin(), r.tags.end(), t) == r.tags.end()) r.tags.push_back(t);
      }
    }
  }
  if (auto n = root["compression"]) {
    // The same forms as --compression; the build parses it again.
    static const std::regex kCompression("gzip(:([1-9]|1[0-2]))?|zstd(:([1-9]|1[0-9]))?|none");
    if (auto t = in.text(n, "compression")) {
      if (std::regex_match(*t, kCompression)) r.compression = *t;
      else diag_.error(in.at(n), "unknown compression '" + shorten(*t) + "'",
                       "use gzip[:1-12], zstd[:1-19] or none; zstd pulls faster, gzip suits the oldest clients");
    }
  }
  if (auto n = root["max_layer_size"]) {
    // The form store/cache_admin's parse_size reads (the plan parses it); at least 1K.
    static const std::regex kSize("[0-9]+(\\.[0-9]+)?([KkMmGgTt][Ii]?)?[Bb]?");
    static const std::regex kTooSmall("[0-9]{1,3}[Bb]?");
    if (auto t = in.text(n, "max_layer_size")) {
      if (std::regex_match(*t, kSize) && !std::regex_match(*t, kTooSmall)) r.max_layer_size = *t;
      else diag_.error(in.at(n), "max_layer_size '" + shorten(*t) + "' is not a size of at least 1K",
                       "write e.g. 10G (the default: 10 GB), 500M or a number of bytes");
    }
  }
  if (auto n = root["apt"]) merge_apt_section(in, n, r.apt);
  if (auto n = root["accounts"]) merge_accounts_section(in, n, r.accounts);
  if (auto n = root["python"]) merge_python_section(in, n, r.python);
  if (auto n = root["rocm"]) merge_rocm_section(in, n, r.rocm);
  auto host_path_allowed = [&](const fs::path& p, const std::string& written) {
    return set_on_command_line(written) || src_allowed(p, in.file().parent_path());
  };
  if (auto n = root["run"]) read_run_section(in, n, r.run, "run", host_path_allowed);
  if (auto n = root["checks"]) read_run_section(in, n, r.checks, "checks", host_path_allowed);
}

}  // namespace

std::map<std::string, std::string> builtin_variables(const LoadOptions& options) {
  int64_t t = options.source_date_epoch.value_or(options.now);
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char date[16];
  std::strftime(date, sizeof date, "%Y%m%d", &tm);
  return {{"DATE", date}, {"SOURCE_DATE_EPOCH", std::to_string(options.source_date_epoch.value_or(0))}};
}

Recipe load_recipe(const fs::path& file, const LoadOptions& options) {
  Diagnostics diag;
  Loader loader(options, diag);
  return loader.run(file);
}

std::vector<VariantSummary> list_variants(const fs::path& file, const LoadOptions& options) {
  Diagnostics diag;
  Loader loader(options, diag);
  std::vector<VariantSummary> out;
  for (auto& v : loader.variants_of(file)) out.push_back({std::move(v.name), std::move(v.args)});
  return out;
}

}  // namespace rp::recipe
