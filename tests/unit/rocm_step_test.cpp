// The rocm: side of issue 5 that needs no index: the recipe section, TheRock's channels, the
// Requires-Dist the native rocm install declares, sdist file names, and the environment files.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "python/native_sdist.hpp"
#include "recipe/model.hpp"
#include "test_helpers.hpp"
#include "therock/channels.hpp"
#include "therock/dist_info.hpp"
#include "therock/rocm_env.hpp"
#include "therock/rocm_package.hpp"

using rp::recipe::load_recipe;
using rp::recipe::RecipeError;
using rp::test::TempDir;

namespace {

const char* kPython = "python:\n  interpreter: /usr/bin/python3\n  venv: /opt/venv\n";

std::string rocm_load_error(const TempDir& dir, const std::string& text) {
  auto path = dir.write("recipe.yaml", text);
  try {
    load_recipe(path, {});
    return "";
  } catch (const RecipeError& e) {
    return e.what();
  }
}

bool has(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

}  // namespace

TEST_CASE("recipe rocm: a complete section loads, PYTORCH_ROCM_ARCH style targets included") {
  TempDir dir;
  auto path = dir.write("recipe.yaml", std::string("name: r\nargs:\n  PYTORCH_ROCM_ARCH: \"gfx90a; GFX942:xnack+\"\n") +
                                           kPython +
                                           "rocm:\n  source: therock\n  index: nightly\n  verify: tls-only\n"
                                           "  targets: ${PYTORCH_ROCM_ARCH}\n  components: [libraries, devel, profiler]\n"
                                           "  version: 7.10.0a20251120\n  expand_devel: false\n"
                                           "  env:\n    HSA_OVERRIDE_GFX_VERSION: \"11.5.1\"\n"
                                           "    PYTORCH_CUDA_ALLOC_CONF: expandable_segments:True\n");
  auto r = load_recipe(path, {});
  REQUIRE(r.rocm);
  CHECK(r.rocm->channel == "nightly");
  CHECK(r.rocm->index.empty());
  CHECK(r.rocm->tls_only);
  CHECK(r.rocm->targets == std::vector<std::string>{"gfx90a", "gfx942"});
  CHECK(r.rocm->components == std::vector<std::string>{"libraries", "devel", "profiler"});
  CHECK(r.rocm->version == "7.10.0a20251120");
  CHECK_FALSE(r.rocm->expand_devel);
  CHECK(r.rocm->env.size() == 2);
  CHECK(r.rocm->env[0].first == "HSA_OVERRIDE_GFX_VERSION");
  // The python section installs nothing itself: rocm does.
  CHECK(r.python->packages.empty());
}

TEST_CASE("recipe rocm: defaults and a URL with {family}") {
  TempDir dir;
  auto path = dir.write("recipe.yaml", std::string("name: r\n") + kPython +
                                           "rocm:\n  source: therock\n  index: \"http://127.0.0.1:1/{family}/\"\n"
                                           "  targets: [gfx942]\n");
  auto r = load_recipe(path, {});
  CHECK(r.rocm->components == std::vector<std::string>{"libraries", "devel"});
  CHECK(r.rocm->version == "latest");
  CHECK(r.rocm->expand_devel);
  CHECK(r.rocm->index == "http://127.0.0.1:1/{family}/");
  CHECK_FALSE(r.rocm->tls_only);  // hashes required unless the recipe says otherwise
}

TEST_CASE("recipe rocm: channel, no index at all, all targets") {
  TempDir dir;
  auto path = dir.write("recipe.yaml", std::string("name: r\n") + kPython + "rocm:\n  channel: rc\n  targets: all\n");
  auto r = load_recipe(path, {});
  CHECK(r.rocm->channel == "rc");
  CHECK(r.rocm->targets == std::vector<std::string>{"all"});
  // Neither channel nor index: the nightly channel (chosen when planning).
  auto bare = dir.write("bare.yaml", std::string("name: r\n") + kPython + "rocm:\n  targets: [gfx942, gfx1201]\n");
  auto b = load_recipe(bare, {});
  CHECK(b.rocm->channel.empty());
  CHECK(b.rocm->index.empty());
  CHECK(b.rocm->targets == std::vector<std::string>{"gfx942", "gfx1201"});
}

TEST_CASE("recipe rocm: every mistake is reported at its place") {
  TempDir dir;
  std::string head = std::string("name: r\n") + kPython + "rocm:\n  source: therock\n";
  CHECK(rocm_load_error(dir, head + "  index: nightly\n  targets: sm_90\n").find("'sm_90' is not a GPU target") !=
        std::string::npos);
  CHECK(rocm_load_error(dir, head + "  index: nightly\n  targets: sm_90\n").find("gfx942") != std::string::npos);
  CHECK(rocm_load_error(dir, head + "  channel: nighty\n  targets: gfx942\n").find("did you mean 'nightly'") !=
        std::string::npos);
  CHECK(rocm_load_error(dir, head + "  channel: nightly\n  verify: none\n  targets: gfx942\n").find("tls-only") !=
        std::string::npos);
  CHECK(rocm_load_error(dir, head + "  index: nightlly\n  targets: gfx942\n").find("did you mean 'nightly'") != std::string::npos);
  CHECK(rocm_load_error(dir, head + "  index: nightly\n  targets: gfx942\n  components: [libraries, devl]\n")
            .find("unknown rocm component 'devl'") != std::string::npos);
  CHECK(rocm_load_error(dir, head + "  index: nightly\n  targets: gfx942\n  version: not-a-version!\n").find("is not a version") !=
        std::string::npos);
  CHECK(rocm_load_error(dir, head + "  index: nightly\n  targets: gfx942\n  env:\n    PYTORCH_CUDA_ALLOC_CONF: max_split_size_mb:128\n")
            .find("PYTORCH_CUDA_ALLOC_CONF must not set max_split_size_mb") != std::string::npos);
  CHECK(rocm_load_error(dir, head + "  index: nightly\n  targets: gfx942\n  env:\n    HSA_OVERRIDE_GFX_VERSION: gfx1151\n")
            .find("MAJOR.MINOR.STEPPING") != std::string::npos);
  CHECK(rocm_load_error(dir, head + "  index: nightly\n  targets: gfx942\n  env:\n    HSA_OVERIDE_GFX_VERSION: 11.0.0\n")
            .find("did you mean 'HSA_OVERRIDE_GFX_VERSION'") != std::string::npos);
  CHECK(rocm_load_error(dir, head + "  index: \"https://u:p@host/{family}/\"\n  targets: gfx942\n").find("credentials") !=
        std::string::npos);
  CHECK(rocm_load_error(dir, head + "  index: \"https://host/{family}/\"\n  layout: multi-arch\n  targets: gfx942\n")
            .find("layout") != std::string::npos);
  CHECK(rocm_load_error(dir, head + "  index: nightly\n").find("needs 'targets'") != std::string::npos);
  CHECK(rocm_load_error(dir, "name: r\nrocm:\n  source: therock\n  index: nightly\n  targets: gfx942\n")
            .find("needs a python section") != std::string::npos);
  CHECK(rocm_load_error(dir, head + "  source: conda\n  index: nightly\n  targets: gfx942\n").find("duplicate") !=
        std::string::npos);
  CHECK(rocm_load_error(dir, std::string("name: r\n") + kPython + "rocm:\n  source: conda\n  index: nightly\n  targets: gfx942\n")
            .find("unknown rocm source 'conda'") != std::string::npos);
}

TEST_CASE("therock/channels: every stream is a whl-next index") {
  for (const auto& name : rp::therock::channel_names()) {
    auto channel = rp::therock::find_channel(name);
    REQUIRE(channel);
    CHECK(channel->url == "https://" + name + ".repo.amd.com/rocm/whl-next/");
  }
  CHECK(rp::therock::channel_names() == std::vector<std::string>{"nightly", "dev", "rc", "bkc", "stable"});
  CHECK(rp::therock::find_channel(rp::therock::kDefaultChannel));
  CHECK_FALSE(rp::therock::find_channel("weekly"));
  CHECK(rp::therock::expand_family("http://h/v2/{family}/x/{family}", "gfx94X-dcgpu") ==
        "http://h/v2/gfx94X-dcgpu/x/gfx94X-dcgpu");
}

TEST_CASE("python/native_sdist: sdist file names") {
  CHECK(rp::python::sdist_version("rocm-7.10.0a20251120.tar.gz", "rocm")->to_string() == "7.10.0a20251120");
  CHECK(rp::python::sdist_version("rocm-7.10.0rc1%2Bx.tar.gz", "rocm")->to_string() == "7.10.0rc1+x");
  CHECK_FALSE(rp::python::sdist_version("rocm-sdk-7.10.0.tar.gz", "rocm"));  // the dead `rocm-sdk` project
  CHECK_FALSE(rp::python::sdist_version("rocm-7.10.0.zip", "rocm"));
  CHECK_FALSE(rp::python::sdist_version("rocm-notaversion!.tar.gz", "rocm"));
  CHECK_FALSE(rp::python::sdist_version(".tar.gz", "rocm"));
}

TEST_CASE("therock/rocm_package: Requires-Dist per extra, as setup.py would declare them") {
  auto info = rp::therock::parse_dist_info(R"PY(
PackageEntry("core", "rocm-sdk-core", py_package_template="_rocm_sdk_core", required=True)
PackageEntry("libraries", "rocm-sdk-libraries-{target_family}", py_package_template="_rocm_sdk_libraries_{target_family}")
PackageEntry("devel", "rocm-sdk-devel", py_package_template="rocm_sdk_devel")
PackageEntry("profiler", "rocm-profiler", py_package_template="_rocm_profiler")
__version__ = "7.10.0a20251120"
DEFAULT_TARGET_FAMILY = "gfx94X-dcgpu"
AVAILABLE_TARGET_FAMILIES.append("gfx94X-dcgpu")
AVAILABLE_TARGET_FAMILIES.append("gfx90a")
)PY");
  auto lines = rp::therock::rocm_requires_dist(info, {"gfx90a", "gfx942"});
  CHECK(lines.front() == "rocm-sdk-core==7.10.0a20251120");
  CHECK(has(lines, "rocm-sdk-libraries-gfx90a==7.10.0a20251120; extra == \"libraries\""));
  CHECK(has(lines, "rocm-sdk-libraries-gfx94X-dcgpu==7.10.0a20251120; extra == \"libraries\""));
  CHECK(has(lines, "rocm-sdk-devel==7.10.0a20251120; extra == \"devel\""));
  CHECK(has(lines, "rocm-profiler==7.10.0a20251120; extra == \"profiler\""));
  // The core is required, never repeated under an extra.
  CHECK(std::count_if(lines.begin(), lines.end(), [](const std::string& l) { return l.find("rocm-sdk-core") == 0; }) == 1);
}

TEST_CASE("therock/rocm_env: env files and Env from the install location") {
  rp::therock::RocmEnvInputs in;
  in.root = "/opt/venv/lib/python3.11/site-packages/_rocm_sdk_devel";
  in.targets = {"gfx90a", "gfx942"};
  in.family = "gfx90a";
  in.knobs = {{"HSA_OVERRIDE_GFX_VERSION", "11.5.1"}};
  auto env = rp::therock::rocm_image_env(in, {"PATH=/opt/venv/bin:/usr/bin", "LD_LIBRARY_PATH=/x"});
  auto value = [&env](const std::string& k) {
    for (const auto& [name, v] : env)
      if (name == k) return v;
    return std::string("<unset>");
  };
  CHECK(value("ROCM_PATH") == in.root);
  CHECK(value("ROCM_HOME") == in.root);
  // What PyTorch's install_rocm.sh exports, no more: the old /opt/rocm-style variables are gone.
  CHECK(value("ROCM_CMAKE") == "<unset>");
  CHECK(value("HIP_DEVICE_LIB_PATH") == "<unset>");
  CHECK(value("PATH") == in.root + "/bin:/opt/venv/bin:/usr/bin");
  CHECK(value("LD_LIBRARY_PATH") == in.root + "/lib:/x");
  CHECK(value("CMAKE_PREFIX_PATH") == in.root);  // nothing before: no empty entry
  CHECK(value("PYTORCH_ROCM_ARCH") == "gfx90a;gfx942");
  CHECK(value("ROCM_SDK_TARGET_FAMILY") == "gfx90a");
  CHECK(value("HSA_OVERRIDE_GFX_VERSION") == "11.5.1");

  std::string script = rp::therock::rocm_env_script(in);
  CHECK(script.find("export ROCM_PATH='" + in.root + "'\n") != std::string::npos);
  CHECK(script.find("export ROCM_HOME='" + in.root + "'\n") != std::string::npos);
  CHECK(script.find("PYTORCH_ROCM_ARCH") == std::string::npos);  // the image Env's, not the script's
  CHECK(script.find("ROCM_SDK_TARGET_FAMILY") == std::string::npos);
  CHECK(script.find("export HSA_OVERRIDE_GFX_VERSION='11.5.1'\n") != std::string::npos);

  // Multi-arch: no family; `all` sets no PYTORCH_ROCM_ARCH.
  rp::therock::RocmEnvInputs all = in;
  all.family.clear();
  all.targets = {"all"};
  auto all_env = rp::therock::rocm_image_env(all, {});
  CHECK(std::none_of(all_env.begin(), all_env.end(), [](const auto& kv) {
    return kv.first == "PYTORCH_ROCM_ARCH" || kv.first == "ROCM_SDK_TARGET_FAMILY";
  }));

  std::string bashrc = rp::therock::bashrc_with_rocm_env("# base\nPS1='$ '");
  CHECK(bashrc.rfind("# base\nPS1='$ '\n[ -f /etc/rocm_env.sh ]", 0) == 0);
  CHECK(rp::therock::bashrc_with_rocm_env(bashrc) == bashrc);  // appended once
}

TEST_CASE("therock/rocm_env: the script runs in sh, is idempotent and keeps existing paths") {
  rp::therock::RocmEnvInputs in;
  in.root = "/r o/it's";  // quoting
  in.targets = {"gfx942"};
  in.family = "gfx94X-dcgpu";
  TempDir dir;
  auto script = dir.write("rocm_env.sh", rp::therock::rocm_env_script(in));
  std::string out_file = (dir.path / "out").string();
  std::string cmd = "env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH=/lib0 sh -c '. " + script.string() + "; . " + script.string() +
                    "; printf \"%s\\n%s\\n%s\\n\" \"$PATH\" \"$ROCM_PATH\" \"$LD_LIBRARY_PATH\"' > " + out_file;
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream f(out_file);
  std::string path, rocm_path, library_path;
  std::getline(f, path);
  std::getline(f, rocm_path);
  std::getline(f, library_path);
  CHECK(path == "/r o/it's/bin:/usr/bin:/bin");
  CHECK(rocm_path == "/r o/it's");
  CHECK(library_path == "/r o/it's/lib:/lib0");
}

TEST_CASE("recipe: compression chosen by the recipe") {
  TempDir dir;
  auto path = dir.write("recipe.yaml", "name: r\ncompression: zstd:10\n");
  CHECK(load_recipe(path, {}).compression == std::string("zstd:10"));
  CHECK_FALSE(load_recipe(dir.write("recipe.yaml", "name: r\n"), {}).compression);
  CHECK(rocm_load_error(dir, "name: r\ncompression: zstd:30\n").find("unknown compression 'zstd:30'") != std::string::npos);
  CHECK(rocm_load_error(dir, "name: r\ncompression: brotli\n").find("unknown compression") != std::string::npos);
}
