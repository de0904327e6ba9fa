#pragma once
// pip's requirements-file format, for the recipe's `requirements:` and `constraints:` files: one PEP 508
// requirement per line, `#` comments, `\` continuations, ${VAR} from the environment, and the options
// that make sense without building anything (-r, -c, -i, --extra-index-url, -f, --no-index, --pre,
// --hash). Whatever would need a source build (-e, --no-binary, sdist paths and URLs) is refused:
// rockpack installs wheels only.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "python/pep508.hpp"

namespace rp::python {

struct RequirementLine {
  Requirement requirement;
  std::string where;                // "path/req.txt:12" (the first line of a continued line)
  std::vector<std::string> hashes;  // sha256 hex digits (lowercase) from --hash=sha256:...
};

struct RequirementsFile {
  std::vector<RequirementLine> requirements;
  std::vector<RequirementLine> constraints;  // from -c/--constraint files (recursively parsed)
  std::optional<std::string> index_url;      // -i/--index-url (last wins)
  std::vector<std::string> extra_index_urls; // --extra-index-url
  std::vector<std::string> find_links;       // -f/--find-links (paths resolved against the file)
  bool no_index = false;                     // --no-index
  bool pre = false;                          // --pre
};

// Parses `file` and everything it includes with -r/--requirement and -c/--constraint (paths relative
// to the including file). Throws rp::InputError naming "file:line" for a bad line, a missing file,
// an include cycle, or requirements without a hash when others have one (pip's hash-checking mode,
// also switched on by --require-hashes).
RequirementsFile parse_requirements_file(const std::filesystem::path& file);

// Appends `from` to `into`: lists concatenate, a set index_url replaces, flags combine with "or".
void merge_into(RequirementsFile& into, RequirementsFile from);

}  // namespace rp::python
