#include "sbom/sbom.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "net/url.hpp"

namespace rp::sbom {

namespace {

using nlohmann::json;

// Percent-encodes what a purl component may not hold as is ('+' may stay, as in "2.1.0+rocm6.4").
std::string encode(const std::string& s) { return net::url_encode(s, "+"); }

// PEP 503 normalization, as the pypi purl type asks.
std::string pypi_name(const std::string& name) {
  std::string out;
  for (char c : name) {
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (l == '_' || l == '.' || l == '-') {
      if (out.empty() || out.back() != '-') out += '-';
    } else {
      out += l;
    }
  }
  return out;
}

// SPDX identifiers allow letters, digits, '.' and '-'.
std::string spdx_id(const Component& c, size_t index) {
  std::string id = "SPDXRef-Package-" + c.kind + "-" + c.name + "-" + std::to_string(index);
  for (char& ch : id)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '-') ch = '-';
  return id;
}

std::vector<Component> sorted(std::vector<Component> v) {
  std::sort(v.begin(), v.end(), [](const Component& a, const Component& b) {
    return std::tie(a.kind, a.name, a.version, a.url, a.arch) < std::tie(b.kind, b.name, b.version, b.url, b.arch);
  });
  return v;
}

std::string digest_hex(const std::string& digest) {
  auto colon = digest.find(':');
  return colon == std::string::npos ? digest : digest.substr(colon + 1);
}

// A UUID-shaped serial derived from the image digest, so the same image gets the same BOM.
std::string serial_from(const std::string& hex) {
  std::string h = hex;
  h.resize(32, '0');
  return "urn:uuid:" + h.substr(0, 8) + "-" + h.substr(8, 4) + "-5" + h.substr(13, 3) + "-8" + h.substr(17, 3) + "-" +
         h.substr(20, 12);
}

}  // namespace

std::string purl(const Component& c) {
  const std::string at = c.version.empty() ? "" : "@" + encode(c.version);
  if (c.kind == "python-package" || c.kind == "rocm" || c.kind.starts_with("rocm-"))
    return "pkg:pypi/" + encode(pypi_name(c.name)) + at;
  if (c.kind == "apt-package" || c.kind == "deb") {
    std::string p = "pkg:deb/debian/" + encode(c.name) + at;
    if (!c.arch.empty()) p += "?arch=" + encode(c.arch);
    return p;
  }
  if (c.kind == "base-image") {
    // pkg:oci/NAME@sha256%3AHEX?repository_url=REGISTRY/REPO
    std::string repo = c.name;
    std::string last = repo.substr(repo.rfind('/') == std::string::npos ? 0 : repo.rfind('/') + 1);
    std::string p = "pkg:oci/" + encode(last);
    if (!c.version.empty()) p += "@" + encode(c.version);
    if (!repo.empty() && repo != last) p += "?repository_url=" + encode(repo);
    return p;
  }
  std::string p = "pkg:generic/" + encode(c.name) + at;
  if (!c.url.empty()) p += "?download_url=" + encode(c.url);
  return p;
}

