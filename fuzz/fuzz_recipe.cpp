// Fuzzes the recipe loader: any bytes as a recipe file must end in a Recipe or a RecipeError/InputError,
// never a crash, a hang or another exception type.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "recipe/model.hpp"
#include "util/fs.hpp"
#include "fuzz_scratch.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& dir = fuzz_scratch_dir();
  write_scratch_file(dir + "/recipe.yaml", std::string(reinterpret_cast<const char*>(data), size));
  try {
    rp::recipe::LoadOptions opts;
    opts.set_args = {};
    rp::recipe::load_recipe(dir + "/recipe.yaml", opts);
  } catch (const rp::InputError&) {
  } catch (const rp::Error&) {
  }
  // A matrix: expanded, and its first variant loaded with its args and tags.
  try {
    rp::recipe::LoadOptions opts;
    auto variants = rp::recipe::list_variants(dir + "/recipe.yaml", opts);
    if (!variants.empty()) {
      opts.variant = variants.front().name;
      rp::recipe::load_recipe(dir + "/recipe.yaml", opts);
    }
  } catch (const rp::InputError&) {
  } catch (const rp::Error&) {
  }
  return 0;
}
