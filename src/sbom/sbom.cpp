#include "sbom/sbom.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "net/url.hpp"
#include "util/strings.hpp"

namespace rp::sbom {

namespace {

using nlohmann::json;

// Percent-encodes what a purl component may not hold as is ('+' may stay, as in "2.1.0+rocm6.4").
std::string encode(const std::string& s) { return net::url_encode(s, "+"); }
// A name's '+' is encoded too ("libstdc%2B%2B6"), as trivy and packageurl-go write it.
std::string encode_name(const std::string& s) { return net::url_encode(s, ""); }

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
  std::string id = "SPDXRef-Package-" + std::string(component_kind_name(c.kind)) + "-" + c.name + "-" + std::to_string(index);
  for (char& ch : id)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '-') ch = '-';
  return id;
}

std::vector<Component> sorted(std::vector<Component> v) {
  std::sort(v.begin(), v.end(), [](const Component& a, const Component& b) {
    return std::tie(a.kind, a.name, a.version, a.url, a.arch, a.location) <
           std::tie(b.kind, b.name, b.version, b.url, b.arch, b.location);
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

DebDistro deb_distro_from_release(const std::string& origin, const std::string& version, const std::string& suite) {
  DebDistro out;
  for (char ch : trim(origin)) {
    const auto u = static_cast<unsigned char>(ch);
    out.id += std::isspace(u) ? '-' : static_cast<char>(std::tolower(u));
  }
  if (out.id.empty()) return out;
  const std::string release(trim(version).empty() ? trim(suite) : trim(version));
  if (!release.empty()) out.distro = out.id + "-" + release;
  return out;
}

std::string purl(const Component& c) {
  const std::string at = c.version.empty() ? "" : "@" + encode(c.version);
  switch (c.kind) {
    case PackageKind::kPython:
    case PackageKind::kRocm:  // the rocm sdist, on the same indexes as its wheels
      return "pkg:pypi/" + encode(pypi_name(c.name)) + at;
    case PackageKind::kDeb: {
      // pkg:deb/ubuntu/libc6@2.35-0ubuntu3.8?arch=amd64&distro=ubuntu-22.04, qualifiers sorted. An
      // epoch ("1:4.13+dfsg1-1") goes into the epoch qualifier, as trivy writes it.
      std::string version = c.version, epoch;
      if (auto colon = version.find(':'); colon != std::string::npos && colon > 0 &&
                                          version.find_first_not_of("0123456789") == colon) {
        epoch = version.substr(0, colon);
        version = version.substr(colon + 1);
      }
      std::string p = "pkg:deb/" + encode(c.distro_id.empty() ? "debian" : c.distro_id) + "/" + encode_name(c.name) +
                      (version.empty() ? "" : "@" + encode(version));
      std::vector<std::string> qualifiers;
      if (!c.arch.empty()) qualifiers.push_back("arch=" + encode(c.arch));
      if (!c.distro.empty()) qualifiers.push_back("distro=" + encode(c.distro));
      if (!epoch.empty()) qualifiers.push_back("epoch=" + epoch);
      for (size_t i = 0; i < qualifiers.size(); ++i) p += (i == 0 ? "?" : "&") + qualifiers[i];
      return p;
    }
    case PackageKind::kBaseImage: {
      // pkg:oci/NAME@sha256%3AHEX?repository_url=REGISTRY/REPO
      std::string repo = c.name;
      std::string last = repo.substr(repo.rfind('/') == std::string::npos ? 0 : repo.rfind('/') + 1);
      std::string p = "pkg:oci/" + encode(last);
      if (!c.version.empty()) p += "@" + encode(c.version);
      if (!repo.empty() && repo != last) p += "?repository_url=" + encode(repo);
      return p;
    }
    case PackageKind::kPythonInterpreter: break;
  }
  std::string p = "pkg:generic/" + encode(c.name) + at;
  if (!c.url.empty()) p += "?download_url=" + encode(c.url);
  return p;
}

namespace {

std::string spdx_purpose(PackageKind kind) {
  switch (kind) {
    case PackageKind::kBaseImage: return "CONTAINER";
    case PackageKind::kPythonInterpreter: return "APPLICATION";
    case PackageKind::kDeb:
    case PackageKind::kPython:
    case PackageKind::kRocm: break;
  }
  return "LIBRARY";
}

std::string cyclonedx_type(PackageKind kind) {
  switch (kind) {
    case PackageKind::kBaseImage: return "container";
    case PackageKind::kPythonInterpreter: return "application";
    case PackageKind::kDeb:
    case PackageKind::kPython:
    case PackageKind::kRocm: break;
  }
  return "library";
}

// Where a component is in the image, as name/value pairs (in this order): SPDX annotations,
// CycloneDX properties.
std::vector<std::pair<std::string, std::string>> placement(const Component& c) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!c.layer.name.empty()) out.emplace_back("Layer", c.layer.name);
  if (!c.layer.digest.empty()) out.emplace_back("LayerDigest", c.layer.digest);
  if (!c.layer.diff_id.empty()) out.emplace_back("LayerDiffID", c.layer.diff_id);
  if (!c.location.empty()) out.emplace_back("FilePath", c.location);
  return out;
}

}  // namespace

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
    p["primaryPackagePurpose"] = spdx_purpose(c.kind);
    if (!c.origin.empty()) p["sourceInfo"] = "found on " + c.origin;
    if (c.license.empty() && !c.license_text.empty())
      p["licenseComments"] = "The package's metadata declares \"" + c.license_text + "\", which is not an SPDX license expression.";
    // The layer it comes from, as trivy's SPDX documents say it (an annotation per fact).
    json annotations = json::array();
    for (const auto& [name, value] : placement(c))
      annotations.push_back({{"annotationDate", doc.created}, {"annotationType", "OTHER"},
                             {"annotator", "Tool: rockpack-" + doc.tool_version}, {"comment", name + ": " + value}});
    if (!annotations.empty()) p["annotations"] = annotations;
    packages.push_back(p);
    relationships.push_back({{"spdxElementId", "SPDXRef-Image"},
                             {"relationshipType", c.kind == PackageKind::kBaseImage ? "DESCENDANT_OF" : "CONTAINS"},
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
    json j = {{"type", cyclonedx_type(c.kind)},
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
    json properties = json::array();
    for (const auto& [name, value] : placement(c)) properties.push_back({{"name", "rockpack:" + name}, {"value", value}});
    if (!properties.empty()) j["properties"] = properties;
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
