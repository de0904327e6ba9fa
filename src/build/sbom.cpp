#include "build/sbom.hpp"

#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include <spdlog/spdlog.h>

#include "inventory/layered_packages.hpp"
#include "registry/referrers.hpp"
#include "sbom/sbom.hpp"
#include "util/error.hpp"
#include "util/spdx_license.hpp"

namespace rp::build {

namespace {

// PEP 503: how two spellings of a Python distribution's name are found to be one.
std::string normalized(const std::string& name) {
  std::string out;
  for (char c : name) {
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (l == '_' || l == '.') l = '-';
    if (l != '-' || out.empty() || out.back() != '-') out += l;
  }
  return out;
}

sbom::Component base_component(const BuildPlan& plan) {
  sbom::Component base;
  base.kind = PackageKind::kBaseImage;
  // "oci:DIR:TAG" or "registry/repo:tag": the purl names the repository, the version is the digest.
  std::string name = plan.base_name;
  if (auto at = name.find('@'); at != std::string::npos) name = name.substr(0, at);
  if (auto slash = name.rfind('/'), colon = name.rfind(':'); colon != std::string::npos &&
                                                            (slash == std::string::npos || colon > slash))
    name = name.substr(0, colon);
  base.name = name;
  base.version = plan.base_digest;
  if (plan.base_digest.starts_with("sha256:")) base.sha256 = plan.base_digest.substr(7);
  return base;
}

// A .deb of an image that does not name its distribution (no /etc/os-release): the purl takes it
// from the Release of the repository the build installed the package from, when it did.
void take_release_distro(sbom::Component& c, const ResolvedComponent& r) {
  sbom::DebDistro d = sbom::deb_distro_from_release(r.release_origin, r.release_version, r.release_suite);
  if (d.id.empty()) return;
  c.distro_id = std::move(d.id);
  c.distro = std::move(d.distro);
}

// What the build itself resolved for a package: its file, license and dependencies.
void take_resolution(sbom::Component& c, const PlannedComponent& planned) {
  const ResolvedComponent& r = planned.component;
  c.url = r.url;
  c.sha256 = r.sha256;
  c.size = r.size;
  c.origin = r.origin;
  if (r.verification == "tls-only") c.origin += " (no hash on the index: accepted on TLS alone, sha256 computed on download)";
  c.license = r.license.expression;
  c.license_text = r.license.text;
  // Dependencies name components of the same step (the resolution that chose both).
  c.ref = planned.step + "/" + r.name;
  for (const auto& d : r.depends_on) c.depends_on.push_back(planned.step + "/" + d);
}

// The plan's packages, found by what the image's metadata says of them: a .deb by name, version and
// architecture; a wheel by its normalized name, version and the layer it went into.
class PlannedIndex {
 public:
  explicit PlannedIndex(const BuildPlan& plan) {
    for (const auto& planned : plan.components) {
      const ResolvedComponent& r = planned.component;
      switch (r.kind) {
        case PackageKind::kDeb: debs_[{r.name, r.version, r.arch}] = &planned; break;
        case PackageKind::kPython: wheels_[{normalized(r.name), r.version, r.layer}] = &planned; break;
        case PackageKind::kPythonInterpreter:  // no package metadata in the image: listed as planned
        case PackageKind::kRocm:
        case PackageKind::kBaseImage: others_.push_back(&planned); break;
      }
    }
  }
  // The planned package `p` is, or null (the base's, or one a run: step installed).
  const PlannedComponent* find(const inventory::Package& p, const std::string& layer_name) {
    const PlannedComponent* found = nullptr;
    if (p.kind == PackageKind::kDeb) {
      auto it = debs_.find({p.name, p.version, p.arch});
      if (it != debs_.end()) found = it->second;
    } else if (p.kind == PackageKind::kPython) {
      auto it = wheels_.find({normalized(p.name), p.version, layer_name});
      if (it != wheels_.end()) found = it->second;
    }
    if (found) used_.insert(found);
    return found;
  }
  const std::vector<const PlannedComponent*>& others() const { return others_; }
  // Planned packages the image does not hold (a later run: step removed them).
  std::vector<const PlannedComponent*> unused() const {
    std::vector<const PlannedComponent*> out;
    for (const auto& [k, p] : debs_)
      if (!used_.count(p)) out.push_back(p);
    for (const auto& [k, p] : wheels_)
      if (!used_.count(p)) out.push_back(p);
    return out;
  }

