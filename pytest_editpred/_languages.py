"""The one table of languages: what a path's language is, by its extension or file name.

``editpred filter-languages`` keeps examples by it (Zed's ``ep filter-languages``,
zed-authoring-and-context.md §2.3), the Zeta prompt picks a tree-sitter grammar from
it (``zeta._syntax``) and the importers tag examples and write cursor marker lines
with it (``corpus._canvas``), so a path has one language everywhere.

What is in it, and where it comes from:

* **Zed's embedded languages** (``zed=True``): the ``name`` and ``path_suffixes`` of
  each ``config.toml`` under Zed's ``crates/languages/src/`` (``bash c cpp css diff
  gitcommit go gomod gowork javascript jsdoc json jsonc markdown markdown-inline python
  regex rust tsx typescript yaml``), written down from Zed's sources of the 1.x line
  [unconfirmed: the specification names these files but not their contents, and
  v1.15's were not at hand]. Suffixes that differ only in case (C++'s ``C``/``H``,
  Markdown's ``MD``) are one lowercased entry, as Zed's table lowercases them; a
  whole file name (``PKGBUILD``, ``COMMIT_EDITMSG``, ``flake.lock``) is written as
  Zed writes it. JSDoc, Markdown-Inline and Regular Expression declare no suffix:
  they only run injected into other languages, so no file is detected as them.
* **Others a corpus commonly holds** (``zed=False``): languages Zed gets from its
  extensions (Java, Ruby, PHP, C#, HTML, TOML, SQL, ...), named as those extensions
  name them, with the usual extensions of each (GitHub linguist's common ones), and
  the file names that are a language by themselves (``Dockerfile``, ``Makefile``,
  ``Gemfile``).

Detection is Zed's (§2.3): the path's extension, lowercased; when that is not in the
table, its whole file name, lowercased. So ``go.mod`` is Go Mod (extension ``mod``),
``Makefile`` is Makefile (no extension), ``.bashrc`` is unknown (a dot file has no
extension, and the table holds ``bashrc``, not ``.bashrc``, as Zed's does), and
``CMakeLists.txt`` is Plain Text (the extension wins).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

__all__ = ["LANGUAGES", "SUFFIXES", "Language", "detection_key", "find_language", "language_of"]


@dataclass(frozen=True)
class Language:
    """One language: Zed's ``name``; ``tag``, the lowercase word the importers tag an
    example with (TSX is tagged ``typescript``, as it always was); ``suffixes``,
    extensions without their dot or whole file names, as written in the source;
    ``zed``, one of Zed's embedded languages; ``grammar``, the tree-sitter grammar the
    Zeta prompt parses it with (Zed parses JavaScript with the TSX grammar); and
    ``comment``, the line-comment prefix of a cursor marker line written in it."""

    name: str
    tag: str
    suffixes: tuple[str, ...]
    zed: bool
    grammar: str | None = None
    comment: str = "//"


def _zed(name: str, tag: str, suffixes: str, grammar: str | None = None, comment: str = "//") -> Language:
    return Language(name, tag, tuple(suffixes.split()), True, grammar, comment)


def _other(name: str, tag: str, suffixes: str, comment: str = "//") -> Language:
    return Language(name, tag, tuple(suffixes.split()), False, None, comment)


LANGUAGES: tuple[Language, ...] = (
    # Zed's embedded languages (crates/languages/src/*/config.toml)
    _zed(
        "Shell Script",
        "shell",
        "sh bash bashrc bash_profile bash_aliases bash_logout bats profile zsh zshrc zshenv zsh_profile "
        "zsh_aliases zsh_histfile zlogin zprofile .env PKGBUILD APKBUILD",
        comment="#",
    ),
    _zed("C", "c", "c"),
    _zed("C++", "cpp", "cc hh cpp h hpp cxx hxx c++ h++ ipp inl ino ixx cu cuh"),
    _zed("CSS", "css", "css postcss pcss"),
    _zed("Diff", "diff", "diff patch"),
    _zed("Git Commit", "gitcommit", "TAG_EDITMSG MERGE_MSG COMMIT_EDITMSG NOTES_EDITMSG EDIT_DESCRIPTION", comment="#"),
    _zed("Go", "go", "go", grammar="go"),
    _zed("Go Mod", "gomod", "mod"),
    _zed("Go Work", "gowork", "work"),
    _zed("JavaScript", "javascript", "js jsx mjs cjs", grammar="tsx"),
    _zed("JSDoc", "jsdoc", ""),
    _zed("JSON", "json", "json flake.lock"),
    _zed("JSONC", "jsonc", "jsonc bun.lock"),
    _zed("Markdown", "markdown", "md mdx mdwn markdown"),
    _zed("Markdown-Inline", "markdown-inline", ""),
    _zed("Python", "python", "py pyi mpy", grammar="python", comment="#"),
    _zed("Regular Expression", "regex", ""),
    _zed("Rust", "rust", "rs", grammar="rust"),
    _zed("TSX", "typescript", "tsx", grammar="tsx"),
    _zed("TypeScript", "typescript", "ts cts mts", grammar="typescript"),
    _zed("YAML", "yaml", "yml yaml", comment="#"),
    # Others a corpus commonly holds (Zed has them from extensions)
    _other("Astro", "astro", "astro"),
    _other("Batch", "batch", "bat cmd"),
    _other("C#", "csharp", "cs csx"),
    _other("Clojure", "clojure", "clj cljs cljc edn"),
    _other("CMake", "cmake", "cmake", comment="#"),
    _other("CSV", "csv", "csv"),
    _other("Dart", "dart", "dart"),
    _other("Dockerfile", "dockerfile", "Dockerfile Containerfile", comment="#"),
    _other("Elixir", "elixir", "ex exs", comment="#"),
    _other("Elm", "elm", "elm"),
    _other("Erlang", "erlang", "erl hrl"),
    _other("F#", "fsharp", "fs fsi fsx"),
    _other("Fish", "fish", "fish", comment="#"),
    _other("Gleam", "gleam", "gleam"),
    _other("GraphQL", "graphql", "graphql gql", comment="#"),
    _other("Groovy", "groovy", "groovy gradle"),
    _other("Haskell", "haskell", "hs"),
    _other("HCL", "hcl", "hcl tf tfvars", comment="#"),
    _other("HTML", "html", "html htm"),
    _other("INI", "ini", "ini cfg"),
    _other("Java", "java", "java"),
    _other("Julia", "julia", "jl", comment="#"),
    _other("Jupyter", "jupyter", "ipynb"),
    _other("Kotlin", "kotlin", "kt kts"),
    _other("LaTeX", "latex", "tex"),
    _other("Less", "less", "less"),
    _other("Lua", "lua", "lua"),
    _other("Makefile", "makefile", "mk Makefile GNUmakefile", comment="#"),
    _other("Nix", "nix", "nix", comment="#"),
    _other("Objective-C", "objc", "m"),
    _other("OCaml", "ocaml", "ml mli"),
    _other("Perl", "perl", "pl pm", comment="#"),
    _other("PHP", "php", "php"),
    _other("Plain Text", "text", "txt"),
    _other("PowerShell", "powershell", "ps1 psm1 psd1", comment="#"),
    _other("Proto", "proto", "proto"),
    _other("R", "r", "r", comment="#"),
    _other("reStructuredText", "rst", "rst"),
    _other("Ruby", "ruby", "rb rake gemspec Gemfile Rakefile", comment="#"),
    _other("Scala", "scala", "scala sc"),
    _other("SCSS", "scss", "scss"),
    _other("Solidity", "solidity", "sol"),
    _other("SQL", "sql", "sql"),
    _other("Svelte", "svelte", "svelte"),
    _other("Swift", "swift", "swift"),
    _other("TOML", "toml", "toml", comment="#"),
    _other("Vue.js", "vue", "vue"),
    _other("XML", "xml", "xml xsd xsl xslt plist"),
    _other("Zig", "zig", "zig"),
)


def _by_suffix() -> dict[str, Language]:
    table: dict[str, Language] = {}
    for language in LANGUAGES:
        for suffix in language.suffixes:
            table.setdefault(suffix.lower(), language)
    return table


#: Lowercased extension or file name -> its language (Zed's table, and the others).
SUFFIXES: dict[str, Language] = _by_suffix()


def detection_key(path: str) -> tuple[str, str]:
    """``(extension, file name)`` of ``path``, lowercased, as Zed reads them: the
    extension without its dot (empty for ``Makefile`` and ``.bashrc``); ``/`` or
    ``\\`` separate folders."""
    name = PurePosixPath(path.replace("\\", "/")).name
    return PurePosixPath(name).suffix.lower().lstrip("."), name.lower()


def language_of(path: str) -> Language | None:
    """The language of ``path``: by its extension, else by its whole file name
    (§2.3); None when the table knows neither."""
    extension, name = detection_key(path)
    found = SUFFIXES.get(extension) if extension else None
    return found if found is not None else SUFFIXES.get(name)


def find_language(name: str) -> Language | None:
    """The language called ``name``, compared without case (``rust``, ``c++``,
    ``shell script``); None when none is."""
    wanted = name.strip().lower()
    return next((language for language in LANGUAGES if language.name.lower() == wanted), None)
