// Simple-repository pages: PEP 503 HTML, PEP 691 JSON, and hostile input.
#include <doctest/doctest.h>

#include <string>

#include "python/html_scan.hpp"
#include "python/simple_index.hpp"
#include "util/error.hpp"

using namespace rp::python;

namespace {

const std::string kHash(64, 'a');
const std::string kHashUpper(64, 'B');

}  // namespace

TEST_CASE("python/simple_index: PEP 503 project page") {
  std::string html =
      "<!DOCTYPE html>\n<html><head><meta name=\"pypi:repository-version\" content=\"1.1\">"
      "<title>Links for torch</title></head><body><h1>Links for torch</h1>\n"
      "<a href=\"/whl/nightly/torch-2.10.0a0%2Brocm7.0-cp311-cp311-linux_x86_64.whl#sha256=" + kHash +
      "\" data-requires-python=\"&gt;=3.10\" data-core-metadata=\"sha256=" + kHashUpper +
      "\">torch-2.10.0a0+rocm7.0-cp311-cp311-linux_x86_64.whl</a><br/>\n"
      "<a href='../../files/torch-2.9.0.tar.gz' data-yanked='broken &amp; bad' "
      "data-dist-info-metadata=true>torch-2.9.0.tar.gz</a>\n"
      "<A HREF=torch-1.0-py3-none-any.whl DATA-YANKED>torch-1.0-py3-none-any.whl</A>\n"
      "<a>no href</a><a href=\"torch-0.1-py3-none-any.whl#md5=abc\" data-core-metadata=\"false\">x</a>"
      "</body></html>";
  auto page = parse_project_html(html, "https://download.pytorch.org/whl/nightly/torch/");
  REQUIRE(page.files.size() == 4);
  const auto& a = page.files[0];
  CHECK(a.filename == "torch-2.10.0a0+rocm7.0-cp311-cp311-linux_x86_64.whl");
  CHECK(a.url == "https://download.pytorch.org/whl/nightly/torch-2.10.0a0%2Brocm7.0-cp311-cp311-linux_x86_64.whl");
  CHECK(a.sha256 == kHash);
  CHECK(a.requires_python == ">=3.10");
  CHECK_FALSE(a.yanked);
  CHECK(a.has_metadata);
  CHECK(a.metadata_sha256 == std::string(64, 'b'));
  CHECK_FALSE(a.size);

  const auto& b = page.files[1];
  CHECK(b.url == "https://download.pytorch.org/whl/files/torch-2.9.0.tar.gz");
  CHECK(b.yanked == "broken & bad");
  CHECK(b.has_metadata);
  CHECK_FALSE(b.metadata_sha256);
  CHECK_FALSE(b.sha256);

  const auto& c = page.files[2];
  CHECK(c.url == "https://download.pytorch.org/whl/nightly/torch/torch-1.0-py3-none-any.whl");
  CHECK(c.yanked == "");

  const auto& d = page.files[3];
  CHECK(d.filename == "torch-0.1-py3-none-any.whl");
  CHECK_FALSE(d.sha256);  // only sha256 fragments are used
  CHECK_FALSE(d.has_metadata);
}

TEST_CASE("python/simple_index: <base href> applies to all links, first one wins") {
  std::string html =
      "<a href=\"pkg-1.0-py3-none-any.whl\">pkg</a>"
      "<base href=\"https://mirror.example/files/\"><base href=\"https://ignored.example/\">";
  auto page = parse_project_html(html, "https://index.example/simple/pkg/");
  REQUIRE(page.files.size() == 1);
  CHECK(page.files[0].url == "https://mirror.example/files/pkg-1.0-py3-none-any.whl");
  // A relative base is itself resolved against the page.
  auto rel = parse_project_html("<base href='../../f/'><a href='x-1-py3-none-any.whl'>x</a>",
                                "https://i.example/simple/x/");
  CHECK(rel.files.at(0).url == "https://i.example/f/x-1-py3-none-any.whl");
}

TEST_CASE("python/simple_index: repository version 2 is rejected") {
  CHECK_THROWS_WITH(parse_project_html("<meta name='pypi:repository-version' content='2.0'>", "https://x/simple/p/"),
                    doctest::Contains("only 1.x is supported"));
  CHECK_NOTHROW(parse_project_html("<meta name='pypi:repository-version' content='1.3'>", "https://x/"));
  CHECK_NOTHROW(parse_project_html("<meta name='pypi:repository-version' content='garbage'>", "https://x/"));
  CHECK_THROWS_AS(parse_project_json(R"({"meta": {"api-version": "2.0"}, "files": []})", "https://x/"),
                  rp::InputError);
}

