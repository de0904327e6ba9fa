#pragma once
// Installing a wheel as layer entries, the way pip and uv unpack one (packaging.python.org
// "Binary distribution format" and "Recording installed projects"), without unpacking anything:
// members stream from the zip when the layer is written; only rewritten scripts, generated
// launchers and the new RECORD / INSTALLER / REQUESTED are held in memory.
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "entries/entry.hpp"
#include "python/core_metadata.hpp"
#include "python/install_scheme.hpp"
#include "python/pep440.hpp"

namespace rp::python {

struct InstallOptions {
  // The wheel's file name ("pip-23.0.1-py3-none-any.whl"). Needed when the file on disk is a
  // content-store blob; empty means the file's own name.
  std::string filename;
  // Writes REQUESTED: the user asked for this package (not pulled in as a dependency).
  bool requested = false;
  // Checks every member against its RECORD hash and size. Off by default: like pip and uv, the
  // whole-wheel sha256 from the index is the integrity check, and hashing every member of a
  // multi-GB wheel twice is expensive. The CRC-32 of each member is always checked.
  bool verify_record = false;
  // Without verify_record: every member with a sha256 in RECORD is checked as it streams into the
  // layer (python/record_check.hpp), which costs no second read. A mismatch is a warning, once per
  // wheel; with `strict_record` (`rockpack build --strict`) it fails the layer write.
  bool strict_record = false;
  // Told the first mismatch's message (RecordCheck::MismatchHook), and whether the build has reported
  // a mismatch of this wheel already (then the streaming check does not warn a second time).
  std::function<void(const std::string& message)> on_record_mismatch;
  bool record_mismatch_reported = false;
  // The verified "sha256:<hex>" of the wheel file, when the caller has it (a content-store blob
  // checked against the index hash). Lets layer cache keys name members without inflating them;
  // empty means members are hashed when a cache key is needed.
  std::string wheel_digest;
  // Image paths (no leading '/') the environment owns, such as the venv's bin/python3 link: a wheel
  // file that would replace one (a .data/data/bin/python3) is left out, with a warning.
  std::set<std::string> protected_paths;
  // The INSTALLER file's content (one line).
  std::string installer = "rockpack";
};

struct InstalledWheel {
  std::string filename;         // the wheel's file name
  std::string name;             // METADATA Name, as written
  std::string normalized_name;  // PEP 503
  Version version;              // METADATA Version
  std::string dist_info;        // image path of the .dist-info directory (no leading '/')
  std::vector<std::string> files;  // image paths of every installed file, sorted
  // Files (streamed from the wheel or generated) and every directory above them up to the image
  // root; paths relative to the image root, uid/gid 0, origin = the wheel's file name.
  std::vector<Entry> entries;
  std::vector<std::string> warnings;  // things the user may want to know; the install went ahead
  CoreMetadata metadata;
  WheelInfo wheel_info;
};

// Plans the installation of `wheel_file` into `scheme`. Throws rp::InputError for a wheel that
// breaks the format rules (unsafe paths, several or no .dist-info, name or version not matching
// the file name, unknown .data keys, Wheel-Version 2+) and rp::Error for I/O failures. With
// `verify_record`, a member that does not match RECORD is an rp::Error.
InstalledWheel install_wheel(const std::filesystem::path& wheel_file, const InstallScheme& scheme,
                             const InstallOptions& options = {});

}  // namespace rp::python
