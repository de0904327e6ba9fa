#pragma once
// The RECORD file of a .dist-info (packaging.python.org "Recording installed projects"): a CSV of
// `path,hash,size` rows, hash "sha256=<urlsafe base64 without padding>". Paths are relative to the
// directory holding the .dist-info, with '/', and may climb out of it ("../../../bin/pip").
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rp::python {

struct RecordRow {
  std::string path;
  std::string hash;  // "sha256=..." or empty (RECORD's own row, .pyc files)
  std::string size;  // decimal, or empty
};

// Parses RECORD as CSV (quoted fields, doubled quotes, CRLF or LF). Throws rp::InputError naming
// `source` on a row without a path or with more than three fields.
std::vector<RecordRow> parse_record(std::string_view text, std::string_view source = "RECORD");

// Writes rows as CSV with LF line ends, quoting fields that contain ',', '"' or a line break
// (as Python's csv module does).
std::string format_record(const std::vector<RecordRow>& rows);

// "sha256=<urlsafe base64 of the raw digest, without '=' padding>".
std::string record_hash_of_raw_digest(std::string_view raw_sha256);
std::string record_hash(std::string_view content);

// The relative path from directory `from` to `to`, both absolute and normalized ('/'-separated):
// ("/v/lib/python3.11/site-packages", "/v/bin/pip") -> "../../../bin/pip".
std::string relative_path(std::string_view from, std::string_view to);

}  // namespace rp::python
