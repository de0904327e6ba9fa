// The devel tree expansion (`rocm-sdk init` at build time), on the mock index generator's real
// wheels and on hand-made tarballs for the corner cases the generator does not produce.
#include <archive.h>
#include <archive_entry.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "assemble/layer_builder.hpp"
#include "assemble/store_archives.hpp"
#include "python/install_plan.hpp"
#include "python/wheel_installer.hpp"
#include "test_helpers.hpp"
#include "therock/devel_expansion.hpp"
#include "util/byte_sink.hpp"
#include "util/digest.hpp"
#include "util/fs.hpp"
#include "util/error.hpp"

namespace {

using rp::Entry;
using rp::EntryType;
using rp::python::InstalledWheel;
namespace fs = std::filesystem;

const std::string kSite = "opt/venv/lib/python3.11/site-packages";

bool have_python3() { return std::system("python3 -c 'import sys' >/dev/null 2>&1") == 0; }

// Runs the mock index generator into `out`; false (with a message) when python3 is missing.
bool generate_index(const fs::path& out, const std::string& args) {
  if (!have_python3()) {
    MESSAGE("python3 not found: skipping the generated-wheel case");
    return false;
  }
  std::string command = "python3 '" ROCKPACK_SOURCE_DIR "/tests/tools/make_therock_index.py' '" + out.string() +
                        "' --versions 7.10.0a20251120 " + args + " >/dev/null";
  REQUIRE(std::system(command.c_str()) == 0);
  return true;
}

// Installs the rocm_sdk_* wheels of `dir` into a venv scheme, in file name order.
std::vector<InstalledWheel> install_rocm_wheels(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("rocm_sdk_", 0) == 0 && e.path().extension() == ".whl")
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  auto scheme = rp::python::InstallScheme::venv("/opt/venv", 3, 11);
  std::vector<InstalledWheel> wheels;
  for (const auto& f : files) wheels.push_back(rp::python::install_wheel(f, scheme));
  return wheels;
}

const Entry* find_entry(const std::vector<InstalledWheel>& wheels, const std::string& site_path) {
  for (const auto& w : wheels)
    for (const auto& e : w.entries)
      if (e.path == kSite + "/" + site_path) return &e;
  return nullptr;
}

const InstalledWheel& wheel_named(const std::vector<InstalledWheel>& wheels, const std::string& name) {
  for (const auto& w : wheels)
    if (w.normalized_name == name) return w;
  FAIL("no wheel " << name);
  throw std::logic_error("unreachable");
}

std::string read_content(const Entry& e) {
  REQUIRE(e.content);
  rp::StringSink sink;
  e.content->write_to(sink);
  return sink.take();
}

std::string record_of(const InstalledWheel& w) {
  const Entry* record = nullptr;
  for (const auto& e : w.entries)
    if (e.path == w.dist_info + "/RECORD") record = &e;
  REQUIRE(record);
  return read_content(*record);
}

// --- hand-made wheels and tarballs --------------------------------------------------------------

struct TarSpec {
  std::string path;
  char type = 'f';  // 'f' file, 'd' directory, 's' symlink, 'h' hardlink
  std::string data;  // file content or link target
};

std::string make_tar(const std::vector<TarSpec>& members, bool xz = false) {
  std::vector<char> buffer(1 << 20);
  size_t used = 0;
  archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  if (xz) REQUIRE(archive_write_add_filter_xz(a) == ARCHIVE_OK);
  archive_write_set_bytes_in_last_block(a, 1);
  REQUIRE(archive_write_open_memory(a, buffer.data(), buffer.size(), &used) == ARCHIVE_OK);
  for (const auto& m : members) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, m.path.c_str());
    archive_entry_set_perm(e, m.type == 'd' ? 0755 : 0644);
    if (m.type == 'f' || m.type == 'h') archive_entry_set_filetype(e, AE_IFREG);
    if (m.type == 'd') archive_entry_set_filetype(e, AE_IFDIR);
    if (m.type == 's') {
      archive_entry_set_filetype(e, AE_IFLNK);
      archive_entry_set_symlink(e, m.data.c_str());
    }
    if (m.type == 'h') archive_entry_set_hardlink(e, m.data.c_str());
    if (m.type == 'f') archive_entry_set_size(e, static_cast<la_int64_t>(m.data.size()));
    REQUIRE(archive_write_header(a, e) == ARCHIVE_OK);
    if (m.type == 'f') archive_write_data(a, m.data.data(), m.data.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
  return std::string(buffer.data(), used);
}

