// Fuzzes the devel expansion (`rocm-sdk init` at build time) with arbitrary bytes as rocm-sdk-devel's
// `_devel.tar`, next to a core wheel it may link into. Only rp::Error may come out, and whatever is
// produced must pass finalize_entries (no path outside the image, hardlinks to earlier files).
// Seed it with the generator's tarball:
//   python3 tests/tools/make_therock_index.py /tmp/idx && unzip -p /tmp/idx/gfx94X-dcgpu/rocm_sdk_devel-*.whl \
//     rocm_sdk_devel/_devel.tar > corpus/devel.tar
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "assemble/store_archives.hpp"
#include "python/install_plan.hpp"
#include "store/content_store.hpp"
#include "therock/devel_expansion.hpp"
#include "util/error.hpp"
#include "fuzz_scratch.hpp"

namespace {

const std::string kSite = "opt/venv/lib/python3.11/site-packages";

rp::Entry file(const std::string& path, std::string content) {
  rp::Entry e;
  e.path = kSite + "/" + path;
  e.content = std::make_shared<rp::InlineContent>(std::move(content));
  return e;
}

rp::python::InstalledWheel wheel(const std::string& name, const std::string& dist_info,
                                 std::vector<rp::Entry> entries) {
  rp::python::InstalledWheel w;
  w.name = w.normalized_name = name;
  w.filename = name + "-1.0-py3-none-linux_x86_64.whl";
  w.version = rp::python::Version::parse("1.0");
  w.dist_info = kSite + "/" + dist_info;
  entries.push_back(file(dist_info + "/RECORD", ""));
  for (const auto& e : entries) w.files.push_back(e.path);
  w.entries = std::move(entries);
  return w;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static rp::ContentStore store(fuzz_scratch_dir() + "/store");
  std::string tar(reinterpret_cast<const char*>(data), size);
  std::vector<rp::python::InstalledWheel> wheels;
  wheels.push_back(wheel("rocm-sdk-core", "rocm_sdk_core-1.0.dist-info",
                         {file("_rocm_sdk_core/lib/libamdhip64.so.7", "elf"), file("_rocm_sdk_core/bin/hipcc", "#!")}));
  wheels.push_back(wheel("rocm-sdk-devel", "rocm_sdk_devel-1.0.dist-info",
                         {file("rocm_sdk_devel/__init__.py", ""), file("rocm_sdk_devel/_devel.tar", tar)}));
  try {
    rp::therock::expand_devel(rp::StoreArchiveOpener(store), wheels, kSite);
    auto entries = rp::python::merge_installed_wheels(wheels);
    rp::finalize_entries(entries);
  } catch (const rp::Error&) {
  }
  return 0;
}
