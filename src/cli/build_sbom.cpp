#include "cli/build_sbom.hpp"

#include <set>

#include <spdlog/spdlog.h>

#include "registry/referrers.hpp"
#include "sbom/sbom.hpp"
#include "util/error.hpp"

namespace rp::cli {

void check_sbom_format(const std::string& format) {
  if (format != "spdx" && format != "cyclonedx")
    throw InputError("--sbom-format " + format + " is not a format rockpack writes", "use spdx (SPDX 2.3 JSON) or cyclonedx (CycloneDX 1.5 JSON)");
}

std::string sbom_text(const BuildPlan& plan, const SealedImage& image, const std::string& format) {
  sbom::Document doc;
  doc.image_name = plan.name;
  doc.image_digest = image.manifest.digest;
  doc.created = plan.created;
  doc.tool_version = ROCKPACK_VERSION;
  if (!plan.base_name.empty()) {
    sbom::Component base;
    base.kind = "base-image";
    // "oci:DIR:TAG" or "registry/repo:tag": the purl names the repository, the version is the digest.
    std::string name = plan.base_name;
    if (auto at = name.find('@'); at != std::string::npos) name = name.substr(0, at);
    if (auto slash = name.rfind('/'), colon = name.rfind(':'); colon != std::string::npos &&
                                                              (slash == std::string::npos || colon > slash))
      name = name.substr(0, colon);
    base.name = name;
    base.version = plan.base_digest;
    if (plan.base_digest.starts_with("sha256:")) base.sha256 = plan.base_digest.substr(7);
    doc.components.push_back(base);
  }
  for (const auto& planned : plan.components) {
    const ResolvedComponent& r = planned.component;
    sbom::Component c;
    c.kind = r.kind;
    c.name = r.name;
    c.version = r.version;
    c.url = r.url;
    c.sha256 = r.sha256;
    c.size = r.size;
    c.origin = r.origin;
    if (r.verification == "tls-only") c.origin += " (no hash on the index: accepted on TLS alone, sha256 computed on download)";
    c.arch = r.arch;
    c.license = r.license.expression;
    c.license_text = r.license.text;
    // Dependencies name components of the same step (the resolution that chose both).
    c.ref = planned.step + "/" + r.name;
    for (const auto& d : r.depends_on) c.depends_on.push_back(planned.step + "/" + d);
    doc.components.push_back(std::move(c));
  }
  return format == "cyclonedx" ? sbom::cyclonedx_json(doc) : sbom::spdx_json(doc);
}

void attach_sbom(const std::string& text, const std::string& format, const SealedImage& image,
                 const std::vector<registry::Reference>& pushed_to, ContentStore& store, registry::Session& session) {
  const std::string type = format == "cyclonedx" ? "application/vnd.cyclonedx+json" : "application/spdx+json";
  std::set<std::string> done;
  for (const auto& ref : pushed_to) {
    if (!done.insert(ref.name()).second) continue;  // one referrer per repository, not per tag
    registry::AttachedReferrer r = registry::attach_referrer(ref, image.manifest, type, text, store, session);
    spdlog::info("attached the SBOM to {}@{} as {}{}", ref.name(), image.manifest.digest, r.digest,
                 r.used_tag_fallback ? " (referrers tag " + r.fallback_tag + ")" : "");
  }
}

}  // namespace rp::cli
