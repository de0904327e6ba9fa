#include "python/venv.hpp"

#include <memory>

#include "util/error.hpp"

namespace rp::python {

namespace {

std::string checked_venv_dir(const std::string& venv_dir, const std::string& origin) {
  if (venv_dir.empty() || venv_dir.front() != '/')
    throw InputError(origin + ": the venv directory '" + venv_dir + "' is not an absolute path", "write it as /opt/venv");
  std::string dir = "/";
  dir += normalize_image_path(venv_dir, origin);  // rejects "..", the root itself
  return dir;
}

// Shell quoting for single-quoted strings in sh, bash, fish and csh alike: the path is closed,
// an escaped quote inserted, and reopened.
std::string single_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string activate_sh(const std::string& dir, const std::string& name) {
  return R"(# Source this file from bash or a POSIX sh: . bin/activate
# It must not be run as a program: it changes the current shell.

deactivate () {
    if [ -n "${_OLD_VIRTUAL_PATH+set}" ] ; then
        PATH="${_OLD_VIRTUAL_PATH}"
        export PATH
        unset _OLD_VIRTUAL_PATH
    fi
    if [ -n "${_OLD_VIRTUAL_PYTHONHOME+set}" ] ; then
        PYTHONHOME="${_OLD_VIRTUAL_PYTHONHOME}"
        export PYTHONHOME
        unset _OLD_VIRTUAL_PYTHONHOME
    fi
    # Forget remembered command locations: they may point into the venv.
    hash -r 2> /dev/null
    if [ -n "${_OLD_VIRTUAL_PS1+set}" ] ; then
        PS1="${_OLD_VIRTUAL_PS1}"
        export PS1
        unset _OLD_VIRTUAL_PS1
    fi
    unset VIRTUAL_ENV
    unset VIRTUAL_ENV_PROMPT
    if [ ! "${1:-}" = "nondestructive" ] ; then
        unset -f deactivate
    fi
}

# Leave any venv that is active now.
deactivate nondestructive

VIRTUAL_ENV=)" + single_quoted(dir) + R"(
export VIRTUAL_ENV

_OLD_VIRTUAL_PATH="$PATH"
PATH="$VIRTUAL_ENV/bin:$PATH"
export PATH

if [ -n "${PYTHONHOME+set}" ] ; then
    _OLD_VIRTUAL_PYTHONHOME="${PYTHONHOME:-}"
    unset PYTHONHOME
fi

VIRTUAL_ENV_PROMPT=)" + single_quoted("(" + name + ") ") + R"(
export VIRTUAL_ENV_PROMPT
if [ -z "${VIRTUAL_ENV_DISABLE_PROMPT:-}" ] ; then
    _OLD_VIRTUAL_PS1="${PS1:-}"
    PS1="${VIRTUAL_ENV_PROMPT}${PS1:-}"
    export PS1
fi

hash -r 2> /dev/null
)";
}

std::string activate_fish(const std::string& dir, const std::string& name) {
  return R"(# Source this file from fish: source bin/activate.fish

function deactivate -d "Leave the virtual environment"
    if set -q _OLD_VIRTUAL_PATH
        set -gx PATH $_OLD_VIRTUAL_PATH
        set -e _OLD_VIRTUAL_PATH
    end
    if set -q _OLD_VIRTUAL_PYTHONHOME
        set -gx PYTHONHOME $_OLD_VIRTUAL_PYTHONHOME
        set -e _OLD_VIRTUAL_PYTHONHOME
    end
    if set -q _OLD_FISH_PROMPT_OVERRIDE
        set -e _OLD_FISH_PROMPT_OVERRIDE
        if functions -q _old_fish_prompt
            functions -e fish_prompt
            functions -c _old_fish_prompt fish_prompt
            functions -e _old_fish_prompt
        end
    end
    set -e VIRTUAL_ENV
    set -e VIRTUAL_ENV_PROMPT
    if test "$argv[1]" != "nondestructive"
        functions -e deactivate
    end
end

deactivate nondestructive

set -gx VIRTUAL_ENV )" + single_quoted(dir) + R"(
set -gx _OLD_VIRTUAL_PATH $PATH
set -gx PATH "$VIRTUAL_ENV/bin" $PATH
if set -q PYTHONHOME
    set -gx _OLD_VIRTUAL_PYTHONHOME $PYTHONHOME
    set -e PYTHONHOME
end
set -gx VIRTUAL_ENV_PROMPT )" + single_quoted("(" + name + ") ") + R"(
if test -z "$VIRTUAL_ENV_DISABLE_PROMPT"
    functions -c fish_prompt _old_fish_prompt
    function fish_prompt
        set -l old_status $status
        printf "%s%s" "$VIRTUAL_ENV_PROMPT" (set_color normal)
        echo "exit $old_status" | .
        _old_fish_prompt
    end
    set -gx _OLD_FISH_PROMPT_OVERRIDE "$VIRTUAL_ENV"
end
)";
}

