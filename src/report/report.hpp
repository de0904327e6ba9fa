#pragma once
// The build report (`rockpack build --report FILE`): what a build did and what it cost — per step and
// per layer the sizes, entry counts, wall times and cache hits; totals; the image's identity; the
// packages it resolved; and, with `--compare-to`, what changed against a previous image.
//
// A plain model with two renderings (JSON, the file and the OCI referrer; Markdown, for a GitHub step
// summary) and one reader: a report read back (a previous image's referrer, `--compare-report FILE`)
// is untrusted input, so `parse_report` checks every field it uses and throws rp::Error naming the
// first bad one, never anything else. Knows nothing of plans, images or registries: the caller
// (src/build/report.cpp) fills the model.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/package_kind.hpp"

namespace rp::report {

// The version of the JSON layout below; a reader refuses a report of a newer one.
constexpr int kFormatVersion = 1;
// What the report is as an OCI referrer (the artifact manifest's artifactType and its layer's media type).
constexpr const char* kArtifactType = "application/vnd.rockpack.report+json";

struct LayerReport {
  std::string step;     // the step that made it ("files", "python", ...); "base" for the base image's layers
  std::string name;     // the recipe's layer name; empty for a base layer
  std::string digest;   // the compressed blob
  std::string diff_id;  // the uncompressed tar
  uint64_t size = 0;    // compressed bytes
  std::optional<uint64_t> uncompressed_size;  // unknown for a base layer
  std::optional<uint64_t> entries;            // tar entries; unknown for a base layer
  double seconds = 0;      // wall time spent making it (0 for a base layer)
  bool cache_hit = false;  // taken from the store's layer cache; base layers are reused, not cache hits
  std::optional<bool> in_previous;  // with --compare-to: the previous image has a layer with this diff_id
};

struct StepReport {
  std::string name;
  double plan_seconds = 0;      // resolving, downloading, running (the step's plan())
  double assemble_seconds = 0;  // writing and compressing its layers
  uint64_t layers = 0;
  uint64_t size = 0;               // compressed bytes of its layers
  uint64_t uncompressed_size = 0;
  uint64_t entries = 0;
  uint64_t cache_hits = 0;         // how many of its layers came from the cache
};

struct Package {
  // Written as the plan names it ("python-package", "apt-package", ...) in the package list, as
  // `rockpack diff` names it ("python", "deb", "rocm") in a comparison; read in either spelling.
  PackageKind kind = PackageKind::kPython;
  std::string name;
  std::string version;
  std::string layer;  // the layer it went into; empty when unknown
};

struct PackageChange {
  PackageKind kind = PackageKind::kPython;
  std::string name;
  std::string old_version;
  std::string new_version;
};

struct Comparison {
  std::string previous;         // the reference as given to --compare-to
  std::string previous_digest;  // its manifest digest; empty for a legacy docker archive
  std::vector<Package> added;
  std::vector<Package> removed;
  std::vector<PackageChange> changed;
  uint64_t layers_reused = 0;   // layers of this image whose diff_id the previous image has
  uint64_t layers_rebuilt = 0;  // the others
  int64_t size_delta_bytes = 0; // this image's compressed size minus the previous one's
  std::optional<double> duration_delta_s;  // only when the previous build's report was found
  std::string duration_note;    // where the previous duration came from, or why it is unknown
  std::string packages_note;    // where the package deltas came from: the two builds' reports, or
                                // the layers of both images read (and why, when a report was not enough)
};

struct Totals {
  uint64_t image_size = 0;               // compressed bytes of every layer (what a pull downloads at most)
  uint64_t uncompressed_size = 0;        // of the layers whose size is known (the new ones)
  uint64_t layers = 0;
  uint64_t layers_from_base = 0;
  uint64_t layers_cached = 0;            // the recipe's layers taken from the cache
  uint64_t layers_built = 0;             // the recipe's layers written this time
  double build_seconds = 0;              // the whole build, from start to the image written and pushed
  double plan_seconds = 0;               // recipe, base and every step
  double assemble_seconds = 0;           // every layer
  double output_seconds = 0;             // writing every -o output
  double push_seconds = 0;               // pushing the image (not the referrers)
};

struct Report {
  int format = kFormatVersion;
  std::string recipe;            // the recipe's name
  std::string image_digest;      // "sha256:..." of the manifest
  std::string config_digest;
  std::vector<std::string> tags;
  int64_t source_date_epoch = 0;
  std::string created;           // RFC 3339 of source_date_epoch
  std::string base;              // the base as the recipe names it; empty for scratch
  std::string base_digest;
  std::string compression;       // "gzip:6", "zstd:10", ...
  std::string tool_version;
  std::vector<std::string> outputs;  // where it was written
  std::vector<std::string> pushed;   // where it was pushed
  std::vector<StepReport> steps;
  std::vector<LayerReport> layers;   // base layers first, as in the image
  Totals totals;
  std::vector<Package> packages;     // what the steps resolved (the SBOM's components)
  std::optional<Comparison> comparison;
};

// Megabytes (10^6 bytes), rounded to two decimals: the unit of size_delta_mb.
double megabytes(int64_t bytes);

// JSON (keys sorted, two-space indent, trailing newline).
std::string to_json_text(const Report& report);

// Reads a report written by to_json_text (this or an older format). Untrusted: throws rp::Error
// naming the first missing or mistyped field, for text that is not JSON, is larger than 16 MiB or
// has a newer format; never crashes. Fields a reader does not need may be absent.
Report parse_report(const std::string& text, const std::string& where);

// Markdown for a GitHub step summary: the image, totals, layers table, deltas and changed packages.
// Cell text is escaped (a '|' or a newline cannot break the table).
std::string to_markdown(const Report& report);

}  // namespace rp::report
