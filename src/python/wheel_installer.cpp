// Turning a wheel into layer entries: the rules of wheels.md (binary-distribution-format and
// recording-installed-packages), in the order pip and uv apply them.
#include "python/wheel_installer.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "python/entry_points.hpp"
#include "python/record_check.hpp"
#include "python/script_launcher.hpp"
#include "python/text.hpp"
#include "python/wheel_archive.hpp"
#include "python/wheel_filename.hpp"
#include "python/wheel_record.hpp"
#include "python/zip_member_content.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

namespace rp::python {

namespace {

// Bounds for the members read into memory; generous for real wheels (torch's RECORD is a few MB),
// small enough that a hostile wheel cannot exhaust memory.
constexpr uint64_t kMaxWheelFileSize = 1 << 20;
constexpr uint64_t kMaxInstalledMetadataSize = 64ull << 20;
// RECORD of the largest ROCm wheels (~100k files) is ~15 MB; more is hostile (it is parsed in memory).
constexpr uint64_t kMaxRecordSize = 64ull << 20;
// Warnings kept per wheel; a wheel with millions of bad RECORD rows must not flood the log.
constexpr size_t kMaxWarnings = 20;
constexpr uint64_t kMaxEntryPointsSize = 16ull << 20;
constexpr uint64_t kMaxRewrittenScriptSize = 64ull << 20;

std::string join_path(const std::string& base, std::string_view rest) {
  if (!base.empty() && base.back() == '/') return base + std::string(rest);
  return base + "/" + std::string(rest);
}

// A member's RECORD-style hash ("sha256=<urlsafe b64>") and size, by streaming it.
struct MemberHash {
  std::string record_hash;
  uint64_t size = 0;
};
MemberHash hash_member(const WheelArchive& archive, const ZipMember& member) {
  class RawHashSink final : public ByteSink {
   public:
    void write(const void* data, size_t size) override {
      sha.update(data, size);
      count += size;
    }
    Sha256 sha;
    uint64_t count = 0;
  } sink;
  archive.stream_member(member, sink);
  return MemberHash{record_hash_of_raw_digest(sink.sha.finish_raw()), sink.count};
}

std::string first_component(std::string_view name) { return std::string(name.substr(0, name.find('/'))); }

// One file the wheel puts into the image, before it becomes an Entry.
struct PlannedFile {
  std::string target;  // absolute path in the image
  std::shared_ptr<const ContentSource> content;
  uint32_t mode = 0644;
  RecordRow record;  // path relative to the .dist-info's parent directory
};

class WheelInstall {
 public:
  WheelInstall(const fs::path& wheel_file, const InstallScheme& scheme, const InstallOptions& options)
      : scheme_(scheme), options_(options) {
    result_.filename = options.filename.empty() ? wheel_file.filename().string() : options.filename;
    filename_ = WheelFilename::parse(result_.filename);
    if (!options.wheel_digest.empty()) digest_hex(options.wheel_digest);  // throws on a malformed digest
    archive_ = WheelArchive::open(wheel_file, result_.filename);
    record_check_ = std::make_shared<RecordCheck>(result_.filename, options.strict_record, options.on_record_mismatch,
                                                  options.record_mismatch_reported);
  }

  InstalledWheel run() {
    find_dist_info();
    read_metadata();
    plan_members();
    plan_launchers();
    plan_dist_info_files();
    build_entries();
    if (dropped_warnings_)
      result_.warnings.push_back("... and " + std::to_string(dropped_warnings_) + " more warning" +
                                 (dropped_warnings_ == 1 ? "" : "s") + " about this wheel");
    return std::move(result_);
  }

 private:
  // Deduplicated and capped (kMaxWarnings); quoted names are shortened by the caller's text.
  void warn(std::string text) {
    if (text.size() > 1000) text = text.substr(0, 1000) + "...";
    if (std::find(result_.warnings.begin(), result_.warnings.end(), text) != result_.warnings.end()) return;
    if (result_.warnings.size() >= kMaxWarnings) {
      ++dropped_warnings_;
      return;
    }
    result_.warnings.push_back(std::move(text));
  }

  [[noreturn]] void fail(const std::string& what, const std::string& hint = {}) const {
    throw InputError(result_.filename + ": " + what, hint.empty() ? "the wheel is malformed" : hint);
  }

  const ZipMember& require_member(const std::string& name) const {
    const ZipMember* m = archive_->find(name);
    if (!m || m->is_directory()) fail("has no " + name);
    return *m;
  }