std::string activate_csh(const std::string& dir, const std::string& name) {
  return R"(# Source this file from csh or tcsh: source bin/activate.csh

alias deactivate 'test $?_OLD_VIRTUAL_PATH != 0 && setenv PATH "$_OLD_VIRTUAL_PATH" && unset _OLD_VIRTUAL_PATH; rehash; test $?_OLD_VIRTUAL_PROMPT != 0 && set prompt="$_OLD_VIRTUAL_PROMPT" && unset _OLD_VIRTUAL_PROMPT; unsetenv VIRTUAL_ENV; unsetenv VIRTUAL_ENV_PROMPT; test "\!:*" != "nondestructive" && unalias deactivate'

deactivate nondestructive

setenv VIRTUAL_ENV )" + single_quoted(dir) + R"(

set _OLD_VIRTUAL_PATH="$PATH"
setenv PATH "$VIRTUAL_ENV/bin:$PATH"

setenv VIRTUAL_ENV_PROMPT )" + single_quoted("(" + name + ") ") + R"(
set _OLD_VIRTUAL_PROMPT="$prompt"
if (! "$?VIRTUAL_ENV_DISABLE_PROMPT") then
    set prompt = "$VIRTUAL_ENV_PROMPT$prompt"
endif

rehash
)";
}

}  // namespace

std::vector<Entry> venv_entries(const Interpreter& python, const std::string& venv_dir, const std::string& origin) {
  std::string dir = checked_venv_dir(venv_dir, origin);
  std::string rel = dir.substr(1);
  std::string name = dir.substr(dir.rfind('/') + 1);
  std::string mm = std::to_string(python.major) + "." + std::to_string(python.minor);
  std::string home = python.real_executable.substr(0, python.real_executable.rfind('/'));
  if (home.empty()) home = "/";

  std::vector<Entry> out;
  auto add = [&](std::string path, EntryType type, uint32_t mode) -> Entry& {
    Entry e;
    e.path = rel + (path.empty() ? "" : "/" + path);
    e.type = type;
    e.mode = mode;
    e.origin = origin;
    out.push_back(std::move(e));
    return out.back();
  };
  auto add_file = [&](std::string path, std::string text, uint32_t mode) {
    add(std::move(path), EntryType::kFile, mode).content = std::make_shared<InlineContent>(std::move(text));
  };
  auto add_symlink = [&](std::string path, std::string target) {
    add(std::move(path), EntryType::kSymlink, 0777).link_target = std::move(target);
  };

  add("", EntryType::kDirectory, 0755);
  add("bin", EntryType::kDirectory, 0755);
  add("include", EntryType::kDirectory, 0755);
  add("lib", EntryType::kDirectory, 0755);
  add("lib/python" + mm, EntryType::kDirectory, 0755);
  add("lib/python" + mm + "/site-packages", EntryType::kDirectory, 0755);
  // CPython links lib64 to lib on 64-bit POSIX builds other than macOS.
  add_symlink("lib64", "lib");
  add_symlink("bin/python", python.real_executable);
  add_symlink("bin/python3", "python");
  add_symlink("bin/python" + mm, "python");
  add_file("pyvenv.cfg",
           "home = " + home + "\n" +
               "include-system-site-packages = false\n" +
               "version = " + python.version + "\n" +
               "executable = " + python.real_executable + "\n" +
               "command = " + python.real_executable + " -m venv " + dir + "\n",
           0644);
  add_file("bin/activate", activate_sh(dir, name), 0644);
  add_file("bin/activate.fish", activate_fish(dir, name), 0644);
  add_file("bin/activate.csh", activate_csh(dir, name), 0644);
  return out;
}

InstallScheme venv_scheme(const Interpreter& python, const std::string& venv_dir) {
  std::string dir = checked_venv_dir(venv_dir, "python.venv");
  return InstallScheme::venv(dir, python.major, python.minor);
}

}  // namespace rp::python
