// The build report: its JSON (fields, nulls for what is unknown, read back), the reader's checks on
// untrusted text, the Markdown rendering (tables, escaping, deltas), and make_report's per-step and
// per-layer figures from a plan, an assembled image and the build's timings.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "build/report.hpp"
#include "report/report.hpp"
#include "util/error.hpp"

using namespace rp;
using nlohmann::json;

namespace {

const std::string kDigestA = "sha256:" + std::string(64, 'a');
const std::string kDigestB = "sha256:" + std::string(64, 'b');
const std::string kDigestC = "sha256:" + std::string(64, 'c');

ImageLayer image_layer(const std::string& digest, int64_t size, uint64_t uncompressed) {
  ImageLayer l;
  l.blob.media_type = "application/vnd.oci.image.layer.v1.tar+gzip";
  l.blob.digest = digest;
  l.blob.size = size;
  l.diff_id = digest;
  l.uncompressed_size = uncompressed;
  return l;
}

report::Report sample_report() {
  report::Report r;
  r.recipe = "app";
  r.image_digest = kDigestA;
  r.config_digest = kDigestB;
  r.tags = {"latest", "v1"};
  r.source_date_epoch = 1700000000;
  r.created = "2023-11-14T22:13:20Z";
  r.base = "oci:bases/debian:12";
  r.base_digest = kDigestC;
  r.compression = "gzip:6";
  report::LayerReport base;
  base.step = "base";
  base.digest = kDigestC;
  base.diff_id = kDigestC;
  base.size = 1000;
  report::LayerReport wheels;
  wheels.step = "python";
  wheels.name = "wheels";
  wheels.digest = kDigestA;
  wheels.diff_id = kDigestB;
  wheels.size = 2000000;
  wheels.uncompressed_size = 5000000;
  wheels.entries = 42;
  wheels.seconds = 1.23456;
  wheels.cache_hit = true;
  r.layers = {base, wheels};
  r.steps = {{"base", 0.5, 0, 1, 1000, 0, 0, 0}, {"python", 2.0, 1.23456, 1, 2000000, 5000000, 42, 1}};
  r.totals.image_size = 2001000;
  r.totals.uncompressed_size = 5000000;
  r.totals.layers = 2;
  r.totals.layers_from_base = 1;
  r.totals.layers_cached = 1;
  r.totals.build_seconds = 12.5;
  r.packages = {{rp::PackageKind::kPython, "numpy", "2.0.0", "wheels"}, {rp::PackageKind::kRocm, "rocm", "7.0.0rc1", ""}};
  return r;
}

}  // namespace

TEST_CASE("report JSON: layers, totals and packages, null where a base layer's figure is unknown") {
  json j = json::parse(report::to_json_text(sample_report()));
  CHECK(j["rockpack_report"] == report::kFormatVersion);
  CHECK(j["image_digest"] == kDigestA);
  CHECK(j["tags"] == json({"latest", "v1"}));
  CHECK(j["source_date_epoch"] == 1700000000);
  CHECK(j["base"]["digest"] == kDigestC);
  REQUIRE(j["layers"].size() == 2);
  CHECK(j["layers"][0]["from_base"] == true);
  CHECK(j["layers"][0]["uncompressed_size"].is_null());
  CHECK(j["layers"][0]["entries"].is_null());
  CHECK(j["layers"][1]["entries"] == 42);
  CHECK(j["layers"][1]["uncompressed_size"] == 5000000);
  CHECK(j["layers"][1]["cache_hit"] == true);
  CHECK(j["layers"][1]["seconds"].get<double>() == doctest::Approx(1.235));
  CHECK_FALSE(j["layers"][1].contains("in_previous"));
  CHECK(j["steps"][1]["cache_hit"] == true);
  CHECK(j["steps"][1]["seconds"].get<double>() == doctest::Approx(3.235));
  CHECK(j["totals"]["layers_reused"] == 2);
  CHECK(j["totals"]["build_seconds"].get<double>() == doctest::Approx(12.5));
  CHECK(j["packages"][0] == json({{"kind", "python-package"}, {"name", "numpy"}, {"version", "2.0.0"}, {"layer", "wheels"}}));
  CHECK_FALSE(j.contains("comparison"));
}

