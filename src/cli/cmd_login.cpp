// rockpack login / logout: check and store credentials, or remove them, like docker login/logout.
#include <spdlog/spdlog.h>
#include <termios.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/registry_flags.hpp"
#include "registry/credentials.hpp"
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

// Reads one line from the terminal without echoing it (the prompt goes to stderr, like docker's).
std::string prompt_password(const std::string& prompt) {
  std::fprintf(stderr, "%s", prompt.c_str());
  std::fflush(stderr);
  termios old{};
  bool restore = ::tcgetattr(STDIN_FILENO, &old) == 0;
  if (restore) {
    termios quiet = old;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    quiet.c_lflag |= ECHONL;
    ::tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
  }
  std::string line;
  std::getline(std::cin, line);
  if (restore) ::tcsetattr(STDIN_FILENO, TCSANOW, &old);
  return line;
}

void run_login(const LoginArgs& args) {
  std::string password;
  if (args.password_stdin) {
    std::getline(std::cin, password, '\0');
  } else if (::isatty(STDIN_FILENO)) {
    password = prompt_password("Password: ");
  } else {
    throw InputError("rockpack login needs --password-stdin when stdin is not a terminal",
                     "pipe it in: echo \"$TOKEN\" | rockpack login HOST -u USER --password-stdin "
                     "(a password on the command line would end up in the shell history)");
  }
  // Like docker: the trailing newline of `echo` is not part of the password.
  while (!password.empty() && (password.back() == '\n' || password.back() == '\r')) password.pop_back();
  if (password.empty()) throw InputError("the password is empty", "give the password or token for " + args.registry);
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
  cmd->add_flag("--password-stdin", args->password_stdin,
                "Read the password (or token) from stdin; without it, a terminal is prompted (no echo)");
  add_registry_flags(cmd, args->registry_flags);
  cmd->callback([args] { run_login(*args); });
}

void add_logout_command(CLI::App& app, GlobalOptions&) {
  auto registry_arg = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("logout", "Remove the stored credentials of a registry (like docker logout)");
  cmd->add_option("registry", *registry_arg, "The registry host, e.g. ghcr.io or localhost:5000")->required();
  cmd->callback([registry_arg] {
    std::string host = registry::normalize_registry_argument(*registry_arg);
    auto removed = registry::erase_credential(host, registry::CredentialSources::from_environment());
    if (removed)
      spdlog::info("removed the credentials for {} from {}", host, *removed);
    else
      spdlog::info("not logged in to {}", host);
  });
}

}  // namespace rp::cli
