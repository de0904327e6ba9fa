#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "registry/auth.hpp"
#include "util/base64.hpp"
#include "registry/blob_upload.hpp"
#include "registry/challenge.hpp"
#include "registry/credentials.hpp"
#include "registry/errors.hpp"
#include "reference/reference.hpp"
#include "net/retry.hpp"
#include "net/url.hpp"
#include "util/error.hpp"
#include "test_helpers.hpp"

using namespace rp::registry;
using namespace rp;
namespace fs = std::filesystem;

TEST_CASE("registry/reference: docker defaults") {
  auto r = parse_reference("alpine");
  CHECK(r.registry == "docker.io");
  CHECK(r.repository == "library/alpine");
  CHECK(r.identifier() == "latest");
  CHECK(r.str() == "docker.io/library/alpine:latest");
  CHECK(r.api_host() == "registry-1.docker.io");

  r = parse_reference("team/app:1.0");
  CHECK(r.registry == "docker.io");
  CHECK(r.repository == "team/app");
  CHECK(r.tag == "1.0");

  r = parse_reference("index.docker.io/busybox");
  CHECK(r.registry == "docker.io");
  CHECK(r.repository == "library/busybox");
}

TEST_CASE("registry/reference: registry detection") {
  auto r = parse_reference("localhost:5000/app:v1");
  CHECK(r.registry == "localhost:5000");
  CHECK(r.repository == "app");
  CHECK(r.tag == "v1");
  CHECK(parse_reference("localhost/app").registry == "localhost");
  CHECK(parse_reference("ghcr.io/org/tool").registry == "ghcr.io");
  CHECK(parse_reference("ghcr.io/org/tool").repository == "org/tool");
  CHECK(parse_reference("127.0.0.1:5000/a/b/c").repository == "a/b/c");
  // A first component without '.', ':' or "localhost" is a namespace on Docker Hub.
  CHECK(parse_reference("myhost/app").registry == "docker.io");
  CHECK(parse_reference("myhost/app").repository == "myhost/app");
  CHECK(parse_reference("[::1]:5000/app").registry == "[::1]:5000");
}

TEST_CASE("registry/reference: digests win over tags") {
  std::string d = "sha256:" + std::string(64, 'a');
  auto r = parse_reference("localhost:5000/app:v1@" + d);
  CHECK(r.tag == "v1");
  CHECK(r.digest == d);
  CHECK(r.identifier() == d);
  CHECK(r.str() == "localhost:5000/app:v1@" + d);
  auto r2 = parse_reference("alpine@" + d);
  CHECK(r2.str() == "docker.io/library/alpine@" + d);
}

TEST_CASE("registry/reference: invalid input is an InputError with a reason") {
  CHECK_THROWS_AS(parse_reference(""), rp::InputError);
  CHECK_THROWS_AS(parse_reference("Alpine"), rp::InputError);
  CHECK_THROWS_AS(parse_reference("alpine:"), rp::InputError);
  CHECK_THROWS_AS(parse_reference("alpine:-bad"), rp::InputError);
  CHECK_THROWS_AS(parse_reference("alpine@sha256:123"), rp::InputError);
  CHECK_THROWS_AS(parse_reference("http://localhost:5000/app"), rp::InputError);
  CHECK_THROWS_AS(parse_reference("localhost:5000/app//x"), rp::InputError);
  CHECK_THROWS_AS(parse_reference("alpine:" + std::string(129, 'a')), rp::InputError);
  try {
    parse_reference("localhost:5000/MyApp");
    FAIL("no error");
  } catch (const rp::InputError& e) {
    CHECK(std::string(e.what()).find("MyApp") != std::string::npos);
    CHECK(e.hint().find("lowercase") != std::string::npos);
  }
}

TEST_CASE("registry/reference: loopback hosts") {
  CHECK(is_loopback_host("localhost:5000"));
  CHECK(is_loopback_host("127.0.0.1:40000"));
  CHECK(is_loopback_host("[::1]:5000"));
  CHECK_FALSE(is_loopback_host("registry.example.com"));
  CHECK_FALSE(is_loopback_host("10.0.0.1:5000"));
}