TEST_CASE("python/simple_index: PEP 691 JSON project page") {
  std::string json = R"({
    "meta": {"api-version": "1.1"},
    "name": "rocm",
    "versions": ["7.9.0", "7.10.0a20251120"],
    "files": [
      {"filename": "rocm-7.10.0a20251120.tar.gz", "url": "../../packages/rocm-7.10.0a20251120.tar.gz#frag",
       "hashes": {"sha256": ")" + kHashUpper + R"(", "md5": "x"}, "requires-python": ">=3.9",
       "core-metadata": {"sha256": ")" + kHash + R"("}, "yanked": false, "size": 12345},
      {"filename": "rocm-7.9.0.tar.gz", "url": "https://files.example/rocm-7.9.0.tar.gz", "hashes": {},
       "requires-python": null, "dist-info-metadata": true, "yanked": "use 7.9.1"},
      {"filename": "rocm-7.8.0.tar.gz", "url": "rocm-7.8.0.tar.gz", "hashes": {"sha256": "tooshort"}, "yanked": true}
    ]})";
  auto page = parse_project_json(json, "https://rocm.example/v2/gfx110X/rocm/");
  CHECK(page.name == "rocm");
  CHECK(page.versions == std::vector<std::string>{"7.9.0", "7.10.0a20251120"});
  REQUIRE(page.files.size() == 3);
  CHECK(page.files[0].url == "https://rocm.example/v2/packages/rocm-7.10.0a20251120.tar.gz");
  CHECK(page.files[0].sha256 == std::string(64, 'b'));
  CHECK(page.files[0].requires_python == ">=3.9");
  CHECK(page.files[0].has_metadata);
  CHECK(page.files[0].metadata_sha256 == kHash);
  CHECK(page.files[0].size == 12345u);
  CHECK_FALSE(page.files[0].yanked);
  CHECK_FALSE(page.files[1].requires_python);
  CHECK(page.files[1].has_metadata);
  CHECK(page.files[1].yanked == "use 7.9.1");
  CHECK(page.files[2].yanked == "");
  CHECK_FALSE(page.files[2].sha256);
  CHECK(page.files[2].url == "https://rocm.example/v2/gfx110X/rocm/rocm-7.8.0.tar.gz");
}

TEST_CASE("python/simple_index: malformed JSON is an error naming the place") {
  auto bad = [](const std::string& j) { return parse_project_json(j, "https://x/simple/p/"); };
  CHECK_THROWS_WITH(bad("{"), doctest::Contains("not valid JSON"));
  CHECK_THROWS_WITH(bad("[]"), doctest::Contains("not a JSON object"));
  CHECK_THROWS_WITH(bad(R"({"files": {}})"), doctest::Contains("files: not an array"));
  CHECK_THROWS_WITH(bad(R"({"files": [{"url": "x"}]})"), doctest::Contains("files[0].filename"));
  CHECK_THROWS_WITH(bad(R"({"files": [{"filename": "a", "url": "x", "size": -1}]})"),
                    doctest::Contains("files[0].size"));
  CHECK_THROWS_WITH(bad(R"({"files": [{"filename": "a", "url": "x", "yanked": 3}]})"),
                    doctest::Contains("files[0].yanked"));
  CHECK_THROWS_WITH(bad(R"({"files": [], "versions": [1]})"), doctest::Contains("versions[0]"));
  CHECK(bad(R"({})").files.empty());
}

TEST_CASE("python/simple_index: root index pages") {
  auto html = parse_root_index_html("<a href='/simple/torch/'>torch</a>\n<a href='rocm-sdk/'> rocm-sdk </a><a href='x'></a>",
                                    "https://i.example/simple/");
  REQUIRE(html.size() == 2);
  CHECK(html[0].name == "torch");
  CHECK(html[0].url == "https://i.example/simple/torch/");
  CHECK(html[1].name == "rocm-sdk");
  CHECK(html[1].url == "https://i.example/simple/rocm-sdk/");
  auto json = parse_root_index_json(
      R"({"meta": {"api-version": "1.0"}, "projects": [{"name": "Rocm_SDK"}, {"name": "../evil"}]})",
      "https://i.example/simple/");
  REQUIRE(json.size() == 1);
  CHECK(json[0].url == "https://i.example/simple/rocm-sdk/");
}

