#pragma once
// One build, as a library: a recipe planned, its layers assembled, the image sealed, written to its
// outputs and pushed, and its records made (SBOM, report, metadata, resolution). `rockpack build`
// parses its flags into a BuildRequest and calls these; a test or another program can call them the
// same way, with no CLI. The parts, in order:
//   check_request  every flag parsed and checked before any work (a bad one fails first)
//   plan_build     the recipe loaded, the base resolved, every step planned (all a dry run does)
//   finish_build   assemble, seal, outputs, push, layer cache export, SBOM, report, metadata
// build() runs all three.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "assemble/compression.hpp"
#include "assemble/progress.hpp"
#include "build/background_layers.hpp"
#include "build/report.hpp"
#include "image/image.hpp"
#include "output/output_spec.hpp"
#include "plan/image_assembler.hpp"
#include "plan/plan.hpp"
#include "recipe/model.hpp"
#include "registry/layer_cache.hpp"
#include "reference/reference.hpp"
#include "registry/transport.hpp"
#include "report/report.hpp"
#include "store/content_store.hpp"
#include "util/platform.hpp"

namespace rp::build {

// What to build and where it goes (the meaning of each field is that of the `rockpack build` flag
// named next to it; docs/cli.md).
struct BuildRequest {
  // The recipe.
  std::string recipe;                    // RECIPE: a file, or "-" for stdin
  std::vector<std::string> set;          // --set KEY=VALUE
  std::vector<std::string> allow_paths;  // --allow-path
  std::string variant;                   // --variant NAME (a recipe with matrix: needs one)
  std::string platform;                  // --platform; empty: the recipe's
  std::string revision;                  // --revision; empty: git HEAD of the recipe's repository
  std::string source;                    // --source; empty: its origin URL (credentials removed)
  // Resolution.
  bool insecure_downloads = false;  // --insecure-downloads
  bool strict = false;              // --strict
  bool store_only = false;          // --store-only
  bool locked = false;              // --locked
  std::string lock_file;            // --lock FILE (implies locked; default RECIPE.lock)
  bool dry_run = false;             // --dry-run: plan only (finish_build is not called)
  // Layers.
  std::string compression;  // --compression; empty: the recipe's compression:, else gzip
  unsigned threads = 0;     // --threads
  bool no_cache = false;    // --no-cache
  std::string cache_from;   // --cache-from
  std::string cache_to;     // --cache-to
  // Where the image goes: with neither, oci:out/<name>.
  std::vector<std::string> outputs;  // -o
  std::vector<std::string> push;     // --push
  // Records.
  std::string metadata_file;         // --metadata-file
  std::string resolved_file;         // --resolved
  std::string sbom_file;             // --sbom
  std::string sbom_format = "spdx";  // --sbom-format
  std::string report_file;           // --report
  std::string report_markdown_file;  // --report-markdown
  std::string compare_to;            // --compare-to
  std::string compare_report_file;   // --compare-report
};

// Where a build runs: the store and registry session it uses (they outlive it) and where it reports.
struct BuildContext {
  ContentStore& store;
  registry::Session& session;
  BuildProgress* progress = nullptr;  // layer compression; none: silent
  // The lines CI may count ("build.layers", "build.push"): the text and its fields. None: the text
  // is logged at info level.
  std::function<void(const std::string& event, const std::string& text, const nlohmann::json& fields)> event;
};

// A request whose every flag parsed: what the parts below use.
struct CheckedRequest {
  BuildRequest request;
  std::chrono::steady_clock::time_point started;  // when the build began (its duration counts from here)
  Compression compression;                        // --compression, or gzip until the recipe says
  std::vector<ImageLocation> outputs;
  std::optional<Platform> platform;
  registry::LayerCacheOptions cache;
  bool want_report = false;  // --report or --report-markdown
  CompareRequest compare;
};
// Throws rp::InputError (exit 2) for the first flag that does not parse, in the order the CLI has
// always checked them: compression, outputs, platform, pushes, layer caches, SBOM format, comparison.
CheckedRequest check_request(BuildRequest request);

struct PlannedBuild {
  recipe::Recipe recipe;
  BuildPlan plan;
  Compression compression;  // the request's, else the recipe's compression:, else gzip
  BuildTimings timings;     // the base and every step's plan()
  // Layers the steps had written while planning went on (build/background_layers.hpp); null when
  // none could be (a dry run, --no-cache, a registry layer cache).
  std::shared_ptr<BackgroundLayers> background;
};
// Loads the recipe and plans every step (pulling or importing the base; with request.dry_run
// resolving without downloading; with --locked, from the lock's pins only).
PlannedBuild plan_build(const CheckedRequest& request, BuildContext& context);

struct BuildResult {
  BuildPlan plan;
  AssembledImage assembled;
  SealedImage sealed;
  std::vector<std::string> outputs;  // every output written, as ImageLocation::str()
  std::vector<std::string> pushed;   // "registry/repo:tag@digest" for every reference pushed
  BuildTimings timings;
  std::optional<report::Report> report;  // when a report was asked for
  std::string sbom;                      // the SBOM's text, when one was asked for
};
// Everything after planning: layers, seal, outputs, push, cache export, SBOM, report, metadata.
BuildResult finish_build(const CheckedRequest& request, BuildContext& context, PlannedBuild planned);

// check_request, plan_build and finish_build (throws rp::InputError for a dry-run request).
BuildResult build(BuildRequest request, BuildContext& context);

// --push REF: a reference without tag or digest gets every recipe tag (or :latest when it has none).
std::vector<Reference> push_references(const std::vector<std::string>& args,
                                                 const std::vector<std::string>& recipe_tags);

}  // namespace rp::build
