#pragma once
// Each subcommand lives in its own cmd_<name>.cpp and registers itself on the CLI11 app through one of
// these functions. A command's callback throws rp::Error on failure; main() turns that into a message
// and an exit code, so commands never print errors or call exit() themselves.
#include <CLI/CLI.hpp>

namespace rp::cli {

struct GlobalOptions {
  std::string log_format = "text";  // text | json
  bool verbose = false;
  bool quiet = false;
  unsigned jobs = 0;  // --jobs: worker threads for CPU-bound work (0: from the CPUs the process may use)
};

void add_build_command(CLI::App& app, GlobalOptions& global);
void add_validate_command(CLI::App& app, GlobalOptions& global);
// `rockpack plan`: build --dry-run under its own name (cmd_build.cpp).
void add_plan_command(CLI::App& app, GlobalOptions& global);
void add_inspect_command(CLI::App& app, GlobalOptions& global);
void add_diff_command(CLI::App& app, GlobalOptions& global);
// `rockpack check IMAGE`: a recipe's checks: in the sandbox on a finished image (cmd_check.cpp).
void add_check_command(CLI::App& app, GlobalOptions& global);
void add_push_command(CLI::App& app, GlobalOptions& global);
// `rockpack attach REF --report FILE`: a build report attached to a pushed image (cmd_attach.cpp).
void add_attach_command(CLI::App& app, GlobalOptions& global);
void add_pull_command(CLI::App& app, GlobalOptions& global);
void add_login_command(CLI::App& app, GlobalOptions& global);
void add_logout_command(CLI::App& app, GlobalOptions& global);
void add_gc_command(CLI::App& app, GlobalOptions& global);
// `rockpack lock RECIPE`: the recipe resolved and written as a lock file (cmd_lock.cpp).
void add_lock_command(CLI::App& app, GlobalOptions& global);
void add_cache_command(CLI::App& app, GlobalOptions& global);
// `rockpack matrix RECIPE`: a recipe's variants for a CI matrix (cmd_matrix.cpp).
void add_matrix_command(CLI::App& app, GlobalOptions& global);
// `rockpack publish RECIPE --repository REPO`: floating tags moved once the whole family is pushed (cmd_publish.cpp).
void add_publish_command(CLI::App& app, GlobalOptions& global);

}  // namespace rp::cli
