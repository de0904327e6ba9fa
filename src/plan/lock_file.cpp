#include "plan/lock_file.hpp"

#include <algorithm>
#include <filesystem>
#include <tuple>

#include <nlohmann/json.hpp>

#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace rp {

namespace {

using nlohmann::json;

// Lock files are small (a TheRock image locks ~100 files); anything far larger is not one.
constexpr size_t kMaxLockBytes = 64u << 20;

bool component_less(const ResolvedComponent& a, const ResolvedComponent& b) {
  return std::tie(a.kind, a.name, a.version, a.url, a.filename) < std::tie(b.kind, b.name, b.version, b.url, b.filename);
}

json component_json(const ResolvedComponent& c) {
  json out = {{"kind", std::string(component_kind_name(c.kind))},
              {"name", c.name},
              {"version", c.version},
              {"filename", c.filename},
              {"url", c.url},
              {"sha256", c.sha256},
              {"size", c.size},
              {"origin", c.origin},
              {"layer", c.layer},
              {"requested", c.requested}};
  // Only when set, so locks of indexes with hashes keep their shape.
  if (!c.verification.empty()) out["verification"] = c.verification;
  return out;
}

// ---- reading: every field checked, every message names the field ----------------------------

class Reader {
 public:
  explicit Reader(std::string where) : where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw InputError(where_ + ": " + (field.empty() ? std::string() : field + ": ") + what,
                     "the lock file is damaged or was not written by `rockpack lock`; run `rockpack lock RECIPE` to "
                     "write it again");
  }

  const json& member(const json& object, const std::string& field, const std::string& key) const {
    auto it = object.find(key);
    if (it == object.end()) fail(field + key, "missing");
    return *it;
  }
  const json& object(const json& object_, const std::string& field, const std::string& key) const {
    const json& v = member(object_, field, key);
    if (!v.is_object()) fail(field + key, "expected an object");
    return v;
  }
  std::string string(const json& object, const std::string& field, const std::string& key) const {
    const json& v = member(object, field, key);
    if (!v.is_string()) fail(field + key, "expected a string");
    return v.get<std::string>();
  }
  std::map<std::string, std::string> string_map(const json& object_, const std::string& field,
                                                const std::string& key) const {
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : object(object_, field, key).items()) {
      if (!v.is_string()) fail(field + key + "." + k, "expected a string");
      out[k] = v.get<std::string>();
    }
    return out;
  }
  std::vector<std::string> strings(const json& value, const std::string& field) const {
    if (!value.is_array()) fail(field, "expected an array of strings");
    std::vector<std::string> out;
    for (const auto& v : value) {
      if (!v.is_string()) fail(field, "expected an array of strings");
      out.push_back(v.get<std::string>());
    }
    return out;
  }

  ResolvedComponent component(const json& c, const std::string& field) const {
    if (!c.is_object()) fail(field, "expected an object");
    ResolvedComponent out;
    const std::string kind = string(c, field, "kind");
    auto parsed = parse_package_kind(kind);
    if (!parsed) fail(field + "kind", "'" + kind.substr(0, 80) + "' is no component kind rockpack writes");
    out.kind = *parsed;
    out.name = string(c, field, "name");
    out.version = string(c, field, "version");
    out.filename = string(c, field, "filename");
    out.url = string(c, field, "url");
    out.sha256 = string(c, field, "sha256");
    out.origin = string(c, field, "origin");
    out.layer = string(c, field, "layer");
    const json& size = member(c, field, "size");
    if (!size.is_number_unsigned()) fail(field + "size", "expected a byte count");
    out.size = size.get<uint64_t>();
    const json& requested = member(c, field, "requested");
    if (!requested.is_boolean()) fail(field + "requested", "expected true or false");
    out.requested = requested.get<bool>();
    if (auto v = c.find("verification"); v != c.end()) {
      if (!v->is_string() || *v != "tls-only") fail(field + "verification", "expected \"tls-only\"");
      out.verification = v->get<std::string>();
    }
    if (out.name.empty()) fail(field, "a component needs a kind and a name");
    // Every one of these reaches the SBOM, the report and the terminal: a control character
    // (an escape sequence in a name) is no part of any real name, version, file name or URL.
    for (const auto& [key, value] : {std::pair<const char*, const std::string*>{"name", &out.name},
                                     {"version", &out.version}, {"filename", &out.filename}, {"url", &out.url},
                                     {"origin", &out.origin}, {"layer", &out.layer}})
      if (std::any_of(value->begin(), value->end(), [](char ch) { return static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f; }))
        fail(field + key, "holds a control character: '" + printable(*value, 80) + "'");
    bool hex = out.sha256.size() == 64 &&
               std::all_of(out.sha256.begin(), out.sha256.end(), [](char ch) { return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'); });
    if (!hex) fail(field + "sha256", "expected 64 lowercase hex digits, got '" + out.sha256.substr(0, 80) + "'");
    if (out.url.empty()) fail(field + "url", "empty");
    return out;
  }

  StepLock step(const json& s, const std::string& field) const {
    if (!s.is_object()) fail(field, "expected an object");
    StepLock out;
    for (const auto& [category, values] : object(s, field, "inputs").items())
      out.inputs[category] = strings(values, field + "inputs." + category);
    out.pins = string_map(s, field, "pins");
    const json& components = member(s, field, "components");
    if (!components.is_array()) fail(field + "components", "expected an array");
    for (size_t i = 0; i < components.size(); ++i)
      out.components.push_back(component(components[i], field + "components[" + std::to_string(i) + "]."));
    return out;
  }

 private:
  std::string where_;
};

}  // namespace

