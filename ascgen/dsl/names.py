"""Validated names and paths: every spec value that is printed into the generated C++, CMake
or README passes through one of these types, so that nothing a spec says can change what the
generated code means (see docs/threat_model.md).

    CppName      a stage or program name: a C identifier that is no C++ keyword, no reserved
                 identifier, and no name the generated code or its headers already use
    SafePath     a file or folder path (source.path, a model's path): no quote, backslash,
                 '$', ';', '#', '%', backquote, control or line-separator character, and no
                 longer than the operating system allows
    ProfileName  a device profile: a file name in ascgen/profiles/, never a path

The checks are plain functions too (``cpp_name_problem``, ``path_problem``,
``profile_name_problem``) for callers outside pydantic (the spec file's own path, the
``ascgen profile`` argument).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated

from pydantic import AfterValidator, Field

from ascgen.common.errors import shown

NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
NAME_MAX = 48
PATH_MAX_BYTES = 4095  # PATH_MAX (4096) less the terminating NUL
COMPONENT_MAX_BYTES = 255  # NAME_MAX


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# C++20 keywords and alternative tokens ([lex.key], [lex.digraph]).
CPP_KEYWORDS = _words(
    """
    alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t
    char16_t char32_t class compl concept const consteval constexpr constinit const_cast
    continue co_await co_return co_yield decltype default delete do double dynamic_cast else
    enum explicit export extern false float for friend goto if inline int long mutable
    namespace new noexcept not not_eq nullptr operator or or_eq private protected public
    register reinterpret_cast requires return short signed sizeof static static_assert
    static_cast struct switch template this thread_local throw true try typedef typeid
    typename union unsigned using virtual void volatile wchar_t while xor xor_eq final
    override import module
    """
)

# Names the generated program already gives a meaning at namespace scope (main.cpp.j2, the
# runtime headers) or that its headers define as macros or unqualified C functions; a stage or
# program of that name would redeclare or hide them. tests/dsl/test_names.py checks that every
# namespace-scope declaration of templates/main.cpp.j2 is listed here.
GENERATED_NAMES = _words(
    """
    program kPools kEventRings kSteps SharedResources Shared shared kObjectPart objects
    main run setup submit_frame complete_batch prepare_inputs record_reference run_worker
    on_batch_done Worker Input Run BatchRecord g_run kProgram kProfile kStreams kBatch
    kSyncEvery kMaxInputBytes kFrameBytes kName ascgen std acl aclrt acldvpp aclmdl acl_sim
    NULL EOF errno stdin stdout stderr assert offsetof environ abort atexit exit _exit
    malloc free calloc realloc memcpy memset memcmp strlen strcmp printf fprintf snprintf
    puts fopen fclose fread fwrite open close read write stat fstat lstat access unlink
    sleep usleep signal raise kill time clock clock_gettime sched_yield opendir readdir
    closedir dirent timespec sigaction pthread_create
    """
)

# Targets CMake reserves; the program name becomes a CMake target.
CMAKE_RESERVED = _words(
    """
    all ALL_BUILD clean depend edit_cache help install INSTALL list_install_components
    package PACKAGE package_source preinstall rebuild_cache RUN_TESTS test ZERO_CHECK
    """
)

_NAME = re.compile(NAME_PATTERN)
_PROFILE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
# Characters that mean something inside a CMake quoted argument or a generator's command line
# ('"', '\\', '$', ';', '#', '%', '`'); control, format and line-separator characters break a
# line comment or a string literal.
_PATH_FORBIDDEN = frozenset('"\\$;#%`')
_BAD_CATEGORIES = ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn")


def _char(ch: str) -> str:
    name = unicodedata.name(ch, "")
    text = shown(ch)
    return f"'{text}' (U+{ord(ch):04X}{' ' + name if name else ''})"


def cpp_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a stage or program in generated C++, or None."""
    if not _NAME.match(name):
        return f"'{shown(name)}' is not a name: use letters, digits and '_', not starting with a digit"
    if len(name) > NAME_MAX:
        return f"'{name[:20]}...' is longer than {NAME_MAX} characters"
    if name in CPP_KEYWORDS:
        return f"'{name}' is a C++ keyword; choose another name, e.g. 'my_{name}'"
    if "__" in name or re.match(r"^_[A-Z]", name):
        return f"'{name}' is reserved in C++ (a double underscore, or '_' and a capital); rename it"
    if name in GENERATED_NAMES or name.lower().startswith("acl"):
        return f"'{name}' is already used by the generated program or its headers; choose another name"
    if name in CMAKE_RESERVED:
        return f"'{name}' is a target name CMake reserves; choose another name"
    return None


def path_problem(path: str) -> str | None:
    """Why ``path`` cannot be printed into generated C++ and CMake, or None."""
    if not path:
        return "a path cannot be empty"
    for ch in path:
        if ch in _PATH_FORBIDDEN or unicodedata.category(ch) in _BAD_CATEGORIES:
            return (
                f"the path contains {_char(ch)}, which cannot be written safely into the generated "
                "C++ and CMake; rename the file or folder"
            )
    size = len(path.encode("utf-8"))
    if size > PATH_MAX_BYTES:
        return f"the path is {size} bytes, longer than the {PATH_MAX_BYTES} the operating system allows"
    for part in path.split("/"):
        if len(part.encode("utf-8")) > COMPONENT_MAX_BYTES:
            return (
                f"a part of the path ('{part[:20]}...') is longer than the {COMPONENT_MAX_BYTES} bytes "
                "the operating system allows"
            )
    return None


def profile_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a device profile (a file of ascgen/profiles/), or None."""
    if not _PROFILE.match(name) or ".." in name or len(name) > 64:
        return f"'{shown(name)}' is not a profile name: use letters, digits, '_', '-' and '.', no path"
    return None


def _check(problem: str | None) -> None:
    if problem:
        raise ValueError(problem)


def _cpp_name(name: str) -> str:
    _check(cpp_name_problem(name))
    return name


def _safe_path(path: str) -> str:
    _check(path_problem(path))
    return path


def _profile_name(name: str) -> str:
    _check(profile_name_problem(name))
    return name


CppName = Annotated[str, Field(pattern=NAME_PATTERN, max_length=NAME_MAX), AfterValidator(_cpp_name)]
SafePath = Annotated[str, AfterValidator(_safe_path)]
ProfileName = Annotated[str, AfterValidator(_profile_name)]