std::string spdx_json(const Document& doc) {
  const std::string hex = digest_hex(doc.image_digest);
  json d;
  d["spdxVersion"] = "SPDX-2.3";
  d["dataLicense"] = "CC0-1.0";
  d["SPDXID"] = "SPDXRef-DOCUMENT";
  d["name"] = doc.image_name + "@" + doc.image_digest;
  d["documentNamespace"] = "https://spdx.org/spdxdocs/rockpack/" + doc.image_name + "-" + hex;
  d["creationInfo"] = {{"created", doc.created}, {"creators", {"Tool: rockpack-" + doc.tool_version}}};
  d["documentDescribes"] = {"SPDXRef-Image"};
  json packages = json::array();
  packages.push_back({{"SPDXID", "SPDXRef-Image"},
                      {"name", doc.image_name},
                      {"versionInfo", doc.image_digest},
                      {"downloadLocation", "NOASSERTION"},
                      {"filesAnalyzed", false},
                      {"primaryPackagePurpose", "CONTAINER"},
                      {"checksums", {{{"algorithm", "SHA256"}, {"checksumValue", hex}}}},
                      {"licenseConcluded", "NOASSERTION"},
                      {"licenseDeclared", "NOASSERTION"},
                      {"copyrightText", "NOASSERTION"}});
  json relationships = json::array();
  relationships.push_back(
      {{"spdxElementId", "SPDXRef-DOCUMENT"}, {"relationshipType", "DESCRIBES"}, {"relatedSpdxElement", "SPDXRef-Image"}});
  size_t index = 0;
  const std::vector<Component> components = sorted(doc.components);
  std::map<std::string, std::string> id_of_ref;
  for (const auto& c : components) {
    std::string id = spdx_id(c, ++index);
    if (!c.ref.empty()) id_of_ref.emplace(c.ref, id);
  }
  index = 0;
  json depends = json::array();
  for (const auto& c : components) {
    std::string id = spdx_id(c, ++index);
    json p = {{"SPDXID", id},
              {"name", c.name},
              {"downloadLocation", c.url.empty() ? "NOASSERTION" : c.url},
              {"filesAnalyzed", false},
              {"licenseConcluded", "NOASSERTION"},
              {"licenseDeclared", c.license.empty() ? "NOASSERTION" : c.license},
              {"copyrightText", "NOASSERTION"},
              {"externalRefs", {{{"referenceCategory", "PACKAGE-MANAGER"}, {"referenceType", "purl"},
                                 {"referenceLocator", purl(c)}}}}};
    if (!c.version.empty()) p["versionInfo"] = c.version;
    if (!c.sha256.empty()) p["checksums"] = {{{"algorithm", "SHA256"}, {"checksumValue", c.sha256}}};
    p["primaryPackagePurpose"] = c.kind == "base-image" ? "CONTAINER" : c.kind == "python-interpreter" ? "APPLICATION" : "LIBRARY";
    if (!c.origin.empty()) p["sourceInfo"] = "found on " + c.origin;
    if (c.license.empty() && !c.license_text.empty())
      p["licenseComments"] = "The package's metadata declares \"" + c.license_text + "\", which is not an SPDX license expression.";
    packages.push_back(p);
    relationships.push_back({{"spdxElementId", "SPDXRef-Image"},
                             {"relationshipType", c.kind == "base-image" ? "DESCENDANT_OF" : "CONTAINS"},
                             {"relatedSpdxElement", id}});
    std::set<std::string> targets;
    for (const auto& dep : c.depends_on)
      if (auto it = id_of_ref.find(dep); it != id_of_ref.end() && it->second != id) targets.insert(it->second);
    for (const auto& target : targets)
      depends.push_back({{"spdxElementId", id}, {"relationshipType", "DEPENDS_ON"}, {"relatedSpdxElement", target}});
  }
  for (auto& r : depends) relationships.push_back(std::move(r));
  d["packages"] = packages;
  d["relationships"] = relationships;
  return d.dump(2) + "\n";
}

std::string cyclonedx_json(const Document& doc) {
  const std::string hex = digest_hex(doc.image_digest);
  json d;
  d["bomFormat"] = "CycloneDX";
  d["specVersion"] = "1.5";
  d["serialNumber"] = serial_from(hex);
  d["version"] = 1;
  d["metadata"] = {
      {"timestamp", doc.created},
      {"tools", {{"components", {{{"type", "application"}, {"name", "rockpack"}, {"version", doc.tool_version}}}}}},
      {"component", {{"type", "container"}, {"bom-ref", "image"}, {"name", doc.image_name}, {"version", doc.image_digest}}}};
  json components = json::array();
  json depends = json::array();
  std::set<std::string> refs;
  const std::vector<Component> sorted_components = sorted(doc.components);
  std::vector<std::string> bom_refs;
  std::map<std::string, std::string> bom_ref_of;
  for (const auto& c : sorted_components) {
    std::string ref = purl(c);
    // bom-refs are unique: the same package twice (two site directories) gets a suffix.
    for (int n = 2; !refs.insert(ref).second; ++n) ref = purl(c) + "#" + std::to_string(n);
    bom_refs.push_back(ref);
    if (!c.ref.empty()) bom_ref_of.emplace(c.ref, ref);
  }
  json package_dependencies = json::array();
  for (size_t i = 0; i < sorted_components.size(); ++i) {
    const Component& c = sorted_components[i];
    const std::string& ref = bom_refs[i];
    json j = {{"type", c.kind == "base-image" ? "container" : c.kind == "python-interpreter" ? "application" : "library"},
              {"bom-ref", ref},
              {"name", c.name},
              {"purl", purl(c)}};
    if (!c.version.empty()) j["version"] = c.version;
    if (!c.sha256.empty()) j["hashes"] = {{{"alg", "SHA-256"}, {"content", c.sha256}}};
    if (!c.url.empty()) j["externalReferences"] = {{{"type", "distribution"}, {"url", c.url}}};
    if (!c.license.empty())
      j["licenses"] = {{{"expression", c.license}}};
    else if (!c.license_text.empty())
      j["licenses"] = {{{"license", {{"name", c.license_text}}}}};
    components.push_back(j);
    depends.push_back(ref);
    std::set<std::string> targets;
    for (const auto& dep : c.depends_on)
      if (auto it = bom_ref_of.find(dep); it != bom_ref_of.end() && it->second != ref) targets.insert(it->second);
    // Every component gets an entry (an empty dependsOn says: depends on nothing listed here).
    package_dependencies.push_back({{"ref", ref}, {"dependsOn", json(std::vector<std::string>(targets.begin(), targets.end()))}});
  }
  d["components"] = components;
  d["dependencies"] = json::array();
  d["dependencies"].push_back({{"ref", "image"}, {"dependsOn", depends}});
  for (auto& e : package_dependencies) d["dependencies"].push_back(std::move(e));
  return d.dump(2) + "\n";
}

}  // namespace rp::sbom