TEST_CASE("python/simple_index: HTML tokenizer details") {
  auto toks = tokenize_html("a &lt;b&gt; &#65;&#x42;&unknown; &amp<p class=x id = 'y' hidden data-x=\"1\" class=z>");
  REQUIRE(toks.size() == 2);
  CHECK(toks[0].text == "a <b> AB&unknown; &amp");
  CHECK(toks[1].name == "p");
  CHECK(toks[1].get("class") == "x");
  CHECK(toks[1].get("id") == "y");
  CHECK(toks[1].get("hidden") == "");
  CHECK(toks[1].has("data-x"));
  CHECK_FALSE(toks[1].has("nope"));
  CHECK(decode_html_entities("&#0;&#x110000;&#xD800;") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(decode_html_entities("&#233;&#x1F600;") == "\xC3\xA9\xF0\x9F\x98\x80");
  // Script content is not markup.
  auto page = parse_project_html("<script>var a = '<a href=\"evil.whl\">';</ScRiPt ><a href=y-1-py3-none-any.whl>y</a>",
                                 "https://h/");
  REQUIRE(page.files.size() == 1);
  CHECK(page.files[0].filename == "y-1-py3-none-any.whl");
}

TEST_CASE("python/simple_index: hostile HTML never crashes or hangs") {
  std::vector<std::string> inputs = {
      "<a href=\"unterminated",
      "<a href='x.whl'",
      "<a href=x.whl>text",  // unclosed <a> at EOF: still a link
      "<a href=",
      "<",
      "<<<<<<<<<<",
      "<!--",
      "<!-- <a href='hidden.whl'>x</a> -->",
      "</",
      "</a",
      "<a href=\"a.whl\" href=\"b.whl\">dup</a>",
      "&&&&&&&&&&&&&&&&&&&&&&&&&;;;;;;",
      "<a href=\"\x00\x01\x02.whl\">nul</a>",
      "<a\thref\n=\n'spaced-1-py3-none-any.whl'\n>x</a>",
      "<a href='" + std::string(1 << 20, 'x') + "'>huge</a>",
      std::string(100000, '<'),
      std::string(50000, '&'),
      "<a " + std::string(200000, 'a') + ">",
      "<a " + [] {
        std::string many;
        for (int i = 0; i < 20000; ++i) many += "a" + std::to_string(i) + "=1 ";
        return many;
      }() + "href=late.whl>",
      "<script>" + std::string(100000, '<'),
  };
  for (const auto& in : inputs) {
    CAPTURE(in.substr(0, 40));
    CHECK_NOTHROW(parse_project_html(in, "https://h/simple/p/"));
    CHECK_NOTHROW(parse_root_index_html(in, "https://h/simple/"));
  }
  CHECK(parse_project_html("<a href=x.whl>text", "https://h/").files.size() == 1);
  CHECK(parse_project_html("<a href=\"unterminated", "https://h/").files.empty());
  CHECK(parse_project_html("<!-- <a href='hidden.whl'>x</a> -->", "https://h/").files.empty());
  CHECK(parse_project_html("<a href=\"a.whl\" href=\"b.whl\">dup</a>", "https://h/").files.at(0).filename == "a.whl");
  CHECK(parse_project_html("<a\thref\n=\n'spaced-1-py3-none-any.whl'\n>x</a>", "https://h/").files.at(0).filename ==
        "spaced-1-py3-none-any.whl");
}

TEST_CASE("python/simple_index: flat find-links page") {
  std::string html =
      "<html><body><h1>Index of /rocm/</h1><pre>"
      "<a href=\"../\">Parent Directory</a>\n"
      "<a href=\"nightly/\">nightly/</a>\n"
      "<a href=\"rocm_sdk_core-7.10.0a20251120-py3-none-linux_x86_64.whl\">rocm_sdk_core-7.10.0a20251120-py3-none-"
      "linux_x86_64.whl</a>  2025-11-20 1.2G\n"
      "<a href=\"https://cdn.example/rocm-7.10.0a20251120.tar.gz?sig=abc\">rocm-7.10.0a20251120.tar.gz</a>\n"
      "</pre></body></html>";
  auto page = parse_project_html(html, "https://therock.example/rocm/");
  REQUIRE(page.files.size() == 2);
  CHECK(page.files[0].filename == "rocm_sdk_core-7.10.0a20251120-py3-none-linux_x86_64.whl");
  CHECK(page.files[0].url == "https://therock.example/rocm/rocm_sdk_core-7.10.0a20251120-py3-none-linux_x86_64.whl");
  CHECK(page.files[1].filename == "rocm-7.10.0a20251120.tar.gz");
  CHECK(page.files[1].url == "https://cdn.example/rocm-7.10.0a20251120.tar.gz?sig=abc");
}
