// The `rocm:` section. Values are checked where they are written, so `rockpack validate` catches an
// unknown GPU target or a bad knob before anything is downloaded.
#include "recipe/rocm_section.hpp"

#include <algorithm>
#include <regex>

#include "python/pep440.hpp"
#include "therock/channels.hpp"
#include "therock/families.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/suggest.hpp"

namespace rp::recipe {

namespace {

const std::vector<std::string> kRocmKeys = {"source",  "channel", "index",        "verify", "targets",
                                            "components", "version", "expand_devel", "env"};
const std::vector<std::string> kComponents = {"libraries", "devel", "profiler"};
// The runtime knobs users set for ROCm; anything else belongs in the recipe's `env:`.
const std::vector<std::string> kKnobs = {"HSA_OVERRIDE_GFX_VERSION", "ROCBLAS_USE_HIPBLASLT", "HIP_VISIBLE_DEVICES",
                                         "ROCR_VISIBLE_DEVICES",     "PYTORCH_CUDA_ALLOC_CONF", "HIP_LAUNCH_BLOCKING",
                                         "AMD_SERIALIZE_KERNEL",     "TORCH_USE_HIP_DSA"};

class RocmSectionReader {
 public:
  RocmSectionReader(const DocumentReader& in, RocmSection& section) : in_(in), s_(section) {}

  void read(const YAML::Node& node) {
    if (!node.IsMap()) {
      in_.error(node, "'rocm' must be a mapping (source:, index:, targets:, ...)");
      return;
    }
    s_.where = in_.at(node);
    if (!in_.check_keys(node, kRocmKeys, "rocm")) return;
    if (auto n = node["source"]) source(n);
    if (auto n = node["channel"]) channel(n);
    if (auto n = node["index"]) index(n);
    if (auto n = node["verify"]) verify(n);
    if (auto n = node["targets"]) targets(n);
    if (auto n = node["components"]) components(n);
    if (auto n = node["version"]) version(n);
    if (auto n = node["expand_devel"]) s_.expand_devel = in_.boolean(n, "expand_devel").value_or(true);
    if (auto n = node["env"]) env(n);
  }

 private:
  void source(const YAML::Node& n) {
    auto t = in_.text(n, "source");
    if (t && *t != "therock")
      in_.error(n, "unknown rocm source '" + *t + "'", "the only source is 'therock' (AMD's TheRock Python packages)");
  }

  void channel(const YAML::Node& n) {
    auto t = in_.text(n, "channel");
    if (!t) return;
    if (!therock::find_channel(*t)) {
      std::string hint = did_you_mean(*t, therock::channel_names());
      in_.error(n, "unknown TheRock channel '" + *t + "'",
                hint.empty() ? "channels: " + join(therock::channel_names(), ", ") + "; or give index: URL" : hint);
      return;
    }
    s_.channel = *t;
    s_.index.clear();  // the later document's choice wins, channel or URL
    s_.index_where = in_.at(n);
  }

  void verify(const YAML::Node& n) {
    auto t = in_.text(n, "verify");
    if (t && (*t == "tls-only" || *t == "hashes")) s_.tls_only = *t == "tls-only";
    else if (t)
      in_.error(n, "unknown rocm verify '" + *t + "'",
                "'hashes' (the default: every file needs a sha256 from the index) or 'tls-only' (accept files "
                "without one, as TheRock's whl-next indexes publish them, on TLS alone; their sha256 is computed and locked)");
  }

  void index(const YAML::Node& n) {
    auto t = in_.text(n, "index");
    if (!t) return;
    if (therock::find_channel(*t)) {
      s_.channel = *t;  // a channel name where a URL goes: the same as channel:
      s_.index.clear();
    } else if (t->rfind("http://", 0) == 0 || t->rfind("https://", 0) == 0) {
      std::string authority = t->substr(t->find("//") + 2);
      authority = authority.substr(0, authority.find('/'));
      if (authority.find('@') != std::string::npos) {
        in_.error(n, "the rocm index URL has credentials in it",
                  "credentials never go into a recipe; TheRock's indexes are public");
        return;
      }
      s_.index = *t;
      s_.channel.clear();
    } else {
      std::string hint = did_you_mean(*t, therock::channel_names());
      in_.error(n, "'" + *t + "' is neither a TheRock channel nor an http(s) index URL",
                hint.empty() ? "use channel: (" + join(therock::channel_names(), ", ") + ") or an index URL" : hint);
      return;
    }
    s_.index_where = in_.at(n);
  }

