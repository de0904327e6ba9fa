// The report as Markdown for a GitHub step summary ($GITHUB_STEP_SUMMARY): GitHub-flavoured tables,
// every cell escaped so that a name with '|' or a newline cannot break a row.
#include <cstdio>
#include <sstream>

#include "report/report.hpp"
#include "util/strings.hpp"

namespace rp::report {

namespace {

std::string cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else if (c == '`') out += '\'';  // cells put names in code spans; a backtick would end one
    else out += c;
  }
  return out;
}

std::string code(const std::string& s) { return s.empty() ? std::string("—") : "`" + cell(s) + "`"; }

std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string secs(double s) { return format("%.1f s", s); }

std::string short_digest(const std::string& d) {
  return d.starts_with("sha256:") && d.size() >= 19 ? d.substr(7, 12) : d;
}

std::string signed_mb(double mb) { return format(mb >= 0 ? "+%.2f MB" : "%.2f MB", mb); }

void packages_table(std::ostringstream& out, const char* title, const std::vector<Package>& list) {
  if (list.empty()) return;
  out << "\n**" << title << "** (" << list.size() << ")\n\n| kind | package | version |\n|---|---|---|\n";
  for (const auto& p : list) out << "| " << cell(std::string(inventory_kind_name(p.kind))) << " | " << code(p.name) << " | " << code(p.version) << " |\n";
}

}  // namespace

std::string to_markdown(const Report& r) {
  std::ostringstream out;
  const Totals& t = r.totals;
  out << "## " << cell(r.recipe.empty() ? "image" : r.recipe) << "\n\n";
  out << "Image: " << code(r.image_digest) << "\n";
  if (!r.tags.empty()) {
    out << "Tags:";
    for (const auto& tag : r.tags) out << " " << code(tag);
    out << "\n";
  }
  if (!r.base.empty()) out << "Base: " << code(r.base) << " (" << code(r.base_digest) << ")\n";
  out << "SOURCE_DATE_EPOCH: " << r.source_date_epoch << " (" << cell(r.created) << ")\n";
  for (const auto& p : r.packages)  // what a ROCm image is about, on its first lines
    if (p.name == "rocm") out << "ROCm: " << code(p.version) << "\n";
  out << "Pushed: ";
  if (r.pushed.empty()) out << "nothing";
  for (size_t i = 0; i < r.pushed.size(); ++i) out << (i ? ", " : "") << code(r.pushed[i]);
  out << "\n\n";

  out << "| total | |\n|---|---|\n";
  out << "| image size (compressed) | " << human_bytes(t.image_size) << " |\n";
  out << "| new layers, uncompressed | " << human_bytes(t.uncompressed_size) << " |\n";
  out << "| layers | " << t.layers << ": " << t.layers_from_base << " from the base, " << t.layers_cached
      << " from the cache, " << t.layers_built << " built |\n";
  out << "| build time | " << secs(t.build_seconds) << " (plan " << secs(t.plan_seconds) << ", layers "
      << secs(t.assemble_seconds) << ", outputs " << secs(t.output_seconds) << ", push " << secs(t.push_seconds)
      << ") |\n";
  out << "| packages | " << r.packages.size() << " |\n";

  const bool compared = r.comparison.has_value();
  out << "\n### Layers\n\n| step | layer | digest | compressed | uncompressed | entries | time | cache |"
      << (compared ? " previous |" : "") << "\n|---|---|---|---:|---:|---:|---:|---|" << (compared ? "---|" : "") << "\n";
  for (const auto& l : r.layers) {
    const bool base = l.step == "base";
    out << "| " << cell(l.step) << " | " << cell(l.name) << " | " << code(short_digest(l.digest)) << " | " << human_bytes(l.size)
        << " | " << (l.uncompressed_size ? human_bytes(*l.uncompressed_size) : "—") << " | "
        << (l.entries ? std::to_string(*l.entries) : "—") << " | " << (base ? "—" : secs(l.seconds)) << " | "
        << (base ? "base" : l.cache_hit ? "hit" : "built") << " |";
    if (compared) out << " " << (l.in_previous.value_or(false) ? "reused" : "new") << " |";
    out << "\n";
  }

  if (!r.steps.empty()) {
    out << "\n### Steps\n\n| step | plan | layers | layers written | cache hits |\n|---|---:|---:|---:|---|\n";
    for (const auto& s : r.steps)
      out << "| " << cell(s.name) << " | " << secs(s.plan_seconds) << " | " << s.layers << " | "
          << secs(s.assemble_seconds) << " | " << s.cache_hits << "/" << s.layers << " |\n";
  }

  if (compared) {
    const Comparison& c = *r.comparison;
    out << "\n### Compared with " << code(c.previous) << "\n\n";
    if (!c.previous_digest.empty()) out << "Previous image: " << code(c.previous_digest) << "\n\n";
    out << "| delta | |\n|---|---|\n";
    out << "| size | " << signed_mb(megabytes(c.size_delta_bytes)) << " |\n";
    out << "| build time | "
        << (c.duration_delta_s ? format(*c.duration_delta_s >= 0 ? "+%.1f s" : "%.1f s", *c.duration_delta_s)
                               : std::string("unknown"))
        << (c.duration_note.empty() ? "" : " (" + cell(c.duration_note) + ")") << " |\n";
    out << "| layers | " << c.layers_reused << " reused, " << c.layers_rebuilt << " rebuilt |\n";
    out << "| packages | " << c.changed.size() << " changed, " << c.added.size() << " added, " << c.removed.size()
        << " removed" << (c.packages_note.empty() ? "" : " (" + cell(c.packages_note) + ")") << " |\n";
    if (!c.changed.empty()) {
      out << "\n**Changed packages** (" << c.changed.size() << ")\n\n| kind | package | old | new |\n|---|---|---|---|\n";
      for (const auto& p : c.changed)
        out << "| " << cell(std::string(inventory_kind_name(p.kind))) << " | " << code(p.name) << " | " << code(p.old_version) << " | "
            << code(p.new_version) << " |\n";
    }
    packages_table(out, "Added packages", c.added);
    packages_table(out, "Removed packages", c.removed);
    if (c.changed.empty() && c.added.empty() && c.removed.empty()) out << "\nNo package changed.\n";
  }
  return out.str();
}

}  // namespace rp::report
