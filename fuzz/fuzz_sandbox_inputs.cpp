// Fuzzes what the sandbox takes from untrusted images and packages:
//  - a base layer's tar (any bytes) written into a scratch root by materialize_archive, the way a
//    run: step writes the image so far: only rp::Error may come out, and nothing may be written
//    outside the root (a sibling directory is checked to stay empty) — links, "..", absolute and
//    dangling symlinks included;
//  - a package's control files (the same bytes as its `triggers` file, its name and architecture
//    taken from them) turned into the maintainer-script runner: it must not throw.
// Seed it with small layer tars: ./fuzz_sandbox_inputs corpus/ (tar -cf seed.tar some-dir)
#include <archive.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "apt/maintainer_scripts.hpp"
#include "sandbox/materialize.hpp"
#include "util/error.hpp"
#include "fuzz_scratch.hpp"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fs::path base = fuzz_scratch_dir();
  const fs::path root = base / "root";
  const fs::path outside = base / "outside";
  fs::remove_all(root);
  fs::remove_all(outside);
  fs::create_directories(root);
  fs::create_directories(outside);

  archive* a = archive_read_new();
  archive_read_support_format_tar(a);
  archive_read_support_format_gnutar(a);
  if (archive_read_open_memory(a, data, size) == ARCHIVE_OK) {
    try {
      rp::materialize_archive(a, root, "fuzz layer");
    } catch (const rp::Error&) {
    }
  }
  archive_read_free(a);
  if (!fs::is_empty(outside)) std::abort();  // written outside the root
  for (const auto& e : fs::directory_iterator(base))
    if (e.path() != root && e.path() != outside) std::abort();

  std::string text(reinterpret_cast<const char*>(data), size);
  rp::apt::UnpackedPackage p;
  p.name = text.substr(0, std::min<size_t>(text.find('\n'), 40));
  p.architecture = "amd64";
  p.control_files["triggers"] = text;
  p.control_files["preinst"] = "#!/bin/sh\n";
  (void)rp::apt::configure_script({p});
  // apt's unpack/configure sequence from hostile relationship fields (two packages naming each
  // other, one Essential): it must end, and the script must quote what it names.
  rp::apt::UnpackedPackage q = p;
  q.name = "q";
  p.control = {{"Depends", text}, {"Pre-Depends", text}, {"Provides", text}};
  q.control = {{"Pre-Depends", p.name + ", " + text}, {"Essential", "yes"}};
  std::vector<rp::apt::UnpackedPackage> pair = {p, q};
  (void)rp::apt::configure_script(pair, rp::apt::script_sequence(pair, {}));
  return 0;
}
