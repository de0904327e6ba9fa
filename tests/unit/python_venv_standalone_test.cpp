#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "assemble/store_archives.hpp"
#include "assemble/tar_index.hpp"
#include "image/rootfs_view.hpp"
#include "image_test_support.hpp"
#include "python/interpreter.hpp"
#include "python/standalone.hpp"
#include "python/venv.hpp"
#include "test_helpers.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

using namespace rp;
using namespace rp::python;
using namespace rp::test;

namespace {

Interpreter debian_interpreter() {
  Interpreter py;
  py.executable = "/usr/bin/python3";
  py.real_executable = "/usr/bin/python3.11";
  py.version = "3.11.2";
  py.major = 3;
  py.minor = 11;
  return py;
}

std::map<std::string, Entry> by_path(const std::vector<Entry>& entries) {
  std::map<std::string, Entry> out;
  for (const auto& e : entries) out[e.path] = e;
  return out;
}

std::string content_of_source(const rp::ContentSource& source) {
  StringSink sink;
  source.write_to(sink);
  return sink.take();
}

std::string content_of(const Entry& e) { return content_of_source(*e.content); }

std::string run(const std::string& command) {
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  REQUIRE(p);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

}  // namespace

TEST_CASE("venv: the files python -m venv --without-pip makes") {
  auto entries = venv_entries(debian_interpreter(), "/opt/venv", "python.venv");
  for (const auto& e : entries) {
    CHECK(e.origin == "python.venv");
    CHECK(e.uid == 0);
    CHECK(e.path.rfind("opt/venv", 0) == 0);
  }
  auto m = by_path(entries);
  CHECK(m.at("opt/venv").type == EntryType::kDirectory);
  CHECK(m.at("opt/venv/lib/python3.11/site-packages").type == EntryType::kDirectory);
  CHECK(m.at("opt/venv/include").type == EntryType::kDirectory);
  CHECK(m.at("opt/venv/bin/python").link_target == "/usr/bin/python3.11");
  CHECK(m.at("opt/venv/bin/python3").link_target == "python");
  CHECK(m.at("opt/venv/bin/python3.11").link_target == "python");
  CHECK(m.at("opt/venv/lib64").link_target == "lib");
  CHECK(m.at("opt/venv/lib64").type == EntryType::kSymlink);
  CHECK(content_of(m.at("opt/venv/pyvenv.cfg")) ==
        "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n"
        "executable = /usr/bin/python3.11\ncommand = /usr/bin/python3.11 -m venv /opt/venv\n");
  CHECK(m.at("opt/venv/pyvenv.cfg").mode == 0644);
  CHECK(m.count("opt/venv/bin/activate.fish"));
  CHECK(m.count("opt/venv/bin/activate.csh"));

  // The entries are a valid layer list, and the venv's python resolves through them.
  finalize_entries(entries);
  RootfsView view;
  view.add_entries({file_entry("usr/bin/python3.11", "ELF", 0755)});
  view.add_entries(entries);
  CHECK(view.realpath("/opt/venv/bin/python3") == "/usr/bin/python3.11");
  CHECK(view.realpath("/opt/venv/lib64/python3.11/site-packages") == "/opt/venv/lib/python3.11/site-packages");

  auto scheme = venv_scheme(debian_interpreter(), "/opt/venv/");
  CHECK(scheme.purelib == "/opt/venv/lib/python3.11/site-packages");
  CHECK(scheme.scripts == "/opt/venv/bin");
  CHECK(scheme.python == "/opt/venv/bin/python");

  CHECK_THROWS_AS(venv_entries(debian_interpreter(), "venv", "t"), InputError);
  CHECK_THROWS_AS(venv_entries(debian_interpreter(), "/", "t"), InputError);
  CHECK_THROWS_AS(venv_entries(debian_interpreter(), "/opt/../venv", "t"), InputError);
}

TEST_CASE("venv: bin/activate sets and restores PATH, VIRTUAL_ENV and the prompt") {
  TempDir dir;
  auto m = by_path(venv_entries(debian_interpreter(), "/opt/my venv's", "t"));
  auto script = dir.write("activate", content_of(m.at("opt/my venv's/bin/activate")));
  // A non-interactive bash drops an inherited PS1: set it inside.
  std::string out = run("env -i PATH=/usr/bin:/bin bash -c 'PS1=\">\"; . \"" + script.string() +
                        "\"; echo \"$VIRTUAL_ENV|$PATH|$PS1\"; deactivate; echo \"${VIRTUAL_ENV:-unset}|$PATH|$PS1\"; "
                        "type deactivate >/dev/null 2>&1 || echo gone' 2>&1");
  CHECK(out ==
        "/opt/my venv's|/opt/my venv's/bin:/usr/bin:/bin|(my venv's) >\n"
        "unset|/usr/bin:/bin|>\n"
        "gone\n");
}

namespace {

// A python-build-standalone-like archive: python/ with bin, lib, include; a hardlink; a long path.
std::vector<Entry> standalone_tree(const std::string& top = "python") {
  std::string sysconfig = "build_time_vars = {'ABIFLAGS': '', 'SOABI': 'cpython-312-x86_64-linux-gnu', "
                          "'VERSION': '3.12', 'prefix': '/install', 'INCLUDEPY': '/install/include/python3.12'}\n";
  std::string long_dir = top + "/lib/python3.12/site-packages/" + std::string(120, 'n');
  return {dir_entry(top),
          dir_entry(top + "/bin"),
          file_entry(top + "/bin/python3.12", "\x7f" "ELF standalone", 0755),
          symlink_entry(top + "/bin/python3", "python3.12"),
          hardlink_entry(top + "/bin/python3.12-hard", top + "/bin/python3.12"),
          symlink_entry(top + "/bin/outside", "/usr/bin/env"),
          dir_entry(top + "/lib"),
          dir_entry(top + "/lib/python3.12"),
          file_entry(top + "/lib/python3.12/os.py", "# os"),
          file_entry(top + "/lib/python3.12/_sysconfigdata__linux_x86_64-linux-gnu.py", sysconfig),
          dir_entry(top + "/lib/python3.12/site-packages"),
          dir_entry(long_dir),
          file_entry(long_dir + "/module.py", "print('long')\n"),
          dir_entry(top + "/include"),
          dir_entry(top + "/include/python3.12"),
          file_entry(top + "/include/python3.12/patchlevel.h", "#define PY_VERSION \"3.12.7\"\n")};
}

std::string archive_blob(ContentStore& store, const std::vector<Entry>& tree, const std::string& compression) {
  std::string tar = raw_tar(tree);
  if (compression == "none") return store.put(tar);
  StringSink out;
  auto c = make_compressor(Compression::parse(compression), out, 1);
  c->write(tar.data(), tar.size());
  c->finish();
  return store.put(out.str());
}

}  // namespace

TEST_CASE("standalone: archive members stream into entries under the prefix, index cached") {
  for (const char* compression : {"gzip", "zstd", "none"}) {
    CAPTURE(compression);
    TempDir dir;
    ContentStore store(dir.path / "store");
    std::string digest = archive_blob(store, standalone_tree(), compression);
    auto archive = rp::open_store_archive(store, digest, "cpython-3.12.7.tar.gz");
    auto entries = standalone_entries(*archive, "cpython-3.12.7.tar.gz", "/opt/python", "python", "python.standalone");
    auto m = by_path(entries);
    CHECK(m.at("opt/python").type == EntryType::kDirectory);
    const Entry& exe = m.at("opt/python/bin/python3.12");
    CHECK(exe.mode == 0755);
    CHECK(exe.origin == "python.standalone");
    CHECK(content_of(exe) == "\x7f" "ELF standalone");
    CHECK(exe.content->content_key() == "tar-member:" + digest + ":python/bin/python3.12");
    CHECK(exe.content->describe() == "cpython-3.12.7.tar.gz:python/bin/python3.12");
    CHECK(m.at("opt/python/bin/python3").link_target == "python3.12");
    CHECK(m.at("opt/python/bin/outside").link_target == "/usr/bin/env");
    CHECK(m.at("opt/python/bin/python3.12-hard").type == EntryType::kHardlink);
    CHECK(m.at("opt/python/bin/python3.12-hard").link_target == "opt/python/bin/python3.12");
    std::string long_file = "opt/python/lib/python3.12/site-packages/" + std::string(120, 'n') + "/module.py";
    CHECK(content_of(m.at(long_file)) == "print('long')\n");

    // The index is a store record now: with the archive gone, a warm run still works.
    auto record = store.get_record("tar-index", digest);
    REQUIRE(record);
    auto index = rp::TarIndex::parse(store.read_all((*record)["index"].get<std::string>()));
    // A plain tar is indexed where it is; a compressed one was decompressed into a blob of its own.
    CHECK((index.tar_digest == digest) == (std::string(compression) == "none"));
    CHECK(index.members.size() > 5);
    if (std::string(compression) != "none") std::filesystem::remove(store.blob_path(digest));
    auto again = standalone_entries(*rp::open_store_archive(store, digest, "cpython-3.12.7.tar.gz"),
                                    "cpython-3.12.7.tar.gz", "/opt/python", "python", "s");
    CHECK(again.size() == entries.size());

    // The caller's next step: read the interpreter from the planned entries.
    finalize_entries(entries);
    RootfsView view;
    view.add_entries({file_entry("lib/x86_64-linux-gnu/libc.so.6", "GNU C Library stable release version 2.36.")});
    view.add_entries(entries);
    Interpreter py = read_interpreter(view, "/opt/python/bin/python3", Platform::parse("linux/amd64"));
    CHECK(py.version == "3.12.7");
    CHECK(py.prefix == "/opt/python");
    CHECK(py.real_executable == "/opt/python/bin/python3.12");
    CHECK(py.include == "/opt/python/include/python3.12");
  }
}

TEST_CASE("store archives: an archive handed over as bytes is copied into the store once") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  std::string tar = raw_tar(standalone_tree());
  // The same bytes with a content key the store has never seen: copied, indexed, then found by the key.
  rp::InlineContent source(tar);
  rp::StoreArchiveOpener opener(store);
  auto first = opener.open(source, "devel.tar");
  auto record = store.get_record("archive-copy", source.content_key());
  REQUIRE(record);
  CHECK((*record)["blob"] == rp::sha256_digest(tar));
  const auto& members = first->members();
  auto it = std::find_if(members.begin(), members.end(),
                         [](const rp::TarIndexMember& m) { return m.path == "python/lib/python3.12/os.py"; });
  REQUIRE(it != members.end());
  auto content = first->content(*it);
  CHECK(content_of_source(*content) == "# os");
  CHECK(content->content_key() == "tar-member:" + rp::sha256_digest(tar) + ":python/lib/python3.12/os.py");
  // Warm: the record leads to the blob and the index; the result is the same.
  auto second = opener.open(source, "devel.tar");
  CHECK(second->members().size() == members.size());
}

