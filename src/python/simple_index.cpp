// PEP 503 HTML simple-repository pages.
#include "python/simple_index.hpp"

#include "python/html_scan.hpp"
#include "python/text.hpp"
#include "net/url.hpp"
#include "util/error.hpp"

namespace rp::python {

namespace {

struct Anchor {
  HtmlToken tag;
  std::string text;
};

// The <a href> links of a page, their text, and the base URL they are relative to.
struct PageLinks {
  std::string base;
  std::vector<Anchor> anchors;
};

PageLinks collect_links(std::string_view html, std::string_view page_url) {
  PageLinks page;
  page.base = std::string(page_url);
  bool have_base = false;
  Anchor* open = nullptr;
  for (auto& tok : tokenize_html(html)) {
    if (tok.kind == HtmlToken::Kind::kText) {
      // Bounded: link text is a file name, anything longer is noise.
      if (open && open->text.size() < 4096) open->text += tok.text;
      continue;
    }
    if (tok.kind == HtmlToken::Kind::kEndTag) {
      if (tok.name == "a") open = nullptr;
      continue;
    }
    if (tok.name == "base" && !have_base) {
      // Only the first <base href> counts, and it applies to every link on the page.
      if (auto href = tok.get("href")) {
        page.base = net::resolve_url(page_url, trim(*href));
        have_base = true;
      }
    } else if (tok.name == "meta" && iequals(tok.get("name").value_or(""), "pypi:repository-version")) {
      check_repository_version(tok.get("content").value_or(""), page_url);
    } else if (tok.name == "a") {
      open = nullptr;  // an <a> closes any open one
      if (tok.has("href")) {
        page.anchors.push_back({std::move(tok), {}});
        open = &page.anchors.back();
      }
    }
  }
  return page;
}

DistFile to_dist_file(const Anchor& a, const std::string& base) {
  DistFile f;
  std::string resolved = net::resolve_url(base, trim(*a.tag.get("href")));
  std::string_view fragment = net::url_fragment(resolved);
  f.url = std::string(net::strip_fragment(resolved));
  if (fragment.starts_with("sha256=")) f.sha256 = normalize_sha256_hex(fragment.substr(7));
  // The file name comes from the URL (as uv does), not the link text: the text is only supposed to
  // match it, and the URL is what gets downloaded. Links to directories have none and are skipped.
  f.filename = net::url_filename(f.url);

  if (auto rp = a.tag.get("data-requires-python"); rp && !trim(*rp).empty()) {
    f.requires_python = std::string(trim(*rp));
  }
  if (auto y = a.tag.get("data-yanked")) f.yanked = *y;

  // PEP 714 renamed data-dist-info-metadata to data-core-metadata; prefer the new name.
  auto meta = a.tag.get("data-core-metadata");
  if (!meta) meta = a.tag.get("data-dist-info-metadata");
  if (meta) {
    std::string value(trim(*meta));
    size_t eq = value.find('=');
    if (iequals(value, "true")) {
      f.has_metadata = true;
    } else if (eq != std::string::npos && eq > 0) {
      f.has_metadata = true;
      if (iequals(value.substr(0, eq), "sha256")) f.metadata_sha256 = normalize_sha256_hex(value.substr(eq + 1));
    }
  }
  return f;
}

}  // namespace

std::optional<std::string> normalize_sha256_hex(std::string_view hex) {
  if (hex.size() != 64) return std::nullopt;
  std::string out = ascii_lower(hex);
  for (char c : out) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return std::nullopt;
  }
  return out;
}

void check_repository_version(std::string_view version, std::string_view page_url) {
  std::string_view major = trim(version).substr(0, trim(version).find('.'));
  // Anything that is not a plain number is ignored rather than trusted.
  if (major.empty() || major.size() > 6) return;
  int n = 0;
  for (char c : major) {
    if (c < '0' || c > '9') return;
    n = n * 10 + (c - '0');
  }
  if (n > 1) {
    throw InputError("the package index at " + printable(page_url) + " uses repository API version " +
                         printable(version) + ", but only 1.x is supported",
                     "use an index that serves the PEP 503/691 simple API version 1");
  }
}

ProjectPage parse_project_html(std::string_view html, std::string_view page_url) {
  PageLinks links = collect_links(html, page_url);
  ProjectPage page;
  for (const auto& a : links.anchors) {
    DistFile f = to_dist_file(a, links.base);
    if (!f.filename.empty()) page.files.push_back(std::move(f));
  }
  return page;
}

std::vector<ProjectLink> parse_root_index_html(std::string_view html, std::string_view page_url) {
  PageLinks links = collect_links(html, page_url);
  std::vector<ProjectLink> out;
  for (const auto& a : links.anchors) {
    std::string name(trim(a.text));
    if (name.empty()) continue;
    out.push_back({std::move(name), std::string(net::resolve_url(links.base, trim(*a.tag.get("href"))))});
  }
  return out;
}

}  // namespace rp::python