// Counts how often the bytes are read: a warm expansion must not read the tarball at all.
class CountingContent final : public rp::ContentSource {
 public:
  explicit CountingContent(std::string bytes) : inner_(std::move(bytes)) {}
  uint64_t size() const override { return inner_.size(); }
  void write_to(rp::ByteSink& sink) const override {
    ++reads;
    inner_.write_to(sink);
  }
  std::string content_key() const override { return inner_.content_key(); }
  std::string describe() const override { return "test tarball"; }
  mutable int reads = 0;

 private:
  rp::InlineContent inner_;
};

// A wheel as the installer would leave it: the files (site-relative), their directories and RECORD.
InstalledWheel hand_wheel(const std::string& name, const std::vector<std::pair<std::string, std::shared_ptr<const rp::ContentSource>>>& files) {
  InstalledWheel w;
  w.normalized_name = name;
  w.filename = name + "-1.0-py3-none-any.whl";
  w.dist_info = kSite + "/" + name + "-1.0.dist-info";
  std::string record;
  auto add_file = [&](const std::string& path, std::shared_ptr<const rp::ContentSource> content) {
    Entry e;
    e.path = path;
    e.content = std::move(content);
    e.origin = w.filename;
    w.entries.push_back(e);
    w.files.push_back(path);
    for (std::string dir = rp::fs::path(path).parent_path().string(); !dir.empty();
         dir = rp::fs::path(dir).parent_path().string()) {
      if (std::any_of(w.entries.begin(), w.entries.end(), [&](const Entry& x) { return x.path == dir; })) break;
      Entry d;
      d.path = dir;
      d.type = EntryType::kDirectory;
      d.mode = 0755;
      d.origin = w.filename;
      w.entries.push_back(d);
    }
  };
  for (const auto& [path, content] : files) {
    add_file(kSite + "/" + path, content);
    record += path + ",sha256=x," + std::to_string(content->size()) + "\n";
  }
  record += name + "-1.0.dist-info/RECORD,,\n";
  add_file(w.dist_info + "/RECORD", std::make_shared<rp::InlineContent>(record));
  return w;
}

std::shared_ptr<const rp::ContentSource> text(const std::string& s) { return std::make_shared<rp::InlineContent>(s); }

InstalledWheel devel_wheel(const std::string& tar) {
  return hand_wheel("rocm-sdk-devel", {{"rocm_sdk_devel/__init__.py", text("")}, {"rocm_sdk_devel/_devel.tar", text(tar)}});
}

void check_layer_accepts(const std::vector<InstalledWheel>& wheels) {
  auto entries = rp::python::merge_installed_wheels(wheels);
  CHECK_NOTHROW(rp::finalize_entries(entries));
}

}  // namespace

