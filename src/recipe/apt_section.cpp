// The `apt:` section.
#include "recipe/apt_section.hpp"

#include <system_error>

#include "apt/patterns.hpp"
#include "apt/resolver.hpp"
#include "util/error.hpp"

namespace rp::recipe {

namespace {

const std::vector<std::string> kAptKeys = {"sources", "replace_sources", "packages", "recommends", "layers",
                                           "layer_budget", "merged_usr", "scripts"};
const std::vector<std::string> kSourceKeys = {"url", "suite", "components", "signed_by", "priority", "trusted"};
constexpr const char* kArmorStart = "-----BEGIN PGP PUBLIC KEY BLOCK-----";

class AptSectionReader {
 public:
  AptSectionReader(const DocumentReader& in, AptSection& section) : in_(in), s_(section) {}

  void read(const YAML::Node& node) {
    if (!node.IsMap()) {
      in_.error(node, "'apt' must be a mapping (sources:, packages:, ...)");
      return;
    }
    s_.where = in_.at(node);
    if (!in_.check_keys(node, kAptKeys, "apt")) return;
    if (auto n = node["sources"]) {
      if (!n.IsSequence()) in_.error(n, "'sources' must be a list of {url:, suite:, components:, signed_by:} items");
      else for (const auto& item : n) source(item);
    }
    if (auto n = node["replace_sources"]) s_.replace_sources = in_.boolean(n, "replace_sources").value_or(false);
    if (auto n = node["packages"]) packages(n);
    if (auto n = node["recommends"]) s_.recommends = in_.boolean(n, "recommends").value_or(s_.recommends);
    if (auto n = node["merged_usr"]) s_.merged_usr = in_.boolean(n, "merged_usr").value_or(s_.merged_usr);
    if (auto n = node["layers"]) layers(n);
    if (auto n = node["scripts"]) {
      if (auto t = in_.text(n, "scripts")) {
        if (*t == "native") s_.scripts = AptScripts::kNative;
        else if (*t == "run") s_.scripts = AptScripts::kRun;
        else if (*t == "auto") s_.scripts = AptScripts::kAuto;
        else in_.error(n, "unknown scripts: '" + *t + "'",
                       "use native (their common effects produced without running them; works everywhere), run "
                       "(preinst and dpkg --configure in the sandbox; needs namespaces, see docs/run.md) or auto "
                       "(run where the sandbox works, else native)");
      }
    }
    if (auto n = node["layer_budget"]) s_.layer_budget = in_.number(n, "layer_budget", 10, 100).value_or(0);
  }

 private:
  void packages(const YAML::Node& n) {
    auto one = [&](const YAML::Node& item) {
      auto text = in_.text(item, "packages");
      if (!text) return;
      try {
        if (apt::is_pattern(*text)) apt::check_pattern(*text);
        else (void)apt::Request::parse(*text);
      } catch (const InputError& e) {
        in_.error(item, e.what(), e.hint().empty() ? "write a package as name, name=version-glob or \"name (>= version)\""
                                                    : e.hint());
        return;
      }
      s_.packages.emplace_back(*text, in_.at(item));
    };
    if (n.IsScalar()) one(n);
    else if (!n.IsSequence()) in_.error(n, "'packages' must be a list of package names");
    else for (const auto& item : n) one(item);
  }

  void layers(const YAML::Node& n) {
    auto t = in_.text(n, "layers");
    if (!t) return;
    if (*t == "one") s_.layers = AptLayers::kOne;
    else if (*t == "per-origin") s_.layers = AptLayers::kPerOrigin;
    else if (*t == "per-package") s_.layers = AptLayers::kPerPackage;
    else in_.error(n, "unknown apt layers mode '" + *t + "'", "use one (the default), per-origin or per-package");
  }

  void source(const YAML::Node& node) {
    if (!node.IsMap()) {
      in_.error(node, "an apt source must be a mapping {url:, suite:, components:, signed_by:}");
      return;
    }
    if (!in_.check_keys(node, kSourceKeys, "apt source")) return;
    AptSource src;
    src.where = in_.at(node);
    bool ok = true;
    if (auto n = node["url"]) {
      auto url = in_.text(n, "url");
      if (url && url->rfind("http://", 0) != 0 && url->rfind("https://", 0) != 0) {
        in_.error(n, "the apt source URL '" + *url + "' is not http:// or https://");
        ok = false;
      } else if (url && url->find('@') != std::string::npos && url->find('@') < url->find('/', url->find("://") + 3)) {
        in_.error(n, "the apt source URL carries credentials", "credentials never go into a recipe");
        ok = false;
      } else if (url) {
        src.url = *url;
        while (src.url.size() > 8 && src.url.back() == '/') src.url.pop_back();
      }
    } else {
      in_.error(node, "an apt source needs a url:");
      ok = false;
    }
    if (auto n = node["suite"]) {
      if (auto t = in_.text(n, "suite")) src.suite = *t;
    } else {
      in_.error(node, "an apt source needs a suite: (a codename such as bookworm, or a path ending in / for a flat repository)");
      ok = false;
    }
    if (auto n = node["components"]) src.components = in_.string_list(n, "components").value_or(std::vector<std::string>{});
    bool flat = !src.suite.empty() && src.suite.back() == '/';
    if (!src.suite.empty() && flat && !src.components.empty()) {
      in_.error(node, "a flat source (suite ending in '/') has no components");
      ok = false;
    } else if (!src.suite.empty() && !flat && src.components.empty()) {
      in_.error(node, "the apt source " + src.url + " " + src.suite + " lists no components",
                "add components: [main], or end the suite with '/' for a flat repository");
      ok = false;
    }
    if (auto n = node["trusted"]) src.trusted = in_.boolean(n, "trusted").value_or(false);
    if (auto n = node["priority"]) {
      // Pins may be negative (never a candidate); YAML gives us text.
      auto t = in_.text(n, "priority");
      try {
        size_t used = 0;
        int v = t ? std::stoi(*t, &used) : 500;
        if (t && used != t->size()) throw std::invalid_argument("trailing");
        if (v < -100000 || v > 100000) throw std::out_of_range("range");
        src.priority = v;
      } catch (const std::exception&) {
        in_.error(n, "priority must be a whole number such as 500 (apt's pin priority)");
        ok = false;
      }
    }
    if (auto n = node["signed_by"]) {
      auto t = in_.text(n, "signed_by");
      if (t && t->find(kArmorStart) != std::string::npos) {
        src.signed_by_inline = *t;
      } else if (t) {
        fs::path p = in_.host_path(*t);
        std::error_code ec;
        if (!fs::is_regular_file(p, ec)) {
          in_.error(n, "the key file " + p.string() + " does not exist",
                    "signed_by takes a key file (armored .asc or binary .gpg) or an inline armored key block");
          ok = false;
        } else {
          src.signed_by_file = p;
        }
      }
    } else if (!src.trusted) {
      in_.error(node, "the apt source " + src.url + " has no signed_by: key",
                "give the key its Release is signed with (signed_by: keys/repo.asc), or opt out of verification "
                "explicitly with trusted: true");
      ok = false;
    }
    if (ok) s_.sources.push_back(std::move(src));
  }

  const DocumentReader& in_;
  AptSection& s_;
};

}  // namespace

void merge_apt_section(const DocumentReader& in, const YAML::Node& node, std::optional<AptSection>& section) {
  if (!section) section.emplace();
  AptSectionReader(in, *section).read(node);
}

}  // namespace rp::recipe
