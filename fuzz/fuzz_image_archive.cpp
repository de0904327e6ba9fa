// Fuzzes the readers of image archives someone else wrote: arbitrary bytes as an oci-archive (an OCI
// layout in a tar) and as a docker archive, read as `rockpack inspect` and `push` read them, then
// imported into a scratch store. Only rp::Error may come out. Seed it with real archives:
//   rockpack build examples/quickstart/recipe.yaml -o oci-archive:corpus/a.tar -o docker-archive:corpus/b.tar
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "output/image_reader.hpp"
#include "output/output_spec.hpp"
#include "store/content_store.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "fuzz_scratch.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& dir = fuzz_scratch_dir();
  const std::string file = dir + "/input.tar";
  write_scratch_file(file, std::string_view(reinterpret_cast<const char*>(data), size));
  rp::ContentStore store(dir + "/store");
  for (const char* transport : {"oci-archive:", "docker-archive:"}) {
    try {
      rp::ImageLocation where = rp::ImageLocation::parse(transport + file);
      (void)rp::read_local_image(where);
      (void)rp::seal_local_image(where, store);
    } catch (const rp::Error&) {
    }
  }
  return 0;
}
