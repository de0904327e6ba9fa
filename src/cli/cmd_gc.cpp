// rockpack gc oci:DIR: removes the blobs of an OCI layout that no tag (or untagged entry) reaches.
#include <spdlog/spdlog.h>

#include "cli/commands.hpp"
#include "cli/progress_display.hpp"
#include "output/oci_layout.hpp"
#include "output/output_spec.hpp"
#include "util/error.hpp"

namespace rp::cli {

void add_gc_command(CLI::App& app, GlobalOptions&) {
  auto location = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("gc", "Remove the blobs of an OCI layout that no image in it refers to");
  cmd->add_option("layout", *location, "oci:DIR")->required();
  cmd->callback([location] {
    ImageLocation where = ImageLocation::parse(*location);
    if (where.kind != ImageLocation::Kind::kOciLayout || !where.tag.empty())
      throw InputError("gc works on a whole OCI layout", "give it as oci:DIR");
    LayoutGarbage g = collect_layout_garbage(where.path);
    spdlog::info("{}: removed {} unreferenced blob{} ({})", where.path, g.blobs, g.blobs == 1 ? "" : "s",
                 human_bytes(g.bytes));
  });
}

}  // namespace rp::cli