TEST_CASE("therock/devel_expansion: the generator's per-family wheels expand like rocm-sdk init") {
  rp::test::TempDir dir;
  if (!generate_index(dir.path / "index", "--family gfx94X-dcgpu")) return;
  auto wheels = install_rocm_wheels(dir.path / "index/gfx94X-dcgpu");
  REQUIRE(wheels.size() == 3);  // core, devel, libraries
  rp::ContentStore store(dir.path / "store");

  auto result = rp::therock::expand_devel(rp::StoreArchiveOpener(store), wheels, kSite);
  CHECK(result.expanded);
  CHECK(result.files == 9);      // __init__.py, 6 headers, hip-config.cmake, hipcc
  // 7 launchers, lib/llvm, and lib/libamdhip64.so, whose target comes later in the tarball
  CHECK(result.symlinks == 9);
  CHECK(result.hardlinks == 5);  // 3 core libraries, hipconfig, rocminfo
  CHECK(result.device_links == 0);

  // The tarball is gone from the entries and the file list; RECORD still lists it, as after
  // `rocm-sdk init` (which only appends).
  const auto& devel = wheel_named(wheels, "rocm-sdk-devel");
  CHECK(find_entry(wheels, "rocm_sdk_devel/_devel.tar") == nullptr);
  CHECK(std::find(devel.files.begin(), devel.files.end(), kSite + "/rocm_sdk_devel/_devel.tar") == devel.files.end());
  std::string record = record_of(devel);
  CHECK(record.find("rocm_sdk_devel/_devel.tar,sha256=") != std::string::npos);
  CHECK(record.find("rocm_sdk_devel/__init__.py,sha256=") != std::string::npos);
  CHECK(record.find("\n_rocm_sdk_devel/include/hip/hip_runtime.h,,\n") != std::string::npos);
  CHECK(record.find("\n_rocm_sdk_devel/lib/llvm,,\n") != std::string::npos);
  CHECK(record.find("\n_rocm_sdk_devel/lib/libamdhip64.so.7,,\n") != std::string::npos);
  CHECK(record.find("_rocm_sdk_devel/include,,") == std::string::npos);  // directories are not recorded
  CHECK(std::is_sorted(devel.files.begin(), devel.files.end()));
  CHECK(std::find(devel.files.begin(), devel.files.end(), kSite + "/_rocm_sdk_devel/bin/hipcc") != devel.files.end());

  const Entry* header = find_entry(wheels, "_rocm_sdk_devel/include/hip/hip_runtime.h");
  REQUIRE(header);
  CHECK(header->type == EntryType::kFile);
  CHECK(read_content(*header).rfind("// hip/hip_runtime.h: mock ROCm header", 0) == 0);
  const Entry* hipcc = find_entry(wheels, "_rocm_sdk_devel/bin/hipcc");
  REQUIRE(hipcc);
  CHECK(hipcc->mode == 0755);

  const Entry* so7 = find_entry(wheels, "_rocm_sdk_devel/lib/libamdhip64.so.7");
  REQUIRE(so7);
  CHECK(so7->type == EntryType::kHardlink);
  CHECK(so7->link_target == kSite + "/_rocm_sdk_core/lib/libamdhip64.so.7");
  // The hardlink lives with the file it shares (core's wheel, so core's layer); RECORD is devel's.
  const auto& core = wheel_named(wheels, "rocm-sdk-core");
  CHECK(std::any_of(core.entries.begin(), core.entries.end(),
                    [](const Entry& e) { return e.path == kSite + "/_rocm_sdk_devel/lib/libamdhip64.so.7"; }));
  CHECK(std::any_of(core.entries.begin(), core.entries.end(),
                    [](const Entry& e) { return e.path == kSite + "/_rocm_sdk_devel/lib" && e.type == EntryType::kDirectory; }));
  const Entry* so = find_entry(wheels, "_rocm_sdk_devel/lib/libamdhip64.so");
  REQUIRE(so);
  CHECK(so->type == EntryType::kSymlink);  // its target was not there yet when rocm-sdk init reached it
  CHECK(so->link_target == "libamdhip64.so.7");
  const Entry* hipconfig = find_entry(wheels, "_rocm_sdk_devel/bin/hipconfig");
  REQUIRE(hipconfig);
  CHECK(hipconfig->type == EntryType::kHardlink);
  CHECK(hipconfig->mode == 0755);
  const Entry* core_lib = find_entry(wheels, "_rocm_sdk_core/lib/libamdhip64.so.7");
  REQUIRE(core_lib);
  CHECK(core_lib->type == EntryType::kFile);  // "_rocm_sdk_core" sorts first: the content stays

  const Entry* llvm = find_entry(wheels, "_rocm_sdk_devel/lib/llvm");
  REQUIRE(llvm);
  CHECK(llvm->type == EntryType::kSymlink);
  CHECK(llvm->link_target == "../../_rocm_sdk_core/lib/llvm");
  const Entry* launcher = find_entry(wheels, "_rocm_sdk_devel/bin/amdclang++");
  REQUIRE(launcher);
  CHECK(launcher->type == EntryType::kSymlink);
  CHECK(launcher->link_target == "../../_rocm_sdk_core/lib/llvm/bin/amdclang++");

  // One layer: hardlinks land in the tar as hardlinks, after their target.
  auto entries = rp::python::merge_installed_wheels(wheels);
  REQUIRE_NOTHROW(rp::finalize_entries(entries));
  rp::LayerBuilder builder(store, {rp::Compression::parse("gzip"), 0, 1, false});
  auto built = builder.build("rocm", entries);
  auto members = rp::test::read_tar(store.read_all(built.layer.blob.digest));
  auto member = [&](const std::string& site_path) -> const rp::test::TarMember* {
    for (const auto& m : members)
      if (m.path == kSite + "/" + site_path) return &m;
    return nullptr;
  };
  const auto* hard = member("_rocm_sdk_devel/lib/libamdhip64.so.7");
  REQUIRE(hard);
  CHECK(hard->hardlink == kSite + "/_rocm_sdk_core/lib/libamdhip64.so.7");
  const auto* sym = member("_rocm_sdk_devel/lib/llvm");
  REQUIRE(sym);
  CHECK(sym->type == AE_IFLNK);
  const auto* h = member("_rocm_sdk_devel/include/hip/hip_runtime.h");
  REQUIRE(h);
  CHECK(h->data == read_content(*header));
}

