#pragma once
// `build --sbom FILE [--sbom-format spdx|cyclonedx]`: the SBOM of the built image: every package it
// holds (inventory/layered_packages.hpp), with what the plan resolved for those the build installed
// (file, hash, license, dependencies), the interpreter archives, and its base.
#include <string>

#include "image/image.hpp"
#include "plan/plan.hpp"
#include "reference/reference.hpp"
#include "registry/transport.hpp"
#include "store/content_store.hpp"

namespace rp::build {

// Throws rp::InputError (exit 2) for a format other than spdx or cyclonedx.
void check_sbom_format(const std::string& format);
// The document's text (JSON), deterministic for the same plan and image. Reads the base's layers
// from `store` the first time a base is seen (then a store record answers).
std::string sbom_text(const BuildPlan& plan, const SealedImage& image, const ContentStore& store, const std::string& format);
// Attaches the SBOM to the pushed image as an OCI referrer in every repository it was pushed to
// (the referrers API, or the sha256-<hex> tag fallback); logs what it pushed.
void attach_sbom(const std::string& text, const std::string& format, const SealedImage& image,
                 const std::vector<Reference>& pushed_to, ContentStore& store, registry::Session& session);

}  // namespace rp::build