TEST_CASE("report JSON: the comparison, with an unknown duration as null") {
  report::Report r = sample_report();
  report::Comparison c;
  c.previous = "oci:old:latest";
  c.previous_digest = kDigestB;
  c.changed = {{rp::PackageKind::kPython, "numpy", "1.26.4", "2.0.0"}};
  c.added = {{rp::PackageKind::kPython, "rp-new", "0.5", ""}};
  c.layers_reused = 1;
  c.layers_rebuilt = 1;
  c.size_delta_bytes = -1234567;
  c.duration_note = "unknown: no report";
  r.comparison = c;
  r.layers[1].in_previous = false;
  json j = json::parse(report::to_json_text(r));
  const json& cmp = j["comparison"];
  CHECK(cmp["packages"]["changed"][0] == json({{"kind", "python"}, {"name", "numpy"}, {"old", "1.26.4"}, {"new", "2.0.0"}}));
  CHECK(cmp["packages"]["added"].size() == 1);
  CHECK(cmp["packages"]["removed"].empty());
  CHECK(cmp["size_delta_mb"].get<double>() == doctest::Approx(-1.23));
  CHECK(cmp["duration_delta_s"].is_null());
  CHECK(j["layers"][1]["in_previous"] == false);
  r.comparison->duration_delta_s = -2.5;
  CHECK(json::parse(report::to_json_text(r))["comparison"]["duration_delta_s"].get<double>() == doctest::Approx(-2.5));
}

TEST_CASE("report reader: reads back what the writer wrote") {
  report::Report r = report::parse_report(report::to_json_text(sample_report()), "test");
  CHECK(r.recipe == "app");
  CHECK(r.image_digest == kDigestA);
  CHECK(r.tags.size() == 2);
  CHECK(r.totals.build_seconds == doctest::Approx(12.5));
  CHECK(r.totals.image_size == 2001000);
  REQUIRE(r.layers.size() == 2);
  CHECK_FALSE(r.layers[0].uncompressed_size.has_value());
  CHECK(r.layers[1].entries == 42u);
  CHECK(r.layers[1].cache_hit);
  REQUIRE(r.packages.size() == 2);
  CHECK(r.packages[1].version == "7.0.0rc1");
}