  // Exactly one top-level "<name>-<version>.dist-info/" directory, named for this project.
  void find_dist_info() {
    std::set<std::string> found;
    for (const auto& m : archive_->members()) {
      size_t slash = m.name.find('/');
      if (slash == std::string::npos) continue;
      std::string top = m.name.substr(0, slash);
      if (top.ends_with(".dist-info")) found.insert(top);
    }
    if (found.empty()) fail("has no .dist-info directory");
    if (found.size() > 1) fail("has " + std::to_string(found.size()) + " .dist-info directories (" + *found.begin() +
                               ", " + *std::next(found.begin()) + ")");
    dist_info_dir_ = *found.begin();
    std::string stem = dist_info_dir_.substr(0, dist_info_dir_.size() - std::string(".dist-info").size());
    size_t dash = stem.rfind('-');
    if (dash == std::string::npos || normalize_name(stem.substr(0, dash)) != filename_.normalized_name())
      fail("its .dist-info directory '" + dist_info_dir_ + "' does not belong to '" + filename_.name + "'");
    data_dir_ = stem + ".data";
  }

  void read_metadata() {
    std::string prefix = dist_info_dir_ + "/";
    result_.wheel_info = WheelInfo::parse(
        archive_->read_member(require_member(prefix + "WHEEL"), kMaxWheelFileSize), prefix + "WHEEL");
    if (result_.wheel_info.version_minor > 0)
      warn(result_.filename + ": Wheel-Version " + std::to_string(result_.wheel_info.version_major) +
                                 "." + std::to_string(result_.wheel_info.version_minor) +
                                 " is newer than 1.0, which this installer implements");
    result_.metadata = CoreMetadata::parse(
        archive_->read_member(require_member(prefix + "METADATA"), kMaxInstalledMetadataSize), prefix + "METADATA");
    result_.name = result_.metadata.name;
    result_.normalized_name = result_.metadata.normalized_name();
    result_.version = result_.metadata.version;
    if (result_.normalized_name != filename_.normalized_name())
      fail("METADATA names the project '" + result_.metadata.name + "', the file name says '" + filename_.name + "'",
           "the wheel was renamed or built wrongly");
    // Only the local label may differ (some indexes serve "+cpu"/"+rocm" builds under plain names).
    if (result_.version.without_local() != filename_.version.without_local())
      fail("METADATA says version " + result_.version.to_string() + ", the file name says " +
               filename_.version.to_string(),
           "the wheel was renamed or built wrongly");

    for (auto& row : parse_record(archive_->read_member(require_member(prefix + "RECORD"), kMaxRecordSize),
                                  prefix + "RECORD")) {
      std::string path = row.path;
      record_.emplace(std::move(path), std::move(row));
    }
    if (const ZipMember* ep = archive_->find(prefix + "entry_points.txt")) {
      auto parsed = EntryPoints::parse(archive_->read_member(*ep, kMaxEntryPointsSize), prefix + "entry_points.txt");
      for (auto& e : parsed.console_scripts()) launchers_.push_back(std::move(e));
      for (auto& e : parsed.gui_scripts()) launchers_.push_back(std::move(e));
    }
    for (const auto& e : launchers_) launcher_names_.insert(e.name);

    root_dir_ = result_.wheel_info.root_is_purelib ? scheme_.purelib : scheme_.platlib;
    result_.dist_info = image_path(join_path(root_dir_, dist_info_dir_));
  }

  std::string image_path(const std::string& absolute) const {
    return normalize_image_path(absolute, result_.filename);
  }

  // Where a member goes, or empty when it is not installed. Sets `is_script`.
  std::string target_of(const ZipMember& m, bool& is_script) const {
    is_script = false;
    std::string top = first_component(m.name);
    if (top != data_dir_) return join_path(root_dir_, m.name);
    // "<name>-<ver>.data/<key>/<rest>"
    std::string_view after = std::string_view(m.name).substr(top.size());
    if (after.empty() || after == "/") {
      if (!m.is_directory()) fail("'" + m.name + "' is a file where the .data directory belongs");
      return {};
    }
    after.remove_prefix(1);
    size_t slash = after.find('/');
    std::string key(after.substr(0, slash));
    std::string_view rest = slash == std::string_view::npos ? std::string_view() : after.substr(slash + 1);
    if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
    std::string base;
    if (key == "purelib") base = scheme_.purelib;
    else if (key == "platlib") base = scheme_.platlib;
    else if (key == "scripts") base = scheme_.scripts, is_script = true;
    else if (key == "data") base = scheme_.data;
    else if (key == "headers") base = scheme_.headers_for(result_.name);
    else
      fail("has an unknown .data directory '" + data_dir_ + "/" + key + "'",
           "only purelib, platlib, scripts, data and headers are defined for wheels");
    if (rest.empty()) {
      if (!m.is_directory()) fail("'" + m.name + "' is a file where a .data directory belongs");
      return {};
    }
    return join_path(base, rest);
  }

