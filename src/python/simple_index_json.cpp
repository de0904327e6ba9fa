// PEP 691 JSON simple-repository pages.
#include <nlohmann/json.hpp>

#include "python/simple_index.hpp"
#include "python/text.hpp"
#include "net/url.hpp"
#include "util/error.hpp"

namespace rp::python {

namespace {

using nlohmann::json;

class JsonPage {
 public:
  JsonPage(std::string_view text, std::string_view page_url) : url_(page_url) {
    doc_ = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (doc_.is_discarded()) fail("", "not valid JSON");
    if (!doc_.is_object()) fail("", "not a JSON object");
    if (auto meta = doc_.find("meta"); meta != doc_.end()) {
      if (!meta->is_object()) fail("meta", "not an object");
      if (auto v = meta->find("api-version"); v != meta->end()) {
        if (!v->is_string()) fail("meta.api-version", "not a string");
        check_repository_version(v->get<std::string>(), url_);
      }
    }
  }

  const json& doc() const { return doc_; }

  // A malformed answer is a failure of what was fetched (exit 1), like a download whose hash does
  // not match: the recipe is not wrong, the index is.
  [[noreturn]] void fail(const std::string& where, const std::string& why) const {
    throw Error("invalid simple-API JSON page " + printable(url_) + (where.empty() ? "" : " at " + where) +
                         ": " + why,
                     "the package index returned a malformed PEP 691 response");
  }

  // The array under `key` (absent: empty).
  const json& array(const json& obj, const char* key, const std::string& where) const {
    static const json kEmpty = json::array();
    auto it = obj.find(key);
    if (it == obj.end()) return kEmpty;
    if (!it->is_array()) fail(where, "not an array");
    return *it;
  }

  std::string string_field(const json& obj, const char* key, const std::string& where) const {
    auto it = obj.find(key);
    if (it == obj.end() || !it->is_string()) fail(where + "." + key, "missing or not a string");
    return it->get<std::string>();
  }

  DistFile file(const json& f, const std::string& where) const {
    if (!f.is_object()) fail(where, "not an object");
    DistFile d;
    d.filename = string_field(f, "filename", where);
    std::string resolved = net::resolve_url(url_, trim(string_field(f, "url", where)));
    d.url = std::string(net::strip_fragment(resolved));
    if (auto h = f.find("hashes"); h != f.end()) {
      if (!h->is_object()) fail(where + ".hashes", "not an object");
      if (auto s = h->find("sha256"); s != h->end() && s->is_string()) d.sha256 = normalize_sha256_hex(s->get<std::string>());
    }
    if (auto rp = f.find("requires-python"); rp != f.end() && !rp->is_null()) {
      if (!rp->is_string()) fail(where + ".requires-python", "not a string");
      if (!trim(rp->get<std::string>()).empty()) d.requires_python = std::string(trim(rp->get<std::string>()));
    }
    if (auto y = f.find("yanked"); y != f.end()) {
      if (y->is_string()) {
        d.yanked = y->get<std::string>();
      } else if (y->is_boolean()) {
        if (y->get<bool>()) d.yanked = "";
      } else {
        fail(where + ".yanked", "not a boolean or string");
      }
    }
    // PEP 714: "core-metadata" replaces "dist-info-metadata"; either a boolean or a hash object.
    auto meta = f.find("core-metadata");
    if (meta == f.end()) meta = f.find("dist-info-metadata");
    if (meta != f.end()) {
      if (meta->is_boolean()) {
        d.has_metadata = meta->get<bool>();
      } else if (meta->is_object()) {
        d.has_metadata = true;
        if (auto s = meta->find("sha256"); s != meta->end() && s->is_string()) {
          d.metadata_sha256 = normalize_sha256_hex(s->get<std::string>());
        }
      } else {
        fail(where + ".core-metadata", "not a boolean or object");
      }
    }
    if (auto sz = f.find("size"); sz != f.end()) {
      if (!sz->is_number_unsigned()) fail(where + ".size", "not a non-negative integer");
      d.size = sz->get<uint64_t>();
    }
    return d;
  }

 private:
  std::string url_;
  json doc_;
};

}  // namespace

ProjectPage parse_project_json(std::string_view text, std::string_view page_url) {
  JsonPage page(text, page_url);
  ProjectPage out;
  if (auto n = page.doc().find("name"); n != page.doc().end() && n->is_string()) out.name = n->get<std::string>();
  const json& files = page.array(page.doc(), "files", "files");
  for (size_t i = 0; i < files.size(); ++i) out.files.push_back(page.file(files[i], "files[" + std::to_string(i) + "]"));
  const json& versions = page.array(page.doc(), "versions", "versions");
  for (size_t i = 0; i < versions.size(); ++i) {
    if (!versions[i].is_string()) page.fail("versions[" + std::to_string(i) + "]", "not a string");
    out.versions.push_back(versions[i].get<std::string>());
  }
  return out;
}

std::vector<ProjectLink> parse_root_index_json(std::string_view text, std::string_view page_url) {
  JsonPage page(text, page_url);
  std::vector<ProjectLink> out;
  const json& projects = page.array(page.doc(), "projects", "projects");
  for (size_t i = 0; i < projects.size(); ++i) {
    std::string where = "projects[" + std::to_string(i) + "]";
    if (!projects[i].is_object()) page.fail(where, "not an object");
    std::string name = page.string_field(projects[i], "name", where);
    if (!is_valid_project_name(name)) continue;  // never build a URL from a name like "../x"
    // PEP 691 root pages carry names only; the project URL is <root>/<normalized>/.
    out.push_back({name, net::resolve_url(page_url, normalize_name(name) + "/")});
  }
  return out;
}

}  // namespace rp::python