 private:
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, const PlannedComponent*> debs_, wheels_;
  std::vector<const PlannedComponent*> others_;
  std::set<const PlannedComponent*> used_;
};

}  // namespace

void check_sbom_format(const std::string& format) {
  if (format != "spdx" && format != "cyclonedx")
    throw InputError("--sbom-format " + format + " is not a format rockpack writes", "use spdx (SPDX 2.3 JSON) or cyclonedx (CycloneDX 1.5 JSON)");
}

std::string sbom_text(const BuildPlan& plan, const SealedImage& image, const ContentStore& store, const std::string& format) {
  sbom::Document doc;
  doc.image_name = plan.name;
  doc.image_digest = image.manifest.digest;
  doc.created = plan.created;
  doc.tool_version = ROCKPACK_VERSION;
  if (!plan.base_name.empty()) doc.components.push_back(base_component(plan));

  // Every package the image holds, from the base's layers and the build's planned entries.
  std::vector<const std::vector<Entry>*> new_layers;
  for (const auto& l : plan.layers) new_layers.push_back(&l.entries);
  const inventory::LayeredPackages found = inventory::layered_packages(plan.base, store, new_layers);
  const size_t from_base = plan.base.layers.size();
  auto layer_ref = [&](int index) {
    sbom::LayerRef ref;
    if (index < 0 || static_cast<size_t>(index) >= image.layers.size()) return ref;
    const auto i = static_cast<size_t>(index);
    ref.digest = image.layers[i].blob.digest;
    ref.diff_id = image.layers[i].diff_id;
    ref.name = i < from_base ? "base" : plan.layers.at(i - from_base).name;
    return ref;
  };

  PlannedIndex planned(plan);
  for (const auto& p : found.packages) {
    sbom::Component c;
    c.kind = p.kind;
    c.name = p.name;
    c.version = p.version;
    c.layer = layer_ref(p.layer);
    switch (p.kind) {
      case PackageKind::kDeb:
        c.arch = p.arch;
        c.distro_id = found.distro.id;
        if (!found.distro.id.empty() && !found.distro.version.empty()) c.distro = found.distro.id + "-" + found.distro.version;
        break;
      case PackageKind::kPython:
        c.location = p.location;
        // What the metadata in the image declares; a wheel the build installed says it below too.
        if (auto expression = spdx_expression(p.license)) c.license = *expression;
        else c.license_text = p.license;
        break;
      case PackageKind::kPythonInterpreter:
      case PackageKind::kRocm:
      case PackageKind::kBaseImage: continue;  // installed_packages lists only Debian and Python packages
    }
    if (const PlannedComponent* r = planned.find(p, c.layer.name)) {
      take_resolution(c, *r);
      if (p.kind == PackageKind::kDeb && found.distro.id.empty()) take_release_distro(c, r->component);
    }
    doc.components.push_back(std::move(c));
  }
  for (const PlannedComponent* r : planned.others()) {
    sbom::Component c;
    c.kind = r->component.kind;
    c.name = r->component.name;
    c.version = r->component.version;
    c.arch = r->component.arch;
    for (size_t i = 0; i < plan.layers.size(); ++i)
      if (plan.layers[i].name == r->component.layer) c.layer = layer_ref(static_cast<int>(from_base + i));
    take_resolution(c, *r);
    doc.components.push_back(std::move(c));
  }
  for (const PlannedComponent* r : planned.unused())
    spdlog::debug("SBOM: {} {} {} was installed but the image no longer holds it", component_kind_name(r->component.kind),
                  r->component.name, r->component.version);
  return format == "cyclonedx" ? sbom::cyclonedx_json(doc) : sbom::spdx_json(doc);
}

void attach_sbom(const std::string& text, const std::string& format, const SealedImage& image,
                 const std::vector<Reference>& pushed_to, ContentStore& store, registry::Session& session) {
  const std::string type = format == "cyclonedx" ? "application/vnd.cyclonedx+json" : "application/spdx+json";
  std::set<std::string> done;
  for (const auto& ref : pushed_to) {
    if (!done.insert(ref.name()).second) continue;  // one referrer per repository, not per tag
    registry::AttachedReferrer r = registry::attach_referrer(ref, image.manifest, type, text, store, session);
    spdlog::info("attached the SBOM to {}@{} as {}{}", ref.name(), image.manifest.digest, r.digest,
                 r.used_tag_fallback ? " (referrers tag " + r.fallback_tag + ")" : "");
  }
}

}  // namespace rp::build