const StepLock* LockUse::step(const std::string& name) const {
  if (!lock) return nullptr;
  auto it = lock->steps.find(name);
  return it == lock->steps.end() ? nullptr : &it->second;
}

std::string lock_file_text(const LockFile& lock) {
  json steps = json::object();
  for (const auto& [name, s] : lock.steps) {
    std::vector<ResolvedComponent> components = s.components;
    std::sort(components.begin(), components.end(), component_less);
    json list = json::array();
    for (const auto& c : components) list.push_back(component_json(c));
    json inputs = json::object();
    for (const auto& [category, values] : s.inputs) inputs[category] = values;
    steps[name] = {{"inputs", inputs}, {"pins", s.pins}, {"components", list}};
  }
  json out = {{"rockpack_lock", lock.version},
              {"recipe", {{"name", lock.name}, {"platform", lock.platform}, {"base", lock.base}, {"args", lock.args}}},
              {"base", lock.base_name.empty() && lock.base_digest.empty()
                           ? json(nullptr)
                           : json{{"name", lock.base_name}, {"digest", lock.base_digest}}},
              {"steps", steps}};
  // nlohmann::json keeps object keys sorted: the same lock is always the same bytes.
  return out.dump(2) + "\n";
}

LockFile parse_lock_file(std::string_view text, const std::string& where) {
  Reader r(where);
  if (text.size() > kMaxLockBytes) r.fail("", "larger than " + std::to_string(kMaxLockBytes >> 20) + " MiB: not a lock file");
  json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) r.fail("", "not valid JSON");
  if (!doc.is_object()) r.fail("", "expected a JSON object");
  const json& version = r.member(doc, "", "rockpack_lock");
  if (!version.is_number_integer()) r.fail("rockpack_lock", "expected the format version (an integer)");
  LockFile out;
  const int64_t format = version.get<int64_t>();
  if (format != kLockFormatVersion)
    throw InputError(where + ": lock format " + std::to_string(format) + " is not one this rockpack reads (" +
                         std::to_string(kLockFormatVersion) + ")",
                     "write the lock again with this rockpack: rockpack lock RECIPE");
  const json& recipe = r.object(doc, "", "recipe");
  out.name = r.string(recipe, "recipe.", "name");
  out.platform = r.string(recipe, "recipe.", "platform");
  out.base = r.string(recipe, "recipe.", "base");
  out.args = r.string_map(recipe, "recipe.", "args");
  const json& base = r.member(doc, "", "base");
  if (!base.is_null()) {
    if (!base.is_object()) r.fail("base", "expected an object or null");
    out.base_name = r.string(base, "base.", "name");
    out.base_digest = r.string(base, "base.", "digest");
    if (!out.base_digest.empty() && (out.base_digest.rfind("sha256:", 0) != 0 || out.base_digest.size() != 71))
      r.fail("base.digest", "expected sha256:<64 hex digits>");
  }
  for (const auto& [name, s] : r.object(doc, "", "steps").items()) out.steps[name] = r.step(s, "steps." + name + ".");
  return out;
}

LockFile read_lock_file(const std::string& path) {
  if (!std::filesystem::exists(path))
    throw InputError("no lock file " + path, "write one with: rockpack lock RECIPE (or name another with --lock FILE)");
  if (std::filesystem::file_size(path) > kMaxLockBytes)
    throw InputError(path + ": larger than " + std::to_string(kMaxLockBytes >> 20) + " MiB: not a lock file",
                     "run `rockpack lock RECIPE` to write it again");
  return parse_lock_file(read_file(path), path);
}

void write_lock_file(const std::string& path, const LockFile& lock) { write_file_atomic(path, lock_file_text(lock)); }

}  // namespace rp