TEST_CASE("registry/challenge: bearer with quoted params and commas") {
  auto cs = parse_challenges(
      R"(Bearer realm="https://auth.example.com/token",service="registry.example.com",scope="repository:a/b:pull,push")");
  REQUIRE(cs.size() == 1);
  CHECK(cs[0].scheme == "bearer");
  CHECK(cs[0].param("realm") == "https://auth.example.com/token");
  CHECK(cs[0].param("service") == "registry.example.com");
  CHECK(cs[0].param("scope") == "repository:a/b:pull,push");
}

TEST_CASE("registry/challenge: case, spacing, token values, escapes, several challenges") {
  auto cs = parse_challenges(R"(BEARER Realm = "http://127.0.0.1:1/t" , error=insufficient_scope, Basic realm="a \"b\"")");
  REQUIRE(cs.size() == 2);
  CHECK(cs[0].scheme == "bearer");
  CHECK(cs[0].param("realm") == "http://127.0.0.1:1/t");
  CHECK(cs[0].param("error") == "insufficient_scope");
  CHECK(cs[1].scheme == "basic");
  CHECK(cs[1].param("realm") == "a \"b\"");
  CHECK(parse_challenges("").empty());
  auto basic = parse_challenges("Basic");
  REQUIRE(basic.size() == 1);
  CHECK(basic[0].scheme == "basic");
}

TEST_CASE("registry/auth: scope widening merges actions") {
  Scopes s = {"repository:app:pull"};
  CHECK(widen_scopes(s, {"repository:app:push"}));
  CHECK(s == Scopes{"repository:app:pull,push"});
  CHECK_FALSE(widen_scopes(s, {"repository:app:pull"}));
  CHECK(widen_scopes(s, {"repository:localhost:5000/other:pull"}));
  CHECK(s.size() == 2);
  CHECK(s[1] == "repository:localhost:5000/other:pull");
}

TEST_CASE("registry/errors: error bodies become readable messages with hints") {
  rp::net::HttpResponse r;
  r.status = 401;
  r.body = R"({"errors":[{"code":"UNAUTHORIZED","message":"authentication required","detail":[{"Type":"repository","Name":"app","Action":"push"}]}]})";
  auto e = registry_error(r, "push of blob sha256:abc to localhost:5000/app", "localhost:5000");
  std::string msg = e.what();
  CHECK(msg.find("push of blob sha256:abc to localhost:5000/app") != std::string::npos);
  CHECK(msg.find("UNAUTHORIZED") != std::string::npos);
  CHECK(msg.find("authentication required") != std::string::npos);
  CHECK(e.hint().find("rockpack login localhost:5000") != std::string::npos);

  r.status = 404;
  r.body = R"({"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown","detail":{"Tag":"v9"}}]})";
  e = registry_error(r, "fetching manifest v9 of localhost:5000/app", "localhost:5000");
  CHECK(std::string(e.what()).find("404") != std::string::npos);
  CHECK(std::string(e.what()).find("MANIFEST_UNKNOWN") != std::string::npos);
  CHECK(e.hint().find("tag") != std::string::npos);

  r.status = 503;
  r.body = "<html>busy</html>";
  e = registry_error(r, "x", "h");
  CHECK(std::string(e.what()).find("<html>") == std::string::npos);

  CHECK(parse_error_body("not json").empty());
  CHECK(parse_error_body(R"({"errors":"nope"})").empty());
}

TEST_CASE("registry/retry: Retry-After and backoff") {
  CHECK(net::parse_retry_after("3") == std::chrono::milliseconds(3000));
  CHECK_FALSE(net::parse_retry_after("soon").has_value());
  auto past = net::parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT");
  REQUIRE(past.has_value());
  CHECK(past->count() == 0);
  net::RetryPolicy p;
  p.initial_delay = std::chrono::milliseconds(100);
  p.max_delay = std::chrono::milliseconds(1000);
  for (int i = 0; i < 20; ++i) {
    auto d1 = net::backoff_delay(p, 1).count();
    CHECK(d1 >= 75);
    CHECK(d1 <= 125);
    CHECK(net::backoff_delay(p, 10).count() <= 1250);
  }
  CHECK(net::retry_delay(p, 1, std::string("2")).count() >= 2000);
  CHECK(net::retry_delay(p, 1, std::string("86400")) == std::chrono::milliseconds(p.max_retry_after));
  CHECK(net::is_retryable_status(503));
  CHECK(net::is_retryable_status(429));
  CHECK_FALSE(net::is_retryable_status(404));
}

TEST_CASE("registry/upload: Range headers") {
  CHECK(parse_upload_range("0-0") == 0);
  CHECK(parse_upload_range("0-1023") == 1024);
  CHECK(parse_upload_range("bytes=0-99") == 100);
  CHECK(parse_upload_range("garbage") == 0);
}

TEST_CASE("registry/url: resolve and redact") {
  CHECK(net::resolve_url("http://h:1/v2/a/blobs/uploads/", "/v2/a/blobs/uploads/u?_state=x") == "http://h:1/v2/a/blobs/uploads/u?_state=x");
  CHECK(net::resolve_url("http://h:1/v2/x", "https://s3/obj") == "https://s3/obj");
  CHECK(net::same_origin("http://h:1/a", "http://h:1/b"));
  CHECK_FALSE(net::same_origin("http://h:1/a", "http://h:2/a"));
  CHECK(net::redact_url("https://user:pw@h/p?token=abc") == "https://h/p");
  CHECK(net::add_query("http://h/p?a=1", "digest", "sha256:ab") == "http://h/p?a=1&digest=sha256%3Aab");
}

TEST_CASE("registry/base64") {
  CHECK(base64_encode("user:pass") == "dXNlcjpwYXNz");
  CHECK(base64_decode("dXNlcjpwYXNz") == std::string("user:pass"));
  CHECK(base64_decode("YQ") == std::string("a"));
  CHECK_FALSE(base64_decode("!!!").has_value());
}

namespace {
using rp::test::TempDir;
void write_at(const fs::path& p, const std::string& s) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << s;
}
}  // namespace

TEST_CASE("registry/credentials: config.json auths, identity tokens, precedence") {
  TempDir tmp;
  CredentialSources src;
  src.docker_config_dir = tmp.path / "docker";
  write_at(src.docker_config_dir / "config.json", R"({
    "auths": {
      "https://index.docker.io/v1/": {"auth": ")" + base64_encode("hubuser:hubpass") + R"("},
      "localhost:5000": {"auth": ")" + base64_encode("alice:s3cr:et") + R"("},
      "https://ghcr.io": {"identitytoken": "refresh-me"}
    }})");
  auto hub = find_credential("docker.io", src);
  REQUIRE(hub.has_value());
  CHECK(hub->username == "hubuser");
  CHECK(hub->password == "hubpass");
  auto local = find_credential("localhost:5000", src);
  REQUIRE(local.has_value());
  CHECK(local->username == "alice");
  CHECK(local->password == "s3cr:et");  // only the first ':' separates
  auto ghcr = find_credential("ghcr.io", src);
  REQUIRE(ghcr.has_value());
  CHECK(ghcr->identity_token == "refresh-me");
  CHECK_FALSE(find_credential("quay.io", src).has_value());

  // REGISTRY_AUTH_FILE comes first, podman's auth.json last.
  src.auth_file = tmp.path / "auth.json";
  write_at(*src.auth_file, R"({"auths":{"localhost:5000":{"auth":")" + base64_encode("bob:pw") + R"("}}})");
  src.podman_auth = tmp.path / "podman.json";
  write_at(*src.podman_auth, R"({"auths":{"quay.io":{"auth":")" + base64_encode("carol:pw") + R"("}}})");
  CHECK(find_credential("localhost:5000", src)->username == "bob");
  CHECK(find_credential("quay.io", src)->username == "carol");
}