TEST_CASE("report reader: untrusted text gets an error naming the field, never a crash") {
  auto message = [](const std::string& text) {
    try {
      (void)report::parse_report(text, "prev.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message("not json").find("not JSON") != std::string::npos);
  CHECK(message("[1,2]").find("not a JSON object") != std::string::npos);
  CHECK(message("{}").find("rockpack_report") != std::string::npos);
  CHECK(message(R"({"rockpack_report": 99})").find("format 99") != std::string::npos);
  CHECK(message(R"({"rockpack_report": 1, "recipe": "a", "image_digest": "x"})").find("totals") != std::string::npos);
  const std::string head = R"({"rockpack_report": 1, "recipe": "a", "image_digest": "x", "layers": [], )";
  CHECK(message(head + R"("totals": {"build_seconds": "slow", "image_size": 1, "layers": 0}})").find("totals.build_seconds") !=
        std::string::npos);
  CHECK(message(head + R"("totals": {"build_seconds": -1, "image_size": 1, "layers": 0}})").find("non-negative") !=
        std::string::npos);
  CHECK(message(head + R"("totals": {"build_seconds": 1, "image_size": -5, "layers": 0}})").find("totals.image_size") !=
        std::string::npos);
  const std::string ok_totals = R"("totals": {"build_seconds": 1, "image_size": 1, "layers": 1})";
  CHECK(message(R"({"rockpack_report": 1, "recipe": "a", "image_digest": "x", "layers": [7], )" + ok_totals + "}")
            .find("layers[0] is not an object") != std::string::npos);
  CHECK(message(R"({"rockpack_report": 1, "recipe": "a", "image_digest": "x", "layers": [{"step": "s"}], )" + ok_totals + "}")
            .find("layers[0].digest") != std::string::npos);
  CHECK(message(head + ok_totals + R"(, "packages": [{"name": "x"}]})").find("packages[0].kind") != std::string::npos);
  CHECK(message(head + ok_totals + R"(, "tags": [1]})").find("tags") != std::string::npos);
  CHECK(message(std::string(17u << 20, ' ')).find("16 MiB") != std::string::npos);
  CHECK(message(head + ok_totals + "}") == "no error");
}

TEST_CASE("report Markdown: totals, a row per layer, deltas and changed packages, cells escaped") {
  report::Report r = sample_report();
  std::string md = report::to_markdown(r);
  CHECK(md.find("## app") == 0);
  CHECK(md.find("`" + kDigestA + "`") != std::string::npos);
  CHECK(md.find("| python | wheels | `aaaaaaaaaaaa` | 1.9 MiB | 4.8 MiB | 42 | 1.2 s | hit |") != std::string::npos);
  CHECK(md.find("| base |  | `cccccccccccc` | 1000 B | — | — | — | base |") != std::string::npos);
  CHECK(md.find("1 from the base, 1 from the cache, 0 built") != std::string::npos);
  CHECK(md.find("ROCm: `7.0.0rc1`") != std::string::npos);
  CHECK(md.find("Compared with") == std::string::npos);

  report::Comparison c;
  c.previous = "reg/app:nightly|old";
  c.changed = {{rp::PackageKind::kPython, "torch", "2.5.0", "2.6.0"}};
  c.removed = {{rp::PackageKind::kPython, "rp-gone", "1.0", ""}};
  c.size_delta_bytes = 3000000;
  c.layers_reused = 1;
  c.layers_rebuilt = 1;
  c.duration_note = "unknown: the previous image has no report referrer";
  r.comparison = c;
  r.layers[0].in_previous = true;
  r.layers[1].in_previous = false;
  md = report::to_markdown(r);
  CHECK(md.find("### Compared with `reg/app:nightly\\|old`") != std::string::npos);
  CHECK(md.find("| python | `torch` | `2.5.0` | `2.6.0` |") != std::string::npos);
  CHECK(md.find("**Removed packages** (1)") != std::string::npos);
  CHECK(md.find("| size | +3.00 MB |") != std::string::npos);
  CHECK(md.find("| build time | unknown (unknown: the previous image has no report referrer) |") != std::string::npos);
  CHECK(md.find("| 1 reused, 1 rebuilt |") != std::string::npos);
  CHECK(md.find("| hit | new |") != std::string::npos);
  CHECK(md.find("| base | reused |") != std::string::npos);
  r.comparison->duration_delta_s = -4.0;
  CHECK(report::to_markdown(r).find("| build time | -4.0 s") != std::string::npos);
}

TEST_CASE("make_report: base layers, built and cached layers, steps and totals from the build") {
  BuildPlan plan;
  plan.name = "app";
  plan.tags = {"latest"};
  plan.source_date_epoch = 5;
  plan.created = "1970-01-01T00:00:05Z";
  plan.base_name = "oci:base:1";
  plan.base_digest = kDigestC;
  ImageLayer base_layer = image_layer(kDigestC, 100, 0);
  plan.base.layers = {base_layer};
  LayerPlan files{"files", "files", {}, "files"};
  files.entries.resize(3);
  LayerPlan wheels{"wheels", "python", {}, "python"};
  wheels.entries.resize(7);
  plan.layers = {files, wheels};
  plan.components.push_back({"python", {rp::PackageKind::kPython, "numpy", "2.0.0", "", "", 0, "", "wheels", "", false, {}, "", {}, "", "", "", ""}});

  ImageLayer files_layer = image_layer(kDigestA, 200, 1024);
  ImageLayer wheels_layer = image_layer(kDigestB, 300, 4096);
  AssembledImage assembled;
  assembled.new_layers = {{files_layer, true}, {wheels_layer, false}};
  assembled.layer_seconds = {0.01, 2.0};
  SealedImage sealed;
  sealed.manifest.digest = kDigestA;
  sealed.layers = {base_layer, files_layer, wheels_layer};
  build::BuildTimings timings;
  timings.steps = {{"base", 0.2}, {"files", 0.1}, {"python", 3.0}};
  timings.build_seconds = 6.0;

  report::Report r = build::make_report({plan, assembled, sealed, timings, "gzip:6", {"oci:out:latest"}, {}});
  REQUIRE(r.layers.size() == 3);
  CHECK(r.layers[0].step == "base");
  CHECK_FALSE(r.layers[0].entries.has_value());
  CHECK(r.layers[1].step == "files");
  CHECK(r.layers[1].entries == 3u);
  CHECK(r.layers[1].cache_hit);
  CHECK(r.layers[2].uncompressed_size == 4096u);
  CHECK_FALSE(r.layers[2].cache_hit);
  CHECK(r.layers[2].seconds == doctest::Approx(2.0));
  CHECK(r.totals.image_size == 600);
  CHECK(r.totals.uncompressed_size == 5120);
  CHECK(r.totals.layers_from_base == 1);
  CHECK(r.totals.layers_cached == 1);
  CHECK(r.totals.layers_built == 1);
  CHECK(r.totals.build_seconds == doctest::Approx(6.0));
  REQUIRE(r.steps.size() == 3);
  CHECK(r.steps[2].name == "python");
  CHECK(r.steps[2].plan_seconds == doctest::Approx(3.0));
  CHECK(r.steps[2].assemble_seconds == doctest::Approx(2.0));
  CHECK(r.steps[2].entries == 7);
  CHECK(r.steps[0].layers == 1);
  REQUIRE(r.packages.size() == 1);
  CHECK(r.packages[0].layer == "wheels");
  CHECK(r.compression == "gzip:6");
}
