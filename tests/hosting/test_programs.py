"""Handing in a program and building it (matches/services/programs.py; docs/programs.md):
each language builds in the sandbox and its built folder runs; what does not build is
refused with its log; hostile archives and builds are contained."""

import io
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from matches.hosting import sandbox
from matches.hosting.languages import LANGUAGES
from matches.models import ProgramVersion
from matches.services import programs
from matches.services.programs import ProgramError, program_build, program_hand_in

pytestmark = [pytest.mark.one_backend, pytest.mark.django_db,
              pytest.mark.skipif(bool(sandbox.available()), reason=sandbox.available()
                                 or "the sandbox is available")]

HELLO = {
    "python": ("hello.py", b"import sys\n"
                           b"print('hello from python', sys.stdin.readline().strip())\n"),
    "c": ("hello.c", b'#include <stdio.h>\nint main(void){char s[64];'
                     b'if(fgets(s,64,stdin))printf("hello from c %s",s);return 0;}\n'),
    "cpp": ("hello.cpp", b'#include <iostream>\n#include <string>\nint main(){std::string s;'
                         b'std::getline(std::cin,s);std::cout<<"hello from cpp "<<s<<"\\n";}\n'),
    "java": ("Main.java", b'import java.util.Scanner;\npublic class Main { public static void '
                          b'main(String[] a) { System.out.println("hello from java " + new '
                          b'Scanner(System.in).nextLine()); } }\n'),
    "javascript": ("hello.js", b"const line = require('fs').readFileSync(0, 'utf8').trim();\n"
                               b"console.log('hello from javascript ' + line);\n"),
    "ruby": ("hello.rb", b"puts \"hello from ruby #{STDIN.gets.strip}\"\n"),
}


def built(language: str, filename: str, data: bytes, team: str = "Kosen Nara",
          game: str = "blokus-duo") -> ProgramVersion:
    version = program_hand_in(game=game, name=team, language=language, filename=filename,
                              data=data, by="judge:test")
    assert version.status == ProgramVersion.BUILDING
    return program_build(version.pk)


def played(version: ProgramVersion, stdin: bytes) -> bytes:
    """What the built program prints for `stdin`, run in a sandbox as it will play."""
    language = LANGUAGES[version.language]
    with sandbox.workspace() as folder:
        programs.program_unpacked(version, folder)
        sandbox.handed_over(folder)
        ran = sandbox.run(language.run(), folder, language.limits(sandbox.Limits()),
                          wall_seconds=30, stdin=stdin)
    assert ran.returncode == 0, ran.stderr
    return ran.stdout


@pytest.mark.parametrize("language", list(HELLO))
def test_each_language_builds_and_its_built_program_runs(language):
    if not LANGUAGES[language].installed():
        pytest.fail(f"{LANGUAGES[language].tool} is missing: make test installs it")
    version = built(language, *HELLO[language])
    assert version.status == ProgramVersion.READY, version.build_log
    assert played(version, b"Nara\n") == f"hello from {language} Nara\n".encode()


def test_an_executable_is_taken_built(tmp_path):
    (tmp_path / "x.c").write_text('#include <stdio.h>\nint main(void){puts("elf");return 0;}\n')
    subprocess.run(["gcc", "-O2", "-o", str(tmp_path / "x"), str(tmp_path / "x.c")], check=True)
    version = built("executable", "x", (tmp_path / "x").read_bytes())
    assert version.status == ProgramVersion.READY, version.build_log
    assert played(version, b"") == b"elf\n"
    refused = built("executable", "y.sh", b"#!/bin/sh\necho not an elf\n")
    assert refused.status == ProgramVersion.FAILED
    assert "an executable must be a Linux (ELF) program" in refused.build_log


def test_what_does_not_build_is_refused_with_its_log():
    broken = built("c", "main.c", b"int main(void) { return oops; }\n")
    assert broken.status == ProgramVersion.FAILED and broken.built is None
    assert "$ gcc -O2" in broken.build_log and "oops" in broken.build_log
    assert "build: failed (exit 1)" in broken.build_log
    python = built("python", "main.py", b"def f(:\n")
    assert python.status == ProgramVersion.FAILED and "SyntaxError" in python.build_log


