#pragma once
// The simple repository API (PEP 503 HTML, PEP 691 JSON, with PEP 592 yanking, PEP 658/714
// metadata files and PEP 700 sizes) parsed into one model. Pages come from the network, so the
// parsers treat them as hostile: malformed markup is skipped, a malformed JSON document is an error,
// nothing here can crash or loop.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rp::python {

struct DistFile {
  std::string filename;                         // percent-decoded last path segment of the URL
  std::string url;                              // absolute, without the "#sha256=" fragment
  std::optional<std::string> sha256;            // 64 lowercase hex digits
  std::optional<std::string> requires_python;   // entity-decoded specifier text, as the index gave it
  std::optional<std::string> yanked;            // set when yanked; the reason, possibly empty
  bool has_metadata = false;                    // a PEP 658 "<url>.metadata" file exists
  std::optional<std::string> metadata_sha256;   // its sha256 when the index gave one
  std::optional<uint64_t> size;                 // PEP 700, JSON only
};

struct ProjectPage {
  std::string name;                   // JSON only (the HTML format has no name)
  std::vector<DistFile> files;        // in page order; wheels, sdists and anything else linked
  std::vector<std::string> versions;  // PEP 700 "versions", JSON only
};

struct ProjectLink {
  std::string name;  // the link text (a project name on a root index)
  std::string url;   // absolute
};

// PEP 503 project page (or a flat --find-links page: the same list of <a> links). Every link to a
// file is returned (wheels, sdists, anything else: the caller filters by file name); links to
// directories are skipped. Relative links are resolved against <base href> when present, else `page_url`. Throws rp::InputError when the
// page declares pypi:repository-version with a major version above 1.
ProjectPage parse_project_html(std::string_view html, std::string_view page_url);
// PEP 691 project page. Throws rp::InputError for invalid JSON, a wrong structure or api-version > 1.x.
ProjectPage parse_project_json(std::string_view json, std::string_view page_url);

// Root index (/simple/): the list of projects.
std::vector<ProjectLink> parse_root_index_html(std::string_view html, std::string_view page_url);
std::vector<ProjectLink> parse_root_index_json(std::string_view json, std::string_view page_url);

// "<64 hex digits>" lowercased, or nullopt when `hex` is not a SHA-256 in hex.
std::optional<std::string> normalize_sha256_hex(std::string_view hex);
// Throws rp::InputError when a page's repository/API version ("1.0", "1.1") has a major above 1.
void check_repository_version(std::string_view version, std::string_view page_url);

// The Accept header for PEP 691 content negotiation, preferring JSON.
inline constexpr std::string_view kSimpleApiAccept =
    "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01";

}  // namespace rp::python