  void plan_members() {
    std::string record_member = dist_info_dir_ + "/RECORD";
    // Files this installer writes itself; a wheel's own copies would only collide with them.
    std::set<std::string> generated = {record_member, dist_info_dir_ + "/INSTALLER", dist_info_dir_ + "/REQUESTED"};
    for (const auto& m : archive_->members()) {
      if (generated.count(m.name)) continue;
      bool is_script = false;
      std::string target = target_of(m, is_script);
      if (target.empty()) continue;
      if (m.is_directory()) {
        directories_.insert(image_path(target));
        continue;
      }
      if (is_script && launcher_skipped(m.name)) continue;  // an entry point of the same name wins
      auto row = record_.find(m.name);
      if (row != record_.end()) used_record_rows_.insert(m.name);
      if (options_.verify_record) verify_against_record(m, row == record_.end() ? nullptr : &row->second);
      PlannedFile file;
      file.target = target;
      file.record.path = relative_path(root_dir_, target);
      file.mode = (m.unix_mode() & 0111) ? 0755 : 0644;
      if (is_script) {
        file.mode = 0755;
        if (has_python_placeholder(archive_->read_prefix(m, 8))) {
          std::string text = archive_->read_member(m, kMaxRewrittenScriptSize);
          std::string rewritten = replace_placeholder_shebang(text, scheme_.python);
          file.record.hash = record_hash(rewritten);
          file.record.size = std::to_string(rewritten.size());
          file.content = std::make_shared<InlineContent>(std::move(rewritten));
          add_file(std::move(file), m.name);
          continue;
        }
      }
      auto content = std::make_shared<ZipMemberContent>(archive_, m, options_.wheel_digest);
      if (row != record_.end() && !row->second.hash.empty()) {
        file.record.hash = row->second.hash;
        file.record.size = row->second.size.empty() ? std::to_string(m.uncompressed_size) : row->second.size;
        // verify_record has checked it already; otherwise it is checked on its way into the layer.
        if (!options_.verify_record && RecordCheck::checkable(row->second.hash))
          content->check_record(record_check_, row->second.hash, row->second.size);
        file.content = std::move(content);
      } else {
        file.content = std::move(content);
        // Not hashed in RECORD: hash it now so that the installed RECORD is complete. The rules of
        // pip and the wheel spec allow no hash for .pyc files and RECORD's signatures: no warning.
        if (!may_lack_hash(m.name)) warn(result_.filename + ": '" + m.name + "' is not listed with a hash in RECORD");
        MemberHash hashed = hash_member(*archive_, m);
        file.record.hash = hashed.record_hash;
        file.record.size = std::to_string(hashed.size);
      }
      add_file(std::move(file), m.name);
    }
    for (const auto& [path, row] : record_) {
      if (!used_record_rows_.count(path) && !generated.count(path) && !launcher_skipped(path))
        warn(result_.filename + ": RECORD lists '" + path + "', which the wheel does not contain");
    }
  }

  // Members a RECORD may list without a hash: compiled bytecode (regenerated by installers) and the
  // signatures of RECORD itself (RECORD.jws, RECORD.p7s; RECORD's own row is never read here).
  bool may_lack_hash(const std::string& member_name) const {
    return member_name.ends_with(".pyc") || member_name == dist_info_dir_ + "/RECORD.jws" ||
           member_name == dist_info_dir_ + "/RECORD.p7s";
  }

  // A .data/scripts file dropped in favour of an entry point still has its RECORD row.
  bool launcher_skipped(const std::string& member_name) const {
    std::string prefix = data_dir_ + "/scripts/";
    return member_name.starts_with(prefix) && launcher_names_.count(member_name.substr(prefix.size()));
  }

  void verify_against_record(const ZipMember& m, const RecordRow* row) const {
    if ((!row || row->hash.empty()) && may_lack_hash(m.name)) return;
    if (!row || row->hash.empty())
      throw Error(result_.filename + ": '" + m.name + "' is not listed with a hash in RECORD",
                  "the wheel is inconsistent; rebuild it");
    if (!row->hash.starts_with("sha256="))
      throw Error(result_.filename + ": RECORD hashes '" + m.name + "' with an unsupported algorithm (" + row->hash + ")");
    MemberHash actual = hash_member(*archive_, m);
    if (actual.record_hash != row->hash || (!row->size.empty() && row->size != std::to_string(actual.size)))
      throw Error(result_.filename + ": '" + m.name + "' does not match its RECORD entry (" + row->hash + ", " +
                      row->size + " bytes; found " + actual.record_hash + ", " + std::to_string(actual.size) +
                      " bytes)",
                  "the wheel is corrupt or was modified after it was built");
  }