TEST_CASE("registry/credentials: malformed entries fail without echoing secrets") {
  TempDir tmp;
  CredentialSources src;
  src.docker_config_dir = tmp.path;
  write_at(tmp.path / "config.json", R"({"auths":{"h:1":{"auth":"bm9jb2xvbmhlcmU="}}})");  // "nocolonhere"
  try {
    find_credential("h:1", src);
    FAIL("no error");
  } catch (const rp::Error& e) {
    CHECK(std::string(e.what()).find("nocolonhere") == std::string::npos);
    CHECK(std::string(e.what()).find("bm9jb2xvbmhlcmU") == std::string::npos);
  }
  write_at(tmp.path / "config.json", "[1,2]");
  CHECK_THROWS_AS(find_credential("h:1", src), rp::Error);
}

TEST_CASE("registry/credentials: store like docker login, keeping other settings") {
  TempDir tmp;
  CredentialSources src;
  src.docker_config_dir = tmp.path / "d";
  write_at(src.docker_config_dir / "config.json", R"({"psFormat":"table","auths":{"other:1":{"auth":"eDp5"}}})");
  Credential c;
  c.username = "u";
  c.password = "p";
  store_credential("localhost:5000", c, src);
  auto j = nlohmann::json::parse(std::ifstream(src.docker_config_dir / "config.json"));
  CHECK(j["psFormat"] == "table");
  CHECK(j["auths"]["other:1"]["auth"] == "eDp5");
  CHECK(j["auths"]["localhost:5000"]["auth"] == base64_encode("u:p"));
  CHECK((fs::status(src.docker_config_dir / "config.json").permissions() & fs::perms::others_read) == fs::perms::none);
  store_credential("docker.io", c, src);
  j = nlohmann::json::parse(std::ifstream(src.docker_config_dir / "config.json"));
  CHECK(j["auths"].contains("https://index.docker.io/v1/"));
}
