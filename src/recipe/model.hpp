#pragma once
// The typed recipe, schema v1: what the YAML says once includes are merged, args applied and every
// ${VAR} substituted. Later stages never see YAML. See docs/recipe.md.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "util/platform.hpp"
#include "recipe/diagnostics.hpp"

namespace rp::recipe {

namespace fs = std::filesystem;

inline constexpr const char* kDefaultLayer = "files";

// One `files:` item: inline content, or a file or directory tree from the build host.
struct FileStep {
  SourceLocation where;
  std::optional<std::string> content;
  std::optional<fs::path> src;  // absolute, resolved against the declaring file's directory
  std::string dest;             // absolute path in the image
  std::optional<uint32_t> mode;
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string layer = kDefaultLayer;
};

struct SymlinkStep {
  SourceLocation where;
  std::string path;    // absolute path in the image
  std::string target;  // as written: relative or absolute
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string layer = kDefaultLayer;
};

// `python.indexes[]`: one package index (PEP 503 HTML or PEP 691 JSON), in priority order.
struct PythonIndex {
  SourceLocation where;
  std::string url;  // the simple API root ("https://host/simple/"), no credentials in it
  // Credentials, never written into the recipe itself: from ~/.netrc ($NETRC) for the index's host,
  // or from two environment variables named here.
  bool netrc = false;
  std::string username_env;
  std::string password_env;
  // Packages (normalized names; '*' globs allowed) that may come only from this index; an index
  // with a list serves nothing else.
  std::vector<std::string> packages;
  std::string layer;  // the layer its packages go into; empty = "python" for the first index, else derived
  // `verify: tls-only`: files this index lists without a sha256 are accepted on TLS alone (their
  // sha256 is computed on download, recorded in the lock, SBOM and a label). Default: refused.
  bool tls_only = false;
};

// `python.wheels[]` and `name @ URL` requirements: a wheel named by its location and hash.
struct PythonWheel {
  SourceLocation where;
  std::string url;                       // http(s)://… or file://…; empty when `path` is set
  std::optional<fs::path> path;          // absolute, resolved against the declaring file
  std::string sha256;                    // 64 lowercase hex digits; required unless verify: false
  bool verify = true;                    // false only when the recipe opts out explicitly
  std::string layer;                     // empty = the layer of direct wheels ("python-wheels")
};

// `python.standalone`: a relocatable CPython (python-build-standalone `install_only` layout: one
// top directory `python/` holding bin/, lib/, include/), unpacked at `prefix`.
struct PythonStandalone {
  SourceLocation where;
  std::string url;               // http(s)://…, file://… or a path
  std::optional<fs::path> path;  // for a local archive, absolute
  std::string sha256;
  std::string prefix = "/opt/python";
  std::string strip = "python";  // the archive's top directory
};

enum class PrereleaseMode { kIfNecessaryOrExplicit, kAllow, kDisallow };
enum class IndexStrategy { kFirstIndex, kUnsafeBestMatch };

struct PythonSection {
  SourceLocation where;
  std::optional<std::string> interpreter;  // a path in the image ("/usr/bin/python3")
  std::optional<PythonStandalone> standalone;
  std::optional<std::string> venv;  // absolute path of the virtual environment to create
  // Install into an interpreter marked EXTERNALLY-MANAGED (PEP 668) without a venv.
  bool break_system_packages = false;
  std::vector<PythonIndex> indexes;
  std::vector<std::string> find_links;  // directories (absolute) or URLs of flat HTML pages
  IndexStrategy index_strategy = IndexStrategy::kFirstIndex;
  PrereleaseMode prerelease = PrereleaseMode::kIfNecessaryOrExplicit;
  // PEP 508 strings, in order, each with where it was written (for error messages).
  std::vector<std::pair<std::string, SourceLocation>> packages;
  std::vector<fs::path> requirements;  // requirements files, absolute
  std::vector<fs::path> constraints;   // constraints files (-c), absolute
  std::vector<PythonWheel> wheels;
  // Named layers: layer name -> packages (normalized names, '*' globs) that go into it.
  std::vector<std::pair<std::string, std::vector<std::string>>> layers;
};

// `rocm:` — AMD's TheRock ROCm SDK from its Python index (docs/recipe.md, "rocm"). Installed through
// the python section's machinery, so it needs a `python:` section for the interpreter and target.
struct RocmSection {
  SourceLocation where;
  std::string source = "therock";
  // `channel:` (nightly, dev, rc, bkc, stable: TheRock's whl-next streams) or `index:` (an http(s)
  // index URL of any TheRock layout; "{family}" in it means a legacy per-family index). Neither:
  // the nightly channel. The layout is recognised from what the index serves.
  std::string channel;
  std::string index;
  SourceLocation index_where;
  // `verify: tls-only`: the index's files may come without a sha256 (whl-next publishes none);
  // their sha256 is computed on download and recorded. Default: a file without one is refused.
  bool tls_only = false;
  std::vector<std::string> targets;       // GPU targets ("gfx942") or "all"; checked against the release
  SourceLocation targets_where;
  std::vector<std::string> components = {"libraries", "devel"};  // extras of `rocm`
  std::string version = "latest";                                 // "latest" or an exact version
  SourceLocation version_where;
  bool expand_devel = true;
  std::vector<std::pair<std::string, std::string>> env;  // runtime knobs (HSA_OVERRIDE_GFX_VERSION, ...)
};

// `apt.sources[]`: one Debian/Ubuntu repository (docs/apt.md, "Sources").
struct AptSource {
  SourceLocation where;
  std::string url;                      // the repository root: "http://mirror.example/debian"
  std::string suite;                    // "bookworm"; a flat repository's suite ends in '/' ("./")
  std::vector<std::string> components;  // empty for a flat repository
  // The key(s) the Release must be signed with: a key file (armored or binary, absolute, resolved
  // against the declaring document) or an inline armored key. Exactly one unless `trusted`.
  std::optional<fs::path> signed_by_file;
  std::string signed_by_inline;
  // Pin priority, as /etc/apt/preferences.d: < 0 never a candidate. Unset: apt's default (500, or 1
  // / 100 for a NotAutomatic / ButAutomaticUpgrades Release), then the base's preferences.
  std::optional<int> priority;
  bool trusted = false;  // opt out of signature checks for this source (loudly: warning and label)
};

enum class AptLayers { kOne, kPerOrigin, kPerPackage };
// What becomes of maintainer scripts: kNative writes their common effects without running them
// (everywhere, no sandbox); kRun runs preinst and `dpkg --configure --pending` in the sandbox;
// kAuto runs them where the sandbox works and falls back to kNative, saying so, where it does not.
enum class AptScripts { kNative, kRun, kAuto };

// `apt:` — Debian packages installed natively (docs/apt.md).
struct AptSection {
  SourceLocation where;
  // Added to the base image's own /etc/apt/sources.list(.d) (with its keyrings), as one more
  // sources.list.d file would be; `replace_sources: true` uses these alone.
  std::vector<AptSource> sources;
  bool replace_sources = false;
  // Requests as written ("cmake=3.22*", "python3-dev (>= 3.10)"), each with where it was written.
  std::vector<std::pair<std::string, SourceLocation>> packages;
  bool recommends = false;
  AptLayers layers = AptLayers::kOne;
  uint32_t layer_budget = 0;  // per-package: at most this many package layers (0 = no limit), rest in one
  // Whether a scratch base gets the merged-/usr symlinks (bin -> usr/bin, ...) before packages land.
  bool merged_usr = true;
  AptScripts scripts = AptScripts::kNative;
};

// `accounts:` — users and groups written natively into /etc/passwd, group, shadow, gshadow.
struct AccountGroup {
  SourceLocation where;
  std::string name;
  std::optional<uint32_t> gid;  // nullopt: the lowest free id from 1000
  std::vector<std::string> members;
  bool replace = false;  // an existing group with this name or gid is replaced instead of an error
};

struct AccountUser {
  SourceLocation where;
  std::string name;
  std::optional<uint32_t> uid;  // nullopt: the next free id from 1000
  std::optional<uint32_t> gid;  // nullopt: a group of the user's name (created when missing)
  std::vector<std::string> groups;  // supplementary groups, by name
  std::string home;                 // default /home/<name>
  std::string shell = "/bin/sh";
  std::string gecos;
  bool create_home = true;
  bool replace = false;  // an existing user with this name or uid is replaced instead of an error
};

struct AccountsSection {
  SourceLocation where;
  std::vector<AccountGroup> groups;
  std::vector<AccountUser> users;
};

// `run:` — one command run in the sandbox on the image built so far; its changes are one layer
// (docs/run.md).
struct RunItem {
  SourceLocation where;
  std::string name;                       // default: "run-<n>" (1-based)
  std::optional<std::string> shell;       // `shell: |` — run by /bin/sh -c
  std::vector<std::string> command;       // `command: [...]` — exec'd directly
  std::vector<std::pair<std::string, std::string>> env;
  std::string user;     // "name", "uid", "name:group", "uid:gid"; empty: the base image's User, else root
  std::string workdir;  // empty: the base image's WorkingDir, else "/"
  bool network = false;
  bool keep_litter = false;   // keep /tmp, apt caches and lists, /var/log changes in the layer
  bool keep_pycache = false;  // keep the __pycache__ directories the command created
  uint32_t timeout_seconds = 3600;
  std::string layer;                      // default: the item's name
  std::vector<std::filesystem::path> cache_key;  // host files whose contents join the cache key
};

// The variant of a recipe with `matrix:` a Recipe was loaded as (LoadOptions::variant); see
// recipe/matrix_section.hpp.
struct RecipeVariant {
  std::string name;
  std::vector<std::pair<std::string, std::string>> args;  // what the matrix set
  std::vector<std::string> floating;                      // tags `rockpack publish` moves to it
};

struct Recipe {
  fs::path file;
  std::vector<fs::path> included;  // fragments, in merge order
  std::string name;
  std::map<std::string, std::string> args;  // effective values: defaults overridden by --set
  Platform platform;
  std::string base = "scratch";
  SourceLocation base_where;
  std::vector<FileStep> files;
  std::vector<SymlinkStep> symlinks;
  std::vector<std::pair<std::string, std::string>> env;  // in declaration order
  std::optional<std::string> user;
  std::optional<std::string> workdir;
  std::optional<std::vector<std::string>> entrypoint;
  std::optional<std::vector<std::string>> cmd;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::vector<std::string> tags;
  // Layer compression the image is meant to be pulled with ("zstd:10"); --compression overrides it.
  std::optional<std::string> compression;
  // The most a layer's tar may hold uncompressed ("10G", "500M", bytes); a bigger layer is split
  // (plan/layer_split.hpp). Checked for its form here, read by the plan; unset: 10 GB.
  std::optional<std::string> max_layer_size;
  std::optional<AptSection> apt;
  std::optional<AccountsSection> accounts;
  std::optional<PythonSection> python;
  std::optional<RocmSection> rocm;
  std::vector<RunItem> run;     // in order; fragments' items first
  std::vector<RunItem> checks;  // `checks:`, run by `rockpack check` on the finished image
  size_t variant_count = 0;     // how many variants its `matrix:` has (0: none)
  std::optional<RecipeVariant> variant;  // set when loaded as one of them
};

struct LoadOptions {
  std::map<std::string, std::string> set_args;  // --set KEY=VALUE
  std::optional<int64_t> source_date_epoch;     // from the environment
  int64_t now = 0;                              // build time, seconds since the epoch (for DATE)
  // The recipe's text when it comes on stdin (`build -`): then the recipe "file" is <cwd>/<stdin>,
  // and every relative path in it is relative to the working directory.
  std::optional<std::string> recipe_text;
  // Host directories `files: src` may read besides the directory of the document naming it
  // (build --allow-path); absolute. Like docker's build context, nothing else on the host is reachable.
  std::vector<fs::path> allow_paths;
  // One variant of the recipe's `matrix:` (its name): its args and tags apply; empty: the args alone.
  std::string variant;
};

inline constexpr const char* kStdinRecipeName = "<stdin>";

// Loads, merges, substitutes and validates. Throws RecipeError listing every problem found.
Recipe load_recipe(const fs::path& file, const LoadOptions& options);

// The variants of a recipe with `matrix:` (none without one), in order, with the args each sets;
// only the YAML is read. Throws RecipeError for an invalid matrix.
struct VariantSummary {
  std::string name;
  std::vector<std::pair<std::string, std::string>> args;
};
std::vector<VariantSummary> list_variants(const fs::path& file, const LoadOptions& options);

// The built-in variables for these options: DATE (UTC YYYYMMDD of SOURCE_DATE_EPOCH, else of `now`)
// and SOURCE_DATE_EPOCH (its value, "0" when unset).
std::map<std::string, std::string> builtin_variables(const LoadOptions& options);

}  // namespace rp::recipe