TEST_CASE("therock/devel_expansion: the tarball copied from the wheel file before the scheme is known") {
  // The rocm step copies it as soon as the prefetch has the wheel, while the base is still read;
  // the install (any scheme) must then find the copy, so the 1.5 GB stream is inflated once.
  rp::test::TempDir dir;
  if (!generate_index(dir.path / "index", "--family gfx94X-dcgpu")) return;
  fs::path devel_file;
  for (const auto& e : fs::directory_iterator(dir.path / "index/gfx94X-dcgpu"))
    if (e.path().filename().string().rfind("rocm_sdk_devel-", 0) == 0) devel_file = e.path();
  REQUIRE(!devel_file.empty());
  rp::ContentStore store(dir.path / "store");
  const std::string digest = rp::sha256_digest(rp::read_file(devel_file));
  const std::string filename = devel_file.filename().string();

  fs::path core_file;
  for (const auto& e : fs::directory_iterator(dir.path / "index/gfx94X-dcgpu"))
    if (e.path().filename().string().rfind("rocm_sdk_core-", 0) == 0) core_file = e.path();
  CHECK_FALSE(rp::therock::prepare_devel_file(rp::StoreArchiveOpener(store), core_file, core_file.filename().string(), ""));
  CHECK(rp::therock::prepare_devel_file(rp::StoreArchiveOpener(store), devel_file, filename, digest));

  rp::python::InstallOptions options;
  options.filename = filename;
  options.wheel_digest = digest;
  auto installed = rp::python::install_wheel(devel_file, rp::python::InstallScheme::venv("/opt/venv", 3, 11), options);
  const Entry* tarball = nullptr;
  for (const auto& e : installed.entries)
    if (e.path == kSite + "/rocm_sdk_devel/_devel.tar") tarball = &e;
  REQUIRE(tarball);
  auto copy = store.get_record("archive-copy", tarball->content->content_key());
  REQUIRE(copy);
  CHECK(store.contains((*copy)["blob"].get<std::string>()));
  CHECK(store.read_all((*copy)["blob"].get<std::string>()) == read_content(*tarball));
}

