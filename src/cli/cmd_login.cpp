// rockpack login REGISTRY -u USER --password-stdin: checks and stores credentials like docker login.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <iostream>

#include "cli/commands.hpp"
#include "cli/registry_flags.hpp"
#include "registry/login.hpp"
#include "util/error.hpp"

namespace rp::cli {

namespace {

struct LoginArgs {
  std::string registry;
  std::string username;
  bool password_stdin = false;
  RegistryFlags registry_flags;
};

void run_login(const LoginArgs& args) {
  if (!args.password_stdin)
    throw InputError("rockpack login reads the password from stdin only",
                     "pipe it in: echo \"$TOKEN\" | rockpack login HOST -u USER --password-stdin "
                     "(a password on the command line would end up in the shell history)");
  std::string password;
  std::getline(std::cin, password, '\0');
  // Like docker: the trailing newline of `echo` is not part of the password.
  while (!password.empty() && (password.back() == '\n' || password.back() == '\r')) password.pop_back();
  std::string host = registry::normalize_registry_argument(args.registry);
  registry::LoginResult r = registry::login(host, args.username, password, registry_options(args.registry_flags));
  spdlog::info("login to {} succeeded; credentials stored in {}", host, r.stored_in);
}

}  // namespace

void add_login_command(CLI::App& app, GlobalOptions&) {
  auto args = std::make_shared<LoginArgs>();
  CLI::App* cmd = app.add_subcommand("login", "Log in to a registry (stores credentials like docker login)");
  cmd->add_option("registry", args->registry, "The registry host, e.g. ghcr.io or localhost:5000")->required();
  cmd->add_option("-u,--username", args->username, "User name")->required();
  cmd->add_flag("--password-stdin", args->password_stdin, "Read the password (or token) from stdin");
  add_registry_flags(cmd, args->registry_flags);
  cmd->callback([args] { run_login(*args); });
}

}  // namespace rp::cli
