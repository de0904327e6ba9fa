#include "python/interpreter.hpp"

#include <algorithm>
#include <set>

#include "python/image_facts.hpp"
#include "python/sysconfigdata.hpp"
#include "python/text.hpp"
#include "util/error.hpp"

namespace rp::python {

namespace {

std::string absolute(std::string_view path) {
  std::string out(path);
  if (out.empty() || out.front() != '/') out.insert(out.begin(), '/');
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string dirname(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return "/";
  return path.substr(0, slash);
}

std::string basename(const std::string& path) { return path.substr(path.rfind('/') + 1); }

std::string join_dir(const std::string& dir, const std::string& name) {
  return dir == "/" ? "/" + name : dir + "/" + name;
}

bool is_dir(const FileTree& fs, const std::string& path) {
  auto real = fs.realpath(path);
  if (!real) return false;
  auto node = fs.lstat(*real);
  return node && node->type == EntryType::kDirectory;
}

bool is_file(const FileTree& fs, const std::string& path) {
  auto real = fs.realpath(path);
  if (!real) return false;
  auto node = fs.lstat(*real);
  return node && node->type == EntryType::kFile;
}

struct MajorMinor {
  int major = 0, minor = 0;
  bool free_threaded = false;  // "python3.13t"
};

// "python3.11" -> 3.11; "python3.13t" -> 3.13 free-threaded; "python3" -> nullopt.
std::optional<MajorMinor> version_from_name(std::string_view name) {
  if (name.substr(0, 6) != "python") return std::nullopt;
  name.remove_prefix(6);
  MajorMinor mm;
  if (!name.empty() && name.back() == 't') {
    mm.free_threaded = true;
    name.remove_suffix(1);
  }
  size_t dot = name.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 >= name.size() || dot > 2 || name.size() - dot > 3)
    return std::nullopt;
  for (size_t i = 0; i < name.size(); ++i)
    if (i != dot && (name[i] < '0' || name[i] > '9')) return std::nullopt;
  mm.major = std::stoi(std::string(name.substr(0, dot)));
  mm.minor = std::stoi(std::string(name.substr(dot + 1)));
  return mm;
}

std::string stdlib_name(const MajorMinor& mm) {
  return "python" + std::to_string(mm.major) + "." + std::to_string(mm.minor) + (mm.free_threaded ? "t" : "");
}

[[noreturn]] void throw_not_an_interpreter(const FileTree& fs, const std::string& path, const std::string& why) {
  std::string dir = dirname(path);
  std::vector<std::string> pythons;
  for (const auto& name : fs.list(dir))
    if (name.rfind("python", 0) == 0) pythons.push_back(join_dir(dir, name));
  std::string hint;
  if (pythons.empty()) {
    hint = "the image has no python* in " + dir + "; install Python in the base image or use python.standalone";
  } else {
    hint = "the image has in " + dir + ":";
    for (size_t i = 0; i < pythons.size() && i < 12; ++i) hint += " " + pythons[i];
    if (pythons.size() > 12) hint += " ...";
    hint += "; set python.interpreter to one of them";
  }
  throw InputError("python interpreter " + path + " " + why, hint);
}

// The major.minor of the interpreter: from its file name, else from the one lib/pythonX.Y with an
// os.py above the executable (python-build-standalone's bin/python3 is a symlink, but a renamed copy
// is not).
MajorMinor find_major_minor(const FileTree& fs, const Interpreter& py) {
  if (auto mm = version_from_name(basename(py.real_executable))) return *mm;
  if (auto mm = version_from_name(basename(py.executable))) return *mm;
  std::set<std::pair<int, int>> seen;
  std::optional<MajorMinor> found;
  for (std::string dir = dirname(py.real_executable);; dir = dirname(dir)) {
    for (const auto& name : fs.list(join_dir(dir, "lib"))) {
      auto mm = version_from_name(name);
      if (!mm || !is_file(fs, join_dir(join_dir(join_dir(dir, "lib"), name), "os.py"))) continue;
      if (seen.insert({mm->major, mm->minor}).second) found = mm;
    }
    if (!seen.empty() || dir == "/") break;
  }
  if (seen.size() == 1) return *found;
  throw_not_an_interpreter(fs, py.executable,
                           seen.empty() ? "has no version in its name and no lib/python3.X/os.py next to it"
                                        : "has no version in its name and several lib/python3.X next to it");
}

// sys.prefix as CPython's getpath computes it: the first directory, from the executable's own
// upwards, that holds lib/pythonX.Y/os.py.
std::optional<std::string> find_prefix(const FileTree& fs, const std::string& real_executable, const std::string& lib_name) {
  for (std::string dir = dirname(real_executable);; dir = dirname(dir)) {
    if (is_file(fs, join_dir(dir, "lib/" + lib_name + "/os.py"))) return dir;
    if (dir == "/") return std::nullopt;
  }
}

// The _sysconfigdata module of this interpreter. Debian ships it under two names (one a symlink);
// a debug build's ("_sysconfigdata_d_...") is only taken when there is nothing else.
std::string find_sysconfigdata(const FileTree& fs, const Interpreter& py) {
  std::vector<std::pair<int, std::string>> ranked;  // lower rank is better
  std::set<std::string> seen_real;
  for (const auto& name : fs.list(py.stdlib)) {
    if (name.rfind("_sysconfigdata_", 0) != 0 || name.size() < 4 || name.substr(name.size() - 3) != ".py") continue;
    std::string path = join_dir(py.stdlib, name);
    auto real = fs.realpath(path);
    if (!real || !seen_real.insert(*real).second) continue;
    int rank = 0;
    if (name.find(py.machine) == std::string::npos) rank += 2;
    if (name.rfind("_sysconfigdata_d", 0) == 0) rank += 1;
    ranked.emplace_back(rank, path);
  }
  if (ranked.empty())
    throw InputError("the Python installation of " + py.executable + " is incomplete: no _sysconfigdata_*.py in " +
                         py.stdlib,
                     "rockpack reads the interpreter's build configuration from that file; use a complete Python "
                     "(or python.standalone)");
  std::sort(ranked.begin(), ranked.end());
  return ranked.front().second;
}

std::string full_version(const FileTree& fs, Interpreter& py) {
  std::string mm = std::to_string(py.major) + "." + std::to_string(py.minor);
  auto matches = [&](const std::string& v) { return v == mm || v.rfind(mm + ".", 0) == 0; };
  if (auto header = fs.read(py.include + "/patchlevel.h"))
    if (auto v = version_from_patchlevel(*header); v && matches(*v)) return *v;
  if (auto status = fs.read("/var/lib/dpkg/status"))
    if (auto v = version_from_dpkg_status(*status, py.major, py.minor)) return *v;
  for (const auto& name : fs.list("/var/lib/dpkg/status.d"))  // distroless: one file per package
    if (name.find("python" + mm) != std::string::npos)
      if (auto text = fs.read("/var/lib/dpkg/status.d/" + name))
        if (auto v = version_from_dpkg_status(*text, py.major, py.minor)) return *v;
  if (auto db = fs.read("/lib/apk/db/installed"))
    if (auto v = version_from_apk_installed(*db, py.major, py.minor)) return *v;
  py.notes.push_back("the full version of " + py.executable + " is not recorded in the image (no patchlevel.h, no " +
                     "package database entry): assuming " + mm + ".0");
  return mm + ".0";
}

// A path of the build machine recorded in sysconfigdata, moved to where the installation really is
// (python-build-standalone records "/install"; a relocated prefix keeps the old one).
std::string relocate(const std::string& path, const std::string& built_prefix, const std::string& prefix) {
  if (built_prefix.empty() || built_prefix == prefix) return path;
  if (path == built_prefix) return prefix;
  if (path.rfind(built_prefix + "/", 0) == 0) return prefix + path.substr(built_prefix.size());
  return path;
}

// Debian and Ubuntu patch their python to install into /usr/local/lib/pythonX.Y/dist-packages and
// keep /usr/lib/python3/dist-packages for apt; their python has that directory.
bool is_debian_python(const FileTree& fs, const Interpreter& py) {
  return py.prefix == "/usr" && is_dir(fs, "/usr/lib/python3/dist-packages");
}

}  // namespace

std::string machine_for_platform(const Platform& platform) {
  const std::string& a = platform.architecture;
  if (a == "amd64") return "x86_64";
  if (a == "arm64") return "aarch64";
  if (a == "386") return "i686";
  if (a == "arm") return platform.variant == "v6" ? "armv6l" : "armv7l";
  if (a == "ppc64le" || a == "s390x" || a == "riscv64") return a;
  throw InputError("platform " + platform.str() + " is not supported for Python packages",
                   "use linux/amd64, linux/arm64, linux/arm/v7, linux/386, linux/ppc64le, linux/s390x or linux/riscv64");
}

bool interpreter_file_of_interest(std::string_view path) {
  // The last three components: ".../<grandparent>/<parent>/<base>".
  auto component = [&](int from_end) -> std::string_view {
    size_t end = path.size();
    for (int i = 0; i < from_end; ++i) {
      size_t slash = path.rfind('/', end - 1);
      if (slash == std::string_view::npos || slash == 0) return {};
      end = slash;
    }
    size_t slash = end == 0 ? std::string_view::npos : path.rfind('/', end - 1);
    size_t begin = slash == std::string_view::npos ? 0 : slash + 1;
    return path.substr(begin, end - begin);
  };
  std::string_view base = component(0);
  bool in_python_lib = component(1).rfind("python3.", 0) == 0 && component(2) == "lib";
  bool in_python_include = component(1).rfind("python3.", 0) == 0 && component(2) == "include";
  if (base.rfind("_sysconfigdata_", 0) == 0 && base.size() > 3 && base.substr(base.size() - 3) == ".py")
    return in_python_lib;
  if (base == "EXTERNALLY-MANAGED") return in_python_lib;
  if (base == "patchlevel.h") return in_python_include;
  if (path == "var/lib/dpkg/status" || path == "lib/apk/db/installed") return true;
  if (path.rfind("var/lib/dpkg/status.d/", 0) == 0) return path.find("python") != std::string_view::npos;
  // The C library, only where the dynamic loader looks for it.
  bool lib_dir = path.rfind("lib", 0) == 0 || path.rfind("usr/lib", 0) == 0;
  if (!lib_dir || std::count(path.begin(), path.end(), '/') > 3) return false;
  if (base == "libc.so.6") return true;
  if (base.rfind("libc-2.", 0) == 0 && base.size() > 3 && base.substr(base.size() - 3) == ".so") return true;
  return false;
}

Interpreter read_interpreter(const FileTree& fs, const std::string& path, const Platform& platform) {
  Interpreter py;
  py.executable = absolute(path);
  py.machine = machine_for_platform(platform);

  if (!fs.lstat(py.executable)) throw_not_an_interpreter(fs, py.executable, "does not exist in the image");
  auto real = fs.realpath(py.executable);
  if (!real) throw_not_an_interpreter(fs, py.executable, "is a dangling or looping symlink in the image");
  auto node = fs.lstat(*real);
  if (!node || node->type != EntryType::kFile)
    throw_not_an_interpreter(fs, py.executable, "is not a regular file (it resolves to " + *real + ")");
  if ((node->mode & 0111) == 0) throw_not_an_interpreter(fs, py.executable, "is not executable");
  py.real_executable = *real;

  MajorMinor mm = find_major_minor(fs, py);
  py.major = mm.major;
  py.minor = mm.minor;
  std::string lib_name = stdlib_name(mm);
  auto prefix = find_prefix(fs, py.real_executable, lib_name);
  if (!prefix)
    throw InputError("no standard library found for " + py.executable + ": no lib/" + lib_name +
                         "/os.py in any directory above " + dirname(py.real_executable),
                     "the image's Python installation is incomplete");
  py.prefix = *prefix;
  py.stdlib = join_dir(py.prefix, "lib/" + lib_name);

  std::string sysconfig_path = find_sysconfigdata(fs, py);
  auto sysconfig_text = fs.read(sysconfig_path);
  if (!sysconfig_text)
    throw Error("the contents of " + sysconfig_path + " were not kept while reading the image",
                "internal error: RootfsView::add_layer must keep interpreter_file_of_interest files");
  SysconfigVars vars = parse_sysconfigdata(*sysconfig_text, sysconfig_path);

  std::string mm_text = std::to_string(py.major) + "." + std::to_string(py.minor);
  if (auto v = vars.get("VERSION"); v && *v != mm_text)
    throw InputError(sysconfig_path + " describes Python " + *v + ", but " + py.executable + " is Python " + mm_text,
                     "the image's Python installation is inconsistent");
  py.abiflags = vars.get("ABIFLAGS").value_or("");
  if (vars.get_int("Py_GIL_DISABLED").value_or(0) == 1 && py.abiflags.find('t') == std::string::npos)
    py.abiflags += "t";
  auto soabi = vars.get("SOABI");
  if (!soabi || soabi->empty())
    throw InputError(sysconfig_path + " has no SOABI", "the image's Python installation looks damaged");
  py.soabi = *soabi;

  std::string built_prefix = vars.get("prefix").value_or("");
  std::string default_include = join_dir(py.prefix, "include/python" + mm_text + py.abiflags);
  py.include = relocate(vars.get("INCLUDEPY").value_or(default_include), built_prefix, py.prefix);
  if (!built_prefix.empty() && built_prefix != py.prefix)
    py.notes.push_back(sysconfig_path + " was built for prefix " + built_prefix + "; the interpreter lives at " +
                       py.prefix);

  py.version = full_version(fs, py);

  bool musl = py.soabi.find("musl") != std::string::npos || vars.get("MULTIARCH").value_or("").find("musl") != std::string::npos;
  auto libc = find_libc(fs, py.machine, musl);
  if (!libc)
    throw InputError("the image has no C library for " + py.executable + " (no libc.so.6 or ld-musl-*.so.1 in /lib, "
                         "/usr/lib, /lib64, /usr/lib64 or the multiarch directories)",
                     "a Python image without libc cannot run; check the base image");
  py.libc = libc->kind;
  py.libc_version = libc->version;
  if (py.libc == "glibc" && py.libc_version.empty())
    throw InputError("cannot tell the glibc version of " + libc->path, "the image's C library looks damaged");
  if (py.libc == "musl" && py.libc_version.empty())
    py.notes.push_back("musl found at " + libc->path + " but its version is not recorded in the image");

  if (is_debian_python(fs, py)) {
    std::string site = "/usr/local/lib/python" + mm_text + "/dist-packages";
    py.system_scheme.prefix = "/usr/local";
    py.system_scheme.purelib = site;
    py.system_scheme.platlib = site;
    py.system_scheme.scripts = "/usr/local/bin";
    py.system_scheme.data = "/usr/local";
    py.system_scheme.include = "/usr/local/include/python" + mm_text;
    py.system_scheme.python = py.real_executable;
  } else {
    py.system_scheme = InstallScheme::prefix_install(py.prefix, py.real_executable, py.major, py.minor);
  }
  py.externally_managed = fs.read(py.stdlib + "/EXTERNALLY-MANAGED");
  return py;
}

MarkerEnvironment Interpreter::marker_environment() const { return MarkerEnvironment::for_python(version, machine); }

TagPolicy Interpreter::tag_policy() const {
  if (libc != "glibc")
    throw InputError("wheels for " + libc + " (musllinux) are not supported yet (" + executable + ")",
                     "use a glibc-based image (Debian, Ubuntu) or python.standalone on one");
  return TagPolicy::for_target(std::to_string(major) + "." + std::to_string(minor), libc_version, machine);
}

nlohmann::json Interpreter::to_json() const {
  nlohmann::json scheme = {{"prefix", system_scheme.prefix},   {"purelib", system_scheme.purelib},
                           {"platlib", system_scheme.platlib}, {"scripts", system_scheme.scripts},
                           {"data", system_scheme.data},       {"include", system_scheme.include},
                           {"python", system_scheme.python}};
  nlohmann::json j = {{"executable", executable}, {"real_executable", real_executable},
                      {"version", version},       {"major", major},
                      {"minor", minor},           {"soabi", soabi},
                      {"abiflags", abiflags},     {"prefix", prefix},
                      {"stdlib", stdlib},         {"include", include},
                      {"system_scheme", scheme},  {"libc", libc},
                      {"libc_version", libc_version}, {"machine", machine},
                      {"notes", notes}};
  j["externally_managed"] = externally_managed ? nlohmann::json(*externally_managed) : nlohmann::json(nullptr);
  return j;
}

Interpreter Interpreter::from_json(const nlohmann::json& j) {
  try {
    Interpreter py;
    py.executable = j.at("executable").get<std::string>();
    py.real_executable = j.at("real_executable").get<std::string>();
    py.version = j.at("version").get<std::string>();
    py.major = j.at("major").get<int>();
    py.minor = j.at("minor").get<int>();
    py.soabi = j.at("soabi").get<std::string>();
    py.abiflags = j.at("abiflags").get<std::string>();
    py.prefix = j.at("prefix").get<std::string>();
    py.stdlib = j.at("stdlib").get<std::string>();
    py.include = j.at("include").get<std::string>();
    const auto& s = j.at("system_scheme");
    py.system_scheme.prefix = s.at("prefix").get<std::string>();
    py.system_scheme.purelib = s.at("purelib").get<std::string>();
    py.system_scheme.platlib = s.at("platlib").get<std::string>();
    py.system_scheme.scripts = s.at("scripts").get<std::string>();
    py.system_scheme.data = s.at("data").get<std::string>();
    py.system_scheme.include = s.at("include").get<std::string>();
    py.system_scheme.python = s.at("python").get<std::string>();
    if (!j.at("externally_managed").is_null()) py.externally_managed = j.at("externally_managed").get<std::string>();
    py.libc = j.at("libc").get<std::string>();
    py.libc_version = j.at("libc_version").get<std::string>();
    py.machine = j.at("machine").get<std::string>();
    py.notes = j.at("notes").get<std::vector<std::string>>();
    return py;
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("malformed interpreter record: ") + e.what(), "remove the rockpack cache and build again");
  }
}

}  // namespace rp::python