TEST_CASE("standalone: members outside the top directory, unsafe paths and bad archives are InputErrors") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  {
    auto tree = standalone_tree();
    tree.push_back(file_entry("README", "x"));
    std::string digest = archive_blob(store, tree, "gzip");
    CHECK_THROWS_WITH_AS(standalone_entries(*rp::open_store_archive(store, digest, "a.tar.gz"), "a.tar.gz", "/opt/python", "python", "t"),
                         doctest::Contains("outside its top directory"), InputError);
    CHECK_THROWS_WITH_AS(standalone_entries(*rp::open_store_archive(store, digest, "a.tar.gz"), "a.tar.gz", "/opt/python", "cpython", "t"),
                         doctest::Contains("outside its top directory"), InputError);
  }
  {
    auto tree = standalone_tree();
    tree.push_back(file_entry("python/../../etc/passwd", "x"));
    std::string digest = archive_blob(store, tree, "none");
    CHECK_THROWS_WITH_AS(standalone_entries(*rp::open_store_archive(store, digest, "b.tar"), "b.tar", "/opt/python", "python", "t"),
                         doctest::Contains(".."), InputError);
  }
  {
    auto tree = standalone_tree();
    tree.push_back(hardlink_entry("python/bin/evil", "etc/shadow"));
    std::string digest = archive_blob(store, tree, "none");
    CHECK_THROWS_WITH_AS(standalone_entries(*rp::open_store_archive(store, digest, "c.tar"), "c.tar", "/opt/python", "python", "t"),
                         doctest::Contains("hardlink"), InputError);
  }
  {
    std::string digest = store.put(std::string(2048, 'x'));
    CHECK_THROWS_AS(standalone_entries(*rp::open_store_archive(store, digest, "d.tar"), "d.tar", "/opt/python", "python", "t"), InputError);
  }
  {
    std::string tar = raw_tar(standalone_tree());
    std::string digest = store.put(tar.substr(0, 1500));  // truncated inside a member
    CHECK_THROWS_WITH_AS(standalone_entries(*rp::open_store_archive(store, digest, "e.tar"), "e.tar", "/opt/python", "python", "t"),
                         doctest::Contains("e.tar"), InputError);
  }
  CHECK_THROWS_AS(standalone_entries(*rp::open_store_archive(store, store.put("x"), "f.tar"), "f.tar", "opt/python", "python", "t"), InputError);
}

TEST_CASE("tar index: PAX long names and sizes agree with libarchive's reading") {
  TempDir dir;
  auto tree = standalone_tree();
  std::string tar = raw_tar(tree);
  auto path = dir.write("a.tar", tar);
  auto members = index_plain_tar(path, "a.tar");
  auto reference = read_tar(tar);
  REQUIRE(members.size() == reference.size());
  for (size_t i = 0; i < members.size(); ++i) {
    CHECK(members[i].path == reference[i].path);
    if (members[i].type == EntryType::kFile) CHECK(tar.substr(members[i].offset, members[i].size) == reference[i].data);
  }
}