  void add_file(PlannedFile file, const std::string& source) {
    std::string path = image_path(file.target);
    if (options_.protected_paths.count(path)) {
      warn("'" + source + "' would replace /" + path +
                                 " of the environment; it was left out (the environment's is kept)");
      return;
    }
    auto [it, inserted] = file_sources_.emplace(path, source);
    if (!inserted)
      fail("'" + source + "' and '" + it->second + "' would both be installed as /" + path);
    files_.push_back(std::move(file));
  }

  void plan_launchers() {
    for (const auto& e : launchers_) {
      std::string text = entry_point_launcher(e, scheme_.python);
      PlannedFile file;
      file.target = join_path(scheme_.scripts, e.name);
      file.mode = 0755;
      file.record = RecordRow{relative_path(root_dir_, file.target), record_hash(text), std::to_string(text.size())};
      file.content = std::make_shared<InlineContent>(std::move(text));
      add_file(std::move(file), "entry point '" + e.name + "' (" + e.group + ")");
    }
  }

  void add_generated_dist_info_file(const std::string& name, std::string text) {
    PlannedFile file;
    file.target = join_path(root_dir_, dist_info_dir_ + "/" + name);
    file.record = RecordRow{dist_info_dir_ + "/" + name, record_hash(text), std::to_string(text.size())};
    file.content = std::make_shared<InlineContent>(std::move(text));
    add_file(std::move(file), "generated " + name);
  }

  void plan_dist_info_files() {
    add_generated_dist_info_file("INSTALLER", options_.installer + "\n");
    if (options_.requested) add_generated_dist_info_file("REQUESTED", "");
    std::vector<RecordRow> rows;
    rows.reserve(files_.size() + 1);
    for (const auto& f : files_) rows.push_back(f.record);
    rows.push_back(RecordRow{dist_info_dir_ + "/RECORD", "", ""});
    PlannedFile record;
    record.target = join_path(root_dir_, dist_info_dir_ + "/RECORD");
    record.content = std::make_shared<InlineContent>(format_record(rows));
    add_file(std::move(record), "generated RECORD");
  }

  void build_entries() {
    for (auto& f : files_) {
      Entry e;
      e.path = image_path(f.target);
      e.type = EntryType::kFile;
      e.mode = f.mode;
      e.content = std::move(f.content);
      e.origin = result_.filename;
      result_.files.push_back(e.path);
      for (size_t slash = e.path.rfind('/'); slash != std::string::npos; slash = e.path.rfind('/', slash - 1)) {
        directories_.insert(e.path.substr(0, slash));
        if (slash == 0) break;
      }
      result_.entries.push_back(std::move(e));
    }
    for (const auto& dir : directories_) {
      if (file_sources_.count(dir)) fail("installs /" + dir + " both as a file and as a directory");
      Entry e;
      e.path = dir;
      e.type = EntryType::kDirectory;
      e.mode = 0755;
      e.origin = result_.filename;
      result_.entries.push_back(std::move(e));
    }
    std::sort(result_.files.begin(), result_.files.end());
    std::sort(result_.entries.begin(), result_.entries.end(),
              [](const Entry& a, const Entry& b) { return a.path < b.path; });
  }

  const InstallScheme& scheme_;
  const InstallOptions& options_;
  InstalledWheel result_;
  WheelFilename filename_;
  std::shared_ptr<const WheelArchive> archive_;
  std::shared_ptr<RecordCheck> record_check_;  // shared by the members' content sources
  std::string dist_info_dir_;  // "pip-23.0.1.dist-info"
  std::string data_dir_;       // "pip-23.0.1.data"
  std::string root_dir_;       // purelib or platlib
  std::unordered_map<std::string, RecordRow> record_;
  std::set<std::string> used_record_rows_;
  size_t dropped_warnings_ = 0;
  std::vector<EntryPoint> launchers_;
  std::set<std::string> launcher_names_;
  std::vector<PlannedFile> files_;
  std::map<std::string, std::string> file_sources_;  // image path -> what put it there
  std::set<std::string> directories_;                // image paths
};

}  // namespace

InstalledWheel install_wheel(const std::filesystem::path& wheel_file, const InstallScheme& scheme,
                             const InstallOptions& options) {
  return WheelInstall(wheel_file, scheme, options).run();
}

}  // namespace rp::python
