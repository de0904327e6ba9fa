// Fuzzes the recipe loader: any bytes as a recipe file must end in a Recipe or a RecipeError/InputError,
// never a crash, a hang or another exception type.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "recipe/model.hpp"
#include "util/fs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/fuzz-recipe-XXXXXX";
    return std::string(::mkdtemp(tmpl));
  }();
  rp::write_file_atomic(dir + "/recipe.yaml", std::string(reinterpret_cast<const char*>(data), size));
  try {
    rp::recipe::LoadOptions opts;
    opts.set_args = {};
    rp::recipe::load_recipe(dir + "/recipe.yaml", opts);
  } catch (const rp::InputError&) {
  } catch (const rp::Error&) {
  }
  return 0;
}
