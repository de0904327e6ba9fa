// METADATA and WHEEL parsing.
#include "python/core_metadata.hpp"

#include <algorithm>

#include "python/text.hpp"
#include "util/error.hpp"

namespace rp::python {

namespace {

// "X.Y" with small non-negative integers; false when malformed.
bool parse_format_version(std::string_view text, int& major, int& minor) {
  auto parts = split(trim(text), '.');
  if (parts.size() != 2) return false;
  int* out[2] = {&major, &minor};
  for (int i = 0; i < 2; ++i) {
    if (parts[i].empty() || parts[i].size() > 6) return false;
    int n = 0;
    for (char c : parts[i]) {
      if (c < '0' || c > '9') return false;
      n = n * 10 + (c - '0');
    }
    *out[i] = n;
  }
  return true;
}

[[noreturn]] void fail(std::string_view source, const std::string& why) {
  throw InputError(std::string(source) + ": " + why, "the package's metadata is malformed; try another version");
}

std::string required(const EmailHeaders& h, std::string_view source, std::string_view field) {
  auto v = h.get(field);
  if (!v || trim(*v).empty()) fail(source, "missing " + std::string(field));
  return std::string(trim(*v));
}

}  // namespace

CoreMetadata CoreMetadata::parse(std::string_view text, std::string_view source) {
  CoreMetadata m;
  m.headers = EmailHeaders::parse(text);
  m.metadata_version = required(m.headers, source, "Metadata-Version");
  int major = 0, minor = 0;
  if (!parse_format_version(m.metadata_version, major, minor)) {
    fail(source, "malformed Metadata-Version '" + printable(m.metadata_version) + "'");
  }
  if (major > 2) {
    fail(source, "Metadata-Version " + m.metadata_version + " is newer than this tool understands (2.x)");
  }
  m.name = required(m.headers, source, "Name");
  std::string version = required(m.headers, source, "Version");
  auto v = Version::try_parse(version);
  if (!v) fail(source, "invalid Version '" + printable(version) + "'");
  m.version = *v;

  for (const auto& value : m.headers.get_all("Requires-Dist")) {
    try {
      m.requires_dist.push_back(Requirement::parse(value));
    } catch (const InputError& e) {
      fail(source, std::string("bad Requires-Dist: ") + e.what());
    }
  }
  if (auto rp = m.headers.get("Requires-Python")) {
    try {
      m.requires_python = SpecifierSet::parse(*rp);
    } catch (const InputError& e) {
      fail(source, std::string("bad Requires-Python: ") + e.what());
    }
  }
  for (const auto& value : m.headers.get_all("Provides-Extra")) {
    std::string extra = normalize_name(trim(value));
    if (!extra.empty() && std::find(m.provides_extra.begin(), m.provides_extra.end(), extra) == m.provides_extra.end()) {
      m.provides_extra.push_back(extra);
    }
  }
  return m;
}

std::string CoreMetadata::normalized_name() const { return normalize_name(name); }

WheelInfo WheelInfo::parse(std::string_view text, std::string_view source) {
  EmailHeaders h = EmailHeaders::parse(text);
  WheelInfo w;
  std::string version = required(h, source, "Wheel-Version");
  if (!parse_format_version(version, w.version_major, w.version_minor)) {
    fail(source, "malformed Wheel-Version '" + printable(version) + "'");
  }
  if (w.version_major != 1) {
    fail(source, "Wheel-Version " + version + " is not supported (only 1.x)");
  }
  // A missing Root-Is-Purelib means platlib, as pip reads it.
  w.root_is_purelib = iequals(trim(h.get("Root-Is-Purelib").value_or("")), "true");
  for (const auto& t : h.get_all("Tag")) w.tags.emplace_back(trim(t));
  w.generator = std::string(trim(h.get("Generator").value_or("")));
  w.build = std::string(trim(h.get("Build").value_or("")));
  return w;
}

}  // namespace rp::python
