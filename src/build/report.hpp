#pragma once
// `build --report FILE [--report-markdown FILE] [--compare-to REF [--compare-report FILE]]`: the build
// report (src/report/) filled from what the build measured where it did the work — run_steps times
// each step's plan(), assemble_image each layer, finish_build the outputs and the push — and, with
// --compare-to, the deltas against a previous image: its packages and layers from src/inventory
// (the same reading as `rockpack diff`), its build time from its own report (the image's
// application/vnd.rockpack.report+json referrer in a registry, or --compare-report FILE).
#include <optional>
#include <string>
#include <vector>

#include "plan/image_assembler.hpp"
#include "plan/plan.hpp"
#include "plan/steps.hpp"
#include "reference/reference.hpp"
#include "registry/transport.hpp"
#include "report/report.hpp"
#include "store/content_store.hpp"
#include "transports/load.hpp"

namespace rp::build {

// Wall times measured by the build (seconds).
struct BuildTimings {
  std::vector<StepTiming> steps;  // "base" (make_plan: the base pulled or imported), then each step's plan()
  double plan_seconds = 0;        // recipe, base and every step
  double assemble_seconds = 0;    // every layer, cache lookups included
  double output_seconds = 0;      // every -o output written
  double push_seconds = 0;        // the image pushed (not the referrers)
  double build_seconds = 0;       // from the start of the command to the image written and pushed
};

struct ReportInputs {
  const BuildPlan& plan;
  const AssembledImage& assembled;
  const SealedImage& sealed;
  const BuildTimings& timings;
  std::string compression;
  std::vector<std::string> outputs;
  std::vector<std::string> pushed;
};

report::Report make_report(const ReportInputs& in);

// What --compare-to needs, checked before the build starts (a bad reference or an unreadable
// --compare-report fails before any work).
struct CompareRequest {
  std::string previous;                           // --compare-to, as given
  std::optional<report::Report> previous_report;  // --compare-report FILE, parsed
  std::string previous_report_file;
};
// Throws rp::InputError for a reference no transport reads, rp::Error for a report file that cannot be
// read or is not a report.
CompareRequest check_compare_request(const std::string& compare_to, const std::string& compare_report_file);

// The previous image, read before the build writes or pushes anything (`--push repo:latest
// --compare-to repo:latest` compares with the old :latest). When its build report — the registry
// image's application/vnd.rockpack.report+json referrer, or --compare-report FILE — describes it and
// can stand for its packages (report_covers), only its manifest and config are read: no layer is
// pulled, imported or streamed. Otherwise its layers are brought into the store (a registry pull of
// the blobs the store lacks, or an oci:/oci-archive:/docker-archive: import), every blob verified,
// and compare_with_previous reads them.
struct PreviousImage {
  transports::SourcedImage sourced;
  double load_seconds = 0;  // kept out of the build's duration
  std::optional<report::Report> report;  // its build report, when one was found that describes it
  std::string report_from;               // "its report referrer" or the --compare-report file
  bool report_covers = false;            // the report's packages are the comparison's (no layer read)
  std::string why_layers;                // when !report_covers: why the layers are read
};
PreviousImage load_previous(const CompareRequest& request, const BuildPlan& plan, const Platform& platform,
                            ContentStore& store, registry::Session& session);

// Whether a previous image's report can stand for its packages in a comparison with `plan`'s build:
// it describes that image (`previous_digest`), was built on the same base (the base's own packages
// are in no report) and neither build has a run: step (a command can install what no component
// lists). Empty when it can, else the reason.
std::string report_cannot_cover(const report::Report& previous, const std::string& previous_digest, const BuildPlan& plan);

// Fills report.comparison (and each layer's in_previous): the layers from the two images' configs;
// the packages from the two reports when previous.report_covers (the plan's components, Debian and
// Python, and the ROCm labels of both configs), else from both images' inventories (their layers
// read, both at once). The comparison's packages_note says which. The duration delta is set only from a previous report that describes that very image.
void compare_with_previous(report::Report& report, const Image& image, const PreviousImage& previous,
                           const CompareRequest& request, ContentStore& store, registry::Session& session);

// Attaches the report JSON to the pushed image as an OCI referrer (artifactType
// application/vnd.rockpack.report+json) in every repository it was pushed to, as the SBOM is.
void attach_report(const std::string& text, const SealedImage& image, const std::vector<Reference>& pushed_to,
                   ContentStore& store, registry::Session& session);

}  // namespace rp::build
