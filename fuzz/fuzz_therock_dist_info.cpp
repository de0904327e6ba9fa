// Fuzzes TheRock's _dist_info.py reader, the requirement computation on whatever it read, and the
// rocm sdist reader (the bytes written to a file: the reader takes a path). Only rp::Error may
// come out. Seed it with the generator's output:
//   python3 tests/tools/make_therock_index.py /tmp/idx && tar xzf /tmp/idx/gfx94X-dcgpu/rocm-*.tar.gz -C corpus
//   cp /tmp/idx/gfx94X-dcgpu/rocm-*.tar.gz corpus/
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "therock/dist_info.hpp"
#include "therock/rocm_sdist.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "fuzz_scratch.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    auto info = rp::therock::parse_dist_info(text, "fuzz/_dist_info.py");
    if (info.version.empty()) __builtin_trap();  // the reader promises a version
    for (auto layout : {rp::therock::IndexLayout::kPerFamily, rp::therock::IndexLayout::kMultiArch}) {
      try {
        rp::therock::requirements_for(info, {"gfx942", "gfx1100"}, {"libraries", "devel", "profiler", "device"},
                                      layout);
      } catch (const rp::Error&) {
      }
      try {
        rp::therock::requirements_for(info, {}, rp::therock::known_extras(info, layout), layout);
      } catch (const rp::Error&) {
      }
    }
  } catch (const rp::Error&) {
  }

  static const std::string path = fuzz_scratch_dir() + "/input.tar.gz";
  write_scratch_file(path, text);
  try {
    auto sdist = rp::therock::read_rocm_sdist(path, "fuzz.tar.gz");
    for (const auto& file : sdist.package_files) {
      if (file.path.rfind("rocm_sdk/", 0) != 0 || file.path.find("..") != std::string::npos) __builtin_trap();
    }
  } catch (const rp::Error&) {
  }
  return 0;
}