  void targets(const YAML::Node& n) {
    // A list, or one PYTORCH_ROCM_ARCH-style string ("gfx90a;gfx942").
    auto list = in_.string_list(n, "targets");
    if (!list) return;
    std::string joined;
    for (const auto& t : *list) joined += (joined.empty() ? "" : ";") + t;
    try {
      s_.targets = therock::parse_targets(joined);
      s_.targets_where = in_.at(n);
    } catch (const InputError& e) {
      in_.error(n, e.what(), e.hint());
    }
  }

  void components(const YAML::Node& n) {
    auto list = in_.string_list(n, "components");
    if (!list) return;
    std::vector<std::string> out;
    for (const auto& c : *list) {
      if (std::find(kComponents.begin(), kComponents.end(), c) == kComponents.end()) {
        std::string hint = did_you_mean(c, kComponents);
        in_.error(n, "unknown rocm component '" + c + "'",
                  hint.empty() ? "components are the extras of `rocm`: libraries, devel, profiler" : hint);
        return;
      }
      if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    }
    s_.components = std::move(out);
  }

  void version(const YAML::Node& n) {
    auto t = in_.text(n, "version");
    if (!t) return;
    if (*t != "latest") {
      try {
        (void)python::Version::parse(*t);
      } catch (const InputError&) {
        in_.error(n, "rocm version '" + *t + "' is not a version",
                  "write 'latest' or an exact version from the index, e.g. 7.10.0a20251120");
        return;
      }
    }
    s_.version = *t;
    s_.version_where = in_.at(n);
  }

  void env(const YAML::Node& n) {
    auto pairs = in_.string_map(n, "env");
    if (!pairs) return;
    static const std::regex kGfxVersion("[0-9]+\\.[0-9]+\\.[0-9]+");
    for (const auto& [key, value] : *pairs) {
      YAML::Node item = n[key];
      if (std::find(kKnobs.begin(), kKnobs.end(), key) == kKnobs.end()) {
        std::string hint = did_you_mean(key, kKnobs);
        in_.error(item, "'" + key + "' is not a ROCm knob rockpack knows",
                  hint.empty() ? "put other variables in the recipe's top-level env:" : hint);
        continue;
      }
      if (key == "HSA_OVERRIDE_GFX_VERSION" && !std::regex_match(value, kGfxVersion)) {
        in_.error(item, "HSA_OVERRIDE_GFX_VERSION must be MAJOR.MINOR.STEPPING, got '" + value + "'",
                  "e.g. 11.0.0 to run gfx1100 code");
        continue;
      }
      if (key == "PYTORCH_CUDA_ALLOC_CONF" && value.find("max_split_size_mb") != std::string::npos) {
        in_.error(item, "PYTORCH_CUDA_ALLOC_CONF must not set max_split_size_mb on ROCm",
                  "the HIP caching allocator rejects it; use e.g. expandable_segments:True");
        continue;
      }
      // An init-capture, not [&]: clang 14 (the fuzz build's compiler) cannot capture a structured binding.
      auto same =
          std::find_if(s_.env.begin(), s_.env.end(), [&name = key](const auto& kv) { return kv.first == name; });
      if (same != s_.env.end()) same->second = value;
      else s_.env.emplace_back(key, value);
    }
  }

  const DocumentReader& in_;
  RocmSection& s_;
};

}  // namespace

void merge_rocm_section(const DocumentReader& in, const YAML::Node& node, std::optional<RocmSection>& section) {
  if (!section) section.emplace();
  RocmSectionReader(in, *section).read(node);
}

void check_rocm_section(const Recipe& recipe, Diagnostics& diag) {
  const RocmSection& s = *recipe.rocm;
  if (s.targets.empty())
    diag.error(s.where, "the rocm section needs 'targets'",
               "the GPU targets, as in PYTORCH_ROCM_ARCH: targets: gfx942 (or \"gfx90a;gfx942\")");
  if (!recipe.python)
    diag.error(s.where, "the rocm section needs a python section",
               "TheRock's ROCm is a set of Python packages: add python: with interpreter: (or standalone:) and venv:");
}

}  // namespace rp::recipe