TEST_CASE("therock/devel_expansion: multi-arch device links") {
  rp::test::TempDir dir;
  if (!generate_index(dir.path / "index", "--layout multi-arch --target gfx942")) return;
  auto wheels = install_rocm_wheels(dir.path / "index");
  REQUIRE(wheels.size() == 4);  // core, devel, device-gfx942, libraries
  rp::ContentStore store(dir.path / "store");

  CHECK(rp::therock::own_shared_files(wheels, kSite) == 1);  // _rocm_sdk_libraries/__init__.py
  CHECK(std::none_of(wheel_named(wheels, "rocm-sdk-device-gfx942").entries.begin(),
                     wheel_named(wheels, "rocm-sdk-device-gfx942").entries.end(),
                     [](const Entry& e) { return e.path == kSite + "/_rocm_sdk_libraries/__init__.py"; }));
  auto result = rp::therock::expand_devel(rp::StoreArchiveOpener(store), wheels, kSite);
  CHECK(result.expanded);
  CHECK(result.device_links == 4);  // a .kpack, a .kdb and 2 Tensile files
  CHECK(result.hardlinks == 13);    // the tree's 5 into core, 4 into the libraries, the 4 device links
  CHECK(find_entry(wheels, "_rocm_sdk_devel/.devel_reconcile.lock"));
  CHECK(record_of(wheel_named(wheels, "rocm-sdk-devel")).find(".devel_reconcile.lock") == std::string::npos);

  // "_rocm_sdk_devel" sorts before "_rocm_sdk_libraries": the content moves to the devel path and
  // the device wheel's own file becomes the hardlink.
  const std::string rel = "lib/rocblas/library/TensileLibrary_gfx942_0.co";
  const Entry* in_devel = find_entry(wheels, "_rocm_sdk_devel/" + rel);
  const Entry* in_device = find_entry(wheels, "_rocm_sdk_libraries/" + rel);
  REQUIRE(in_devel);
  REQUIRE(in_device);
  CHECK(in_devel->type == EntryType::kFile);
  CHECK(in_devel->size() == 1000);
  // Both in the device wheel (its layer): a hardlink cannot cross layers.
  const auto& device_wheel = wheel_named(wheels, "rocm-sdk-device-gfx942");
  CHECK(std::any_of(device_wheel.entries.begin(), device_wheel.entries.end(),
                    [&](const Entry& e) { return e.path == kSite + "/_rocm_sdk_devel/" + rel; }));
  CHECK(in_device->type == EntryType::kHardlink);
  CHECK(in_device->link_target == kSite + "/_rocm_sdk_devel/" + rel);
  CHECK(find_entry(wheels, "_rocm_sdk_devel/lib/rocblas/library")->type == EntryType::kDirectory);

  const auto& device = wheel_named(wheels, "rocm-sdk-device-gfx942");
  CHECK(record_of(device).find("\n_rocm_sdk_devel/" + rel + ",,\n") != std::string::npos);
  CHECK(record_of(wheel_named(wheels, "rocm-sdk-devel")).find(rel) == std::string::npos);
  check_layer_accepts(wheels);
}

