"""The languages a hosted program may be written in: how each is built and started
(docs/programs.md, "Languages"). Each build and run happens in the sandbox, in the
program's folder (`sandbox.HOME`)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, replace
from pathlib import Path

from matches.hosting.sandbox import Limits

# What a build may use: compilers are larger than the programs they build.
BUILD_LIMITS = Limits(cpu_seconds=120, memory_mb=2048, processes=128, file_mb=256,
                      open_files=256, output_kb=64, tmp_mb=256)
BUILD_SECONDS = 180.0  # a build's wall clock
EXECUTABLE = "program"  # the file a build leaves to run, where it makes one
# The Java virtual machine reserves far more address space than it uses: its limit is
# its own, and its heap is held by its options instead.
JAVA_HEAP = "-Xmx512m"
JAVA_OPTIONS = (JAVA_HEAP, "-XX:ReservedCodeCacheSize=32m", "-XX:CompressedClassSpaceSize=64m",
                "-XX:+UseSerialGC", "-Xss8m")


class BuildRefused(ValueError):
    """The files cannot be built as the language asks (no entry file, say)."""


@dataclass(frozen=True)
class Language:
    key: str  # as a team names it
    label: str
    extensions: tuple[str, ...]  # a single source file's
    entry: str  # the file an archive must hold (its main program)
    tool: str  # the program the machine needs to build or run it
    memory_mb: int = 1024  # each process's address space when it plays

    def sources(self, folder: Path) -> list[str]:
        """The source files of the program in `folder`, relative, sorted."""
        return sorted(str(path.relative_to(folder)) for path in folder.rglob("*")
                      if path.is_file() and path.suffix in self.extensions)

    def build(self, folder: Path) -> list[str] | None:
        """The command that builds the program in `folder` (None: nothing to build but
        the checks of `check`)."""
        if not (folder / self.entry).is_file():
            raise BuildRefused(f"{self.label}: the program's main file must be "
                               f"`{self.entry}` (at the top of the archive)")
        return self._build(folder)

    def _build(self, folder: Path) -> list[str] | None:
        return None

    def run(self) -> list[str]:
        """The command that starts the built program."""
        raise NotImplementedError

    def limits(self, limits: Limits) -> Limits:
        """`limits` as this language's runtime needs them."""
        return replace(limits, memory_mb=max(limits.memory_mb, self.memory_mb))

    def installed(self) -> bool:
        return shutil.which(self.tool) is not None


class Python(Language):
    def _build(self, folder: Path) -> list[str]:
        return ["python3", "-m", "py_compile", *self.sources(folder)]

    def run(self) -> list[str]:
        return ["python3", self.entry]


class Compiled(Language):
    """C and C++: every source file compiled into one executable."""
    flags: tuple[str, ...] = ()

    def _build(self, folder: Path) -> list[str]:
        return [self.tool, "-O2", "-pipe", *self.flags, "-o", EXECUTABLE,
                *self.sources(folder), "-lm"]

    def run(self) -> list[str]:
        return [f"./{EXECUTABLE}"]


class C(Compiled):
    flags = ("-std=gnu17",)


class Cpp(Compiled):
    flags = ("-std=gnu++17",)


class Java(Language):
    def _build(self, folder: Path) -> list[str]:
        return ["javac", *(f"-J{option}" for option in JAVA_OPTIONS), "-encoding", "UTF-8",
                "-d", ".", *self.sources(folder)]

    def run(self) -> list[str]:
        return ["java", *JAVA_OPTIONS, "-cp", ".", "Main"]


class Script(Language):
    """JavaScript and Ruby: their syntax checked, then run from source."""
    check: tuple[str, ...] = ()

    def _build(self, folder: Path) -> list[str]:
        return [self.tool, *self.check, self.entry]

    def run(self) -> list[str]:
        return [self.tool, self.entry]


class JavaScript(Script):
    check = ("--check",)


class Ruby(Script):
    check = ("-c",)


class Executable(Language):
    """A Linux x86-64 executable, handed in built."""
    def _build(self, folder: Path) -> None:
        program = folder / self.entry
        if program.read_bytes()[:4] != b"\x7fELF":
            raise BuildRefused("an executable must be a Linux (ELF) program")
        program.chmod(0o755)
        return None

    def run(self) -> list[str]:
        return [f"./{self.entry}"]

    def installed(self) -> bool:
        return True


LANGUAGES: dict[str, Language] = {language.key: language for language in (
    Python("python", "Python 3", (".py",), "main.py", "python3"),
    C("c", "C (gcc)", (".c",), "main.c", "gcc"),
    Cpp("cpp", "C++ (g++)", (".cpp", ".cc", ".cxx"), "main.cpp", "g++"),
    Java("java", "Java (OpenJDK)", (".java",), "Main.java", "javac", memory_mb=4096),
    JavaScript("javascript", "JavaScript (Node.js)", (".js", ".mjs"), "main.js", "node",
               memory_mb=4096),  # (V8 reserves address space too)
    Ruby("ruby", "Ruby", (".rb",), "main.rb", "ruby"),
    Executable("executable", "Linux x86-64 executable", ("",), "program", ""),
)}


def language_of(key: str) -> Language:
    try:
        return LANGUAGES[key]
    except KeyError:
        raise BuildRefused(f"unknown language {key!r}: one of "
                           f"{', '.join(LANGUAGES)}") from None