def test_versions_are_numbered_and_built_once():
    first = built("python", *HELLO["python"])
    second = built("python", "main.py", b"print('v2')\n")
    assert (first.program_id, first.number, second.number) == (second.program_id, 1, 2)
    again = program_build(first.pk)
    assert (again.built_at, bytes(again.built)) == (first.built_at, bytes(first.built))


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def tarred(members: list[tarfile.TarInfo], data: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for member in members:
            archive.addfile(member, io.BytesIO(data[member.name]) if member.name in data
                            else None)
    return buffer.getvalue()


def test_an_archive_of_several_files_builds_with_its_main_file():
    version = built("python", "bot.zip", zipped({
        "main.py": b"import helper\nprint(helper.answer())\n",
        "helper.py": b"def answer():\n    return 42\n"}))
    assert version.status == ProgramVersion.READY, version.build_log
    assert played(version, b"") == b"42\n"
    missing = built("python", "bot.zip", zipped({"bot.py": b"print(1)\n"}))
    assert missing.status == ProgramVersion.FAILED
    assert "the program's main file must be `main.py`" in missing.build_log


def test_archives_that_name_places_outside_their_folder_are_refused(tmp_path):
    link = tarfile.TarInfo("main.py")
    link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
    up = tarfile.TarInfo("../../escaped.py")
    up.size = 5
    for filename, data, said in (
            ("a.zip", zipped({"../escaped.py": b"x", "main.py": b""}), "outside its folder"),
            ("a.zip", zipped({"/tmp/escaped.py": b"x"}), "outside its folder"),
            ("a.tar.gz", tarred([link], {}), "not a file"),
            ("a.tar.gz", tarred([up], {up.name: b"x = 1"}), "outside its folder"),
            ("a.zip", b"PK\x03\x04 not really a zip", "cannot be unpacked")):
        version = built("python", filename, data)
        assert version.status == ProgramVersion.FAILED and said in version.build_log, \
            (filename, version.build_log)
    assert not list(sandbox.workspaces().glob("escaped.py"))
    assert not Path("/tmp/escaped.py").exists()


def test_an_archive_bomb_is_refused_at_its_cap(monkeypatch):
    from matches.hosting import archives
    monkeypatch.setattr(archives, "MAX_BYTES", 1 << 20)
    bomb = zipped({"main.py": b"#" * (8 << 20)})  # 8 MiB of one byte, a few KiB zipped
    assert len(bomb) < 64 << 10
    version = built("python", "bomb.zip", bomb)
    assert version.status == ProgramVersion.FAILED
    assert "unpacks to more than 1 MiB" in version.build_log
    monkeypatch.setattr(archives, "MAX_FILES", 10)
    many = built("python", "many.zip", zipped({f"f{n}.py": b"" for n in range(11)}))
    assert "more than 10 files" in many.build_log


def test_a_build_that_never_ends_is_stopped(monkeypatch):
    monkeypatch.setattr(programs, "BUILD_SECONDS", 2.0)
    version = built("c", "main.c", b'#include "/dev/zero"\nint main(void){return 0;}\n')
    assert version.status == ProgramVersion.FAILED
    # (gcc reads /dev/zero for ever, unless it asks for more memory than the build may
    # have first, as it does on a fast machine: either way the build ends in its time)
    assert "build: stopped after 2 s" in version.build_log \
        or "out of memory" in version.build_log, version.build_log
    assert version.build_seconds < 2 + sandbox.END_SECONDS


def test_what_cannot_be_handed_in_is_refused_before_anything_is_stored():
    for fields, code in (({"game": "chess"}, "bad_game"), ({"language": "cobol"}, "bad_language"),
                         ({"name": ""}, "bad_name"), ({"data": b""}, "bad_file"),
                         ({"data": b"x" * (programs.SOURCE_LIMIT + 1)}, "too_large"),
                         ({"filename": "main\x00.py"}, "bad_file"),
                         ({"filename": "ma\nin.py"}, "bad_file")):
        ask = {"game": "kakomimasu", "name": "Hà Nội", "language": "python",
               "filename": "main.py", "data": b"print(1)\n", "by": "judge:test", **fields}
        with pytest.raises(ProgramError) as refused:
            program_hand_in(**ask)
        assert refused.value.code == code
    assert not ProgramVersion.objects.exists()


def test_uploadprogram_prints_the_programs_id_and_refuses_what_does_not_build(tmp_path, capsys):
    good, bad = tmp_path / "main.py", tmp_path / "bad.py"
    good.write_text("print('ok')\n")
    bad.write_text("def (\n")
    call_command("uploadprogram", str(good), "--team", "Kosen Nara", "--game", "kakomimasu",
                 "--language", "python")
    program = int(capsys.readouterr().out.strip())
    with pytest.raises(CommandError) as refused:
        call_command("uploadprogram", str(bad), "--team", "Kosen Nara", "--game", "kakomimasu",
                     "--language", "python")
    assert refused.value.returncode == 1 and "did not build" in str(refused.value)
    assert "SyntaxError" in capsys.readouterr().err
    versions = ProgramVersion.objects.filter(program_id=program).order_by("number")
    assert [version.status for version in versions] == ["ready", "failed"]
