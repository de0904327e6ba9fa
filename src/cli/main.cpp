// rockpack: builds OCI images from YAML recipes without a container daemon.
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include <spdlog/spdlog.h>

#include "cli/cli_reference.hpp"
#include "cli/commands.hpp"
#include "cli/logging.hpp"
#include "cli/version_info.hpp"
#include "recipe/diagnostics.hpp"
#include "util/cpus.hpp"
#include "util/error.hpp"
#include "util/temp_files.hpp"

namespace {

// --jobs wins over ROCKPACK_JOBS, which must be a number when set; the decision (util/cpus.hpp)
// goes to the debug log, where a CI log shows what a container's CPU limit made of it.
void apply_jobs(const rp::cli::GlobalOptions& global) {
  if (global.jobs) {
    rp::set_jobs_override(global.jobs, "--jobs");
  } else if (const char* env = std::getenv("ROCKPACK_JOBS"); env && *env && !rp::cpus::parse_jobs(env)) {
    throw rp::InputError(std::string("ROCKPACK_JOBS=") + env + " is not a number of workers",
                         "set it to a whole number from 1 to 4096, or unset it to use the CPUs this process may use");
  }
  spdlog::debug("workers: {}", rp::cpu_budget().describe());
}

}  // namespace

int main(int argc, char** argv) {
  // glibc gives each thread that allocates its own malloc arena (up to 8 per core), and a buffer
  // freed by another thread goes back to the arena it came from, where it stays. A layer's
  // read-ahead workers allocate the contents the writer frees, so with 16 workers the arenas held
  // about 120 MiB more than the data in flight. Two arenas keep peak RSS bounded by what is in
  // flight; small allocations still come from each thread's cache without a lock.
  mallopt(M_ARENA_MAX, 2);
  // glibc serves a block from 128 KiB with its own mmap, but after the first such block is freed
  // it raises that threshold to the block's size (up to 32 MiB), and from then on the layers' file
  // contents, pipe pieces and compression blocks (1-8 MiB each, freed on other threads) come from
  // the two arenas, whose free holes it keeps: 70-100 MiB above what was in flight on the ROCm-scale
  // build. A fixed threshold keeps every buffer from 256 KiB in its own mapping, returned when freed:
  // peak RSS 239 -> 173 MiB with 2 workers, 256 -> 211 MiB with 16 (zstd), for the same CPU seconds
  // (docs/performance.md, "Memory").
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
  rp::remove_temporaries_on_signal();
  CLI::App app{"rockpack: build reproducible OCI images for ROCm toolchains from YAML recipes, without a daemon"};
  app.set_version_flag("--version", [] { return rp::cli::version_text(); }, "Print the version, commit, build type and compiled-in libraries");
  app.require_subcommand(1);
  app.fallthrough();

  rp::cli::GlobalOptions global;
  app.add_option("--log-format", global.log_format, "Log format: text (default) or json (one JSON object a line)")
      ->check(CLI::IsMember({"text", "json"}));
  app.add_flag("-v,--verbose", global.verbose, "Log debug detail");
  app.add_flag("-q,--quiet", global.quiet, "Log warnings and errors only");
  app.add_option("-j,--jobs", global.jobs,
                 "Worker threads for CPU-bound work (default: the CPUs this process may use: affinity mask and cgroup "
                 "CPU quota; also ROCKPACK_JOBS)")
      ->check(CLI::Range(1, 4096));
  app.parse_complete_callback([&] {
    rp::cli::setup_logging(global);
    apply_jobs(global);
  });

  rp::cli::add_build_command(app, global);
  rp::cli::add_validate_command(app, global);
  rp::cli::add_plan_command(app, global);
  rp::cli::add_lock_command(app, global);
  rp::cli::add_inspect_command(app, global);
  rp::cli::add_diff_command(app, global);
  rp::cli::add_check_command(app, global);
  rp::cli::add_push_command(app, global);
  rp::cli::add_attach_command(app, global);
  rp::cli::add_pull_command(app, global);
  rp::cli::add_login_command(app, global);
  rp::cli::add_logout_command(app, global);
  rp::cli::add_gc_command(app, global);
  rp::cli::add_cache_command(app, global);
  rp::cli::add_matrix_command(app, global);
  rp::cli::add_publish_command(app, global);
  rp::cli::add_reference_commands(app, rp::cli::version_line());

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : static_cast<int>(rp::ExitCode::kInvalidInput);
  } catch (const rp::recipe::RecipeError& e) {
    std::vector<rp::cli::ErrorItem> items;
    for (const auto& d : e.diagnostics())
      items.push_back({d.message, d.hint, d.where.file, d.where.line, d.where.column});
    rp::cli::report_errors(items, e.what(), e.hint());
    return static_cast<int>(e.code());
  } catch (const rp::Error& e) {
    rp::cli::report_error(e.what(), e.hint());
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    rp::cli::report_error(e.what(), "");
    return static_cast<int>(rp::ExitCode::kFailure);
  }
  return 0;
}
