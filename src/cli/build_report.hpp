#pragma once
// `build --report FILE [--report-markdown FILE] [--compare-to REF [--compare-report FILE]]`: the build
// report (src/report/) filled from what the build measured where it did the work — run_steps times
// each step's plan(), assemble_image each layer, run_build the outputs and the push — and, with
// --compare-to, the deltas against a previous image: its packages and layers from src/inventory
// (the same reading as `rockpack diff`), its build time from its own report (the image's
// application/vnd.rockpack.report+json referrer in a registry, or --compare-report FILE).
#include <optional>
#include <string>
#include <vector>

#include "inventory/image_source.hpp"
#include "plan/image_assembler.hpp"
#include "plan/plan.hpp"
#include "plan/steps.hpp"
#include "registry/reference.hpp"
#include "registry/transport.hpp"
#include "report/report.hpp"
#include "store/content_store.hpp"

namespace rp::cli {

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

// The previous image read into the store (a registry pull of the blobs the store lacks, or an
// oci:/oci-archive:/docker-archive: import), every blob verified. Read before the build writes or
// pushes anything: `--push repo:latest --compare-to repo:latest` compares with the old :latest.
struct PreviousImage {
  inventory::SourcedImage sourced;
  double load_seconds = 0;  // kept out of the build's duration
};
PreviousImage load_previous(const CompareRequest& request, const Platform& platform, ContentStore& store,
                            registry::Session& session);

// Fills report.comparison (and each layer's in_previous): takes both images' inventories and diffs
// them. The duration delta is set only from a previous report that describes that very image.
void compare_with_previous(report::Report& report, const Image& image, const PreviousImage& previous,
                           const CompareRequest& request, ContentStore& store, registry::Session& session);

// Attaches the report JSON to the pushed image as an OCI referrer (artifactType
// application/vnd.rockpack.report+json) in every repository it was pushed to, as the SBOM is.
void attach_report(const std::string& text, const SealedImage& image, const std::vector<registry::Reference>& pushed_to,
                   ContentStore& store, registry::Session& session);

}  // namespace rp::cli
