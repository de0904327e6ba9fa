// Fuzzes the wheel zip reader and the installer: the bytes are written to a file (the reader works
// on files, by offset) and installed into a venv scheme; every planned file is then streamed, which
// runs the inflater, the CRC/size checks and the RECORD check (strict for a third of the inputs).
// Only rp::Error may come out.
// Seed it with real wheels: ./fuzz_wheel_archive corpus/ /usr/share/python-wheels/
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include <spdlog/spdlog.h>

#include "python/install_plan.hpp"
#include "python/wheel_archive.hpp"
#include "python/wheel_installer.hpp"
#include "util/byte_sink.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "fuzz_scratch.hpp"

namespace {
// What the reader promises about every name it lets through: relative, no "." or ".." component.
bool is_safe_relative_path(const std::string& path) {
  if (path.empty() || path.front() == '/') return false;
  size_t start = 0;
  while (start < path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    std::string part = path.substr(start, end - start);
    if (part == ".." || part == ".") return false;
    start = end + 1;
  }
  return true;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = fuzz_scratch_dir() + "/input.whl";
  static const auto scheme = rp::python::InstallScheme::venv("/opt/venv", 3, 11);
  // The RECORD check warns about mismatching members as they stream; thousands a second are noise.
  static const bool quiet = [] {
    spdlog::set_level(spdlog::level::err);
    return true;
  }();
  (void)quiet;
  write_scratch_file(path, std::string_view(reinterpret_cast<const char*>(data), size));

  try {
    auto archive = rp::python::WheelArchive::open(path, "fuzz-1.0-py3-none-any.whl");
    for (const auto& member : archive->members()) {
      if (!is_safe_relative_path(member.name)) __builtin_trap();
      if (member.uncompressed_size <= (1 << 20)) {
        rp::CountingSink sink;
        try {
          archive->stream_member(member, sink);
          if (sink.count() != member.uncompressed_size) __builtin_trap();
        } catch (const rp::Error&) {
        }
      }
    }
  } catch (const rp::Error&) {
  }

  try {
    rp::python::InstallOptions options;
    options.filename = "fuzz-1.0-py3-none-any.whl";
    options.verify_record = size % 2 == 0;
    options.strict_record = size % 3 == 0;  // a mismatch found while streaming throws rp::Error
    auto installed = rp::python::install_wheel(path, scheme, options);
    auto merged = rp::python::merge_installed_wheels({installed});
    uint64_t budget = 64 << 20;
    for (const auto& entry : merged) {
      if (!is_safe_relative_path(entry.path)) __builtin_trap();
      if (entry.type != rp::EntryType::kFile || !entry.content || entry.content->size() > budget) continue;
      budget -= entry.content->size();
      rp::CountingSink sink;
      try {
        entry.content->write_to(sink);
        if (sink.count() != entry.content->size()) __builtin_trap();
      } catch (const rp::Error&) {
      }
    }
  } catch (const rp::Error&) {
  }
  return 0;
}
