#pragma once
// Shell completions (bash, zsh, fish) and the man page, generated from the CLI11 definitions of the
// running binary, so they never drift from the real flags. `rockpack completion SHELL` and
// `rockpack man` (hidden commands) print them; the CMake build runs them and installs the output.
#include <CLI/CLI.hpp>
#include <string>

namespace rp::cli {

std::string bash_completion(const CLI::App& app);
std::string zsh_completion(const CLI::App& app);
std::string fish_completion(const CLI::App& app);
// A roff man page (section 1) with every visible command and option. `version` goes in the footer.
std::string man_page(const CLI::App& app, const std::string& version);

// Registers the hidden `completion` and `man` commands on `app` (which must be the root).
void add_reference_commands(CLI::App& app, const std::string& version);

}  // namespace rp::cli