TEST_CASE("therock/devel_expansion: hand-made tarballs") {
  rp::test::TempDir dir;
  rp::ContentStore store(dir.path / "store");
  const std::string libs = "_rocm_sdk_libraries_gfx94X_dcgpu/lib/librocblas.so.5";

  SUBCASE("content moves to the smallest path; loops and dangling links stay symlinks; warm builds read nothing") {
    std::string tar = make_tar({{"_rocm_sdk_devel", 'd', ""},
                                {"_rocm_sdk_devel/include/x.h", 'f', "header"},
                                {"_rocm_sdk_devel/h", 'h', "_rocm_sdk_devel/include/x.h"},
                                {"_rocm_sdk_devel/lib/librocblas.so.5", 's', "../../" + libs},
                                {"_rocm_sdk_devel/loop/a", 's', "b"},
                                {"_rocm_sdk_devel/loop/b", 's', "a"},
                                {"_rocm_sdk_devel/dangling", 's', "nowhere"},
                                {"_rocm_sdk_devel/twice", 's', "include/x.h"},
                                {"_rocm_sdk_devel/twice", 'f', "later member wins"}});
    auto tarball = std::make_shared<CountingContent>(tar);
    std::vector<InstalledWheel> wheels = {
        hand_wheel("rocm-sdk-devel", {{"rocm_sdk_devel/__init__.py", text("")}, {"rocm_sdk_devel/_devel.tar", tarball}}),
        hand_wheel("rocm-sdk-libraries-gfx94x-dcgpu", {{libs, text("blas")}})};
    auto result = rp::therock::expand_devel(rp::StoreArchiveOpener(store), wheels, kSite);
    CHECK(tarball->reads == 1);
    CHECK(result.files == 2);
    CHECK(result.hardlinks == 2);
    CHECK(result.symlinks == 3);

    const Entry* moved = find_entry(wheels, "_rocm_sdk_devel/lib/librocblas.so.5");
    CHECK(moved->type == EntryType::kFile);
    CHECK(read_content(*moved) == "blas");
    const Entry* original = find_entry(wheels, libs);
    CHECK(original->type == EntryType::kHardlink);
    CHECK(original->link_target == kSite + "/_rocm_sdk_devel/lib/librocblas.so.5");
    CHECK(find_entry(wheels, "_rocm_sdk_devel/h")->type == EntryType::kFile);
    CHECK(read_content(*find_entry(wheels, "_rocm_sdk_devel/h")) == "header");
    CHECK(find_entry(wheels, "_rocm_sdk_devel/include/x.h")->link_target == kSite + "/_rocm_sdk_devel/h");
    CHECK(find_entry(wheels, "_rocm_sdk_devel/loop/a")->type == EntryType::kSymlink);
    CHECK(find_entry(wheels, "_rocm_sdk_devel/dangling")->type == EntryType::kSymlink);
    CHECK(read_content(*find_entry(wheels, "_rocm_sdk_devel/twice")) == "later member wins");
    std::string record = record_of(wheels[0]);
    CHECK(record.find("\n_rocm_sdk_devel/twice,,\n") != std::string::npos);
    CHECK(record.find("\n_rocm_sdk_devel/h,,\n_rocm_sdk_devel/include/x.h,,\n") != std::string::npos);
    check_layer_accepts(wheels);

    // Again, as a warm build sees it: the store record stands in for the copy and the scan.
    auto again = std::make_shared<CountingContent>(tar);
    std::vector<InstalledWheel> warm = {
        hand_wheel("rocm-sdk-devel", {{"rocm_sdk_devel/__init__.py", text("")}, {"rocm_sdk_devel/_devel.tar", again}}),
        hand_wheel("rocm-sdk-libraries-gfx94x-dcgpu", {{libs, text("blas")}})};
    auto warm_result = rp::therock::expand_devel(rp::StoreArchiveOpener(store), warm, kSite);
    CHECK(again->reads == 0);
    CHECK(warm_result.hardlinks == 2);
    CHECK(read_content(*find_entry(warm, "_rocm_sdk_devel/h")) == "header");
  }

  SUBCASE("prepare_devel copies the tarball as soon as its wheel is there; expand_devel then reads nothing") {
    std::string tar = make_tar({{"_rocm_sdk_devel/include/x.h", 'f', "header"}, {"_rocm_sdk_devel/y.h", 's', "include/x.h"}});
    auto tarball = std::make_shared<CountingContent>(tar);
    std::vector<InstalledWheel> wheels = {
        hand_wheel("rocm-sdk-devel", {{"rocm_sdk_devel/__init__.py", text("")}, {"rocm_sdk_devel/_devel.tar", tarball}}),
        hand_wheel("rocm-sdk-libraries-gfx94x-dcgpu", {{libs, text("blas")}})};
    rp::therock::prepare_devel(rp::StoreArchiveOpener(store), wheels[1], kSite);  // not the devel wheel: nothing
    CHECK(tarball->reads == 0);
    rp::therock::prepare_devel(rp::StoreArchiveOpener(store), wheels[0], kSite);
    CHECK(tarball->reads == 1);
    CHECK(find_entry(wheels, "rocm_sdk_devel/_devel.tar") != nullptr);  // the wheel is left as it is
    auto result = rp::therock::expand_devel(rp::StoreArchiveOpener(store), wheels, kSite);
    CHECK(tarball->reads == 1);
    CHECK(result.expanded);
    CHECK(result.hardlinks == 1);
    CHECK(read_content(*find_entry(wheels, "_rocm_sdk_devel/include/x.h")) == "header");
  }

  SUBCASE("an xz-compressed tarball is decompressed into the store once") {
    std::string tar = make_tar({{"_rocm_sdk_devel/include/x.h", 'f', "header"}, {"_rocm_sdk_devel/y.h", 's', "include/x.h"}}, true);
    REQUIRE(tar.substr(0, 5) == "\xFD" "7zXZ");  // really compressed
    std::vector<InstalledWheel> wheels = {
        hand_wheel("rocm-sdk-devel", {{"rocm_sdk_devel/__init__.py", text("")}, {"rocm_sdk_devel/_devel.tar.xz", text(tar)}})};
    auto result = rp::therock::expand_devel(rp::StoreArchiveOpener(store), wheels, kSite);
    CHECK(result.expanded);
    CHECK(find_entry(wheels, "rocm_sdk_devel/_devel.tar.xz") == nullptr);
    CHECK(record_of(wheels[0]).find("rocm_sdk_devel/_devel.tar.xz,") != std::string::npos);  // as init leaves RECORD
    CHECK(read_content(*find_entry(wheels, "_rocm_sdk_devel/include/x.h")) == "header");
    CHECK(find_entry(wheels, "_rocm_sdk_devel/y.h")->link_target == kSite + "/_rocm_sdk_devel/include/x.h");
    check_layer_accepts(wheels);
  }

  SUBCASE("members outside the devel tree are refused") {
    for (const char* bad : {"other/x.h", "_rocm_sdk_devel/../x.h", "./_rocm_sdk_devel/x.h"}) {
      std::vector<InstalledWheel> wheels = {devel_wheel(make_tar({{bad, 'f', "x"}}))};
      CHECK_THROWS_AS(rp::therock::expand_devel(rp::StoreArchiveOpener(store), wheels, kSite), rp::InputError);
    }
    std::vector<InstalledWheel> wheels = {devel_wheel(make_tar({{"_rocm_sdk_devel/h", 'h', "../etc/passwd"}}))};
    CHECK_THROWS_AS(rp::therock::expand_devel(rp::StoreArchiveOpener(store), wheels, kSite), rp::InputError);
  }

  SUBCASE("a member over another wheel's file is refused") {
    std::vector<InstalledWheel> wheels = {devel_wheel(make_tar({{"_rocm_sdk_devel/x", 'f', "a"}})),
                                          hand_wheel("other", {{"_rocm_sdk_devel/x", text("b")}})};
    CHECK_THROWS_WITH_AS(rp::therock::expand_devel(rp::StoreArchiveOpener(store), wheels, kSite), doctest::Contains("other-1.0"),
                         rp::InputError);
  }

  SUBCASE("without a devel wheel or its tarball nothing happens") {
    std::vector<InstalledWheel> none = {hand_wheel("rocm-sdk-core", {{"_rocm_sdk_core/x", text("x")}})};
    CHECK_FALSE(rp::therock::expand_devel(rp::StoreArchiveOpener(store), none, kSite).expanded);
    std::vector<InstalledWheel> no_tar = {hand_wheel("rocm-sdk-devel", {{"rocm_sdk_devel/__init__.py", text("")}})};
    size_t before = no_tar[0].entries.size();
    std::string record = record_of(no_tar[0]);
    CHECK_FALSE(rp::therock::expand_devel(rp::StoreArchiveOpener(store), no_tar, kSite).expanded);
    CHECK(no_tar[0].entries.size() == before);
    CHECK(record_of(no_tar[0]) == record);
  }

  SUBCASE("bad device link files name the wheel and the file") {
    const std::string json_path = "_rocm_sdk_libraries/.devel_links/gfx942.json";
    for (const std::string& json :
         {std::string("{not json"), std::string(R"({"version":"1","links":[{"relpath":"../x","target":"a"}]})"),
          std::string(R"({"version":"1","links":[{"relpath":"lib/x","target":"_rocm_sdk_libraries/missing"}]})"),
          std::string(R"({"version":"1","links":[{"relpath":"lib/x"}]})")}) {
      CAPTURE(json);
      std::vector<InstalledWheel> wheels = {devel_wheel(make_tar({{"_rocm_sdk_devel/x", 'f', "a"}})),
                                            hand_wheel("rocm-sdk-device-gfx942", {{json_path, text(json)}})};
      const std::string where = "rocm-sdk-device-gfx942-1.0-py3-none-any.whl: /" + kSite + "/" + json_path;
      CHECK_THROWS_WITH_AS(rp::therock::expand_devel(rp::StoreArchiveOpener(store), wheels, kSite), doctest::Contains(where.c_str()),
                           rp::InputError);
    }
  }
}
