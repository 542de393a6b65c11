"""`mysqltop import` of hostile collections: links out of the collection, devices and FIFOs,
files that are not what they claim, a signal in the middle — one clear line, nothing read that
is not a regular file of the collection, nothing half-written (docs/import.md)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mysqltop.cli import main
from mysqltop.recording.reader import RecordingReader
from mysqltop.sources.collection_files import Unusable, open_regular

ROOT = Path(__file__).resolve().parents[1]
OWN = ROOT / "tests" / "fixtures" / "corpus" / "pt-stalk" / "mariadb-10.11-pt-stalk-3.2.1"
SECURE = ROOT / "tests" / "fixtures" / "corpus" / "pt-stalk" / "secure-collect-2018"
PREFIX = "2026_11_27_03_23_04"
SECRET = "root:$6$s3cr3t-hash-line:19000:0:99999:7:::"


def _import(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["import", *argv])
    return code, capsys.readouterr().err


def _collection(tmp_path: Path) -> Path:
    d = tmp_path / "c"
    shutil.copytree(OWN, d)
    return d


def _everything(out: Path) -> str:
    """All text a recording holds: samples, server identity and variables, bookmarks."""
    with RecordingReader(out) as r:
        parts = [repr(r.sample(i)) for i in range(len(r))]
        parts += [repr(b) for b in r.bookmarks]
    return "\n".join(parts)


def _leftovers(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in tmp_path.iterdir() if p.name.startswith((".out", "out")))


def test_links_out_of_the_collection_are_never_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    secret = tmp_path / "shadow"
    secret.write_text(SECRET + "\n")
    d = _collection(tmp_path)
    for kind in ("trigger", "hostname", "variables"):
        (d / f"{PREFIX}-{kind}").unlink()
        (d / f"{PREFIX}-{kind}").symlink_to(secret)
    out = tmp_path / "out.mtrec"
    code, err = _import(capsys, str(d), "-o", str(out))
    assert code == 0, err
    assert "left out 3 entries that are not regular files" in err and f"{PREFIX}-trigger" in err
    assert "shadow" not in _everything(out) and "s3cr3t" not in _everything(out)
    # named one by one on the command line (a shell glob): the same
    out.unlink()
    code, err = _import(capsys, *sorted(str(p) for p in d.iterdir()), "-o", str(out))
    assert code == 0, err
    assert "s3cr3t" not in _everything(out)
    assert main(["report", str(out)]) == 0
    assert "s3cr3t" not in capsys.readouterr().out


def test_a_link_swapped_in_after_listing_is_refused_by_the_open(tmp_path: Path) -> None:
    secret = tmp_path / "shadow"
    secret.write_text(SECRET + "\n")
    link = tmp_path / "x-trigger"
    link.symlink_to(secret)
    with pytest.raises(Unusable, match="symbolic link"):
        open_regular(link)
    fifo = tmp_path / "x-processlist"
    os.mkfifo(fifo)
    t = time.monotonic()
    with pytest.raises(Unusable, match="not a regular file"):
        open_regular(fifo)                  # refused at once, never waits for a writer
    assert time.monotonic() - t < 5


def test_fifo_and_device_in_a_collection(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = _collection(tmp_path)
    (d / f"{PREFIX}-vmstat").unlink()
    os.mkfifo(d / f"{PREFIX}-vmstat")
    (d / f"{PREFIX}-hostname").unlink()
    (d / f"{PREFIX}-hostname").symlink_to("/dev/zero")
    out = tmp_path / "out.mtrec"
    code, err = _import(capsys, str(d), "-o", str(out))      # would hang on the FIFO or read /dev/zero forever
    assert code == 0, err
    assert "left out 2 entries" in err
    # a directory holding nothing but a FIFO: nothing to import, and the line says why
    only = tmp_path / "only"
    only.mkdir()
    os.mkfifo(only / f"{PREFIX}-processlist")
    code, err = _import(capsys, str(only), "-o", str(tmp_path / "o2.mtrec"))
    assert code == 2 and "no files" in err and "not a regular file" in err and err.count("\n") == 1


def test_partial_skips_an_oversized_status_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import mysqltop.sources.collection_files as files

    monkeypatch.setattr(files, "MAX_SMALL_FILE", 1 << 20)
    d = _collection(tmp_path)
    with open(d / f"{PREFIX}-innodbstatus2", "a") as f:
        f.write(("-" * 99 + "\n") * 20_000)                 # 2 MB: above the (lowered) limit
    out = tmp_path / "out.mtrec"
    code, err = _import(capsys, str(d), "-o", str(out))
    assert code == 1 and "too large" in err and "--partial" in err and err.count("\n") == 1
    assert _leftovers(tmp_path) == []
    code, err = _import(capsys, str(d), "-o", str(out), "--partial")
    assert code == 0, err
    assert f"{PREFIX}-innodbstatus2: 2 MB is too large" in err and "left out" in err
    with RecordingReader(out) as r:
        assert sum(1 for i in range(len(r)) if r.sample(i).innodb_status) == 1


def test_partial_keeps_what_came_before_binary_junk_in_a_loop_file(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    d = _collection(tmp_path)
    plist = d / f"{PREFIX}-processlist"
    long_info = b"Info: SELECT " + b"x" * 80_000 + b"\n"      # past the 64 KB looked at first
    plist.write_bytes(plist.read_bytes() + long_info + b"\x00\x01\x02" * 10)
    out = tmp_path / "out.mtrec"
    code, err = _import(capsys, str(d), "-o", str(out))
    assert code == 1 and "binary data" in err and err.count("\n") == 1
    assert _leftovers(tmp_path) == []
    code, err = _import(capsys, str(d), "-o", str(out), "--partial")
    assert code == 0, err
    assert "the rest of it left out" in err
    with RecordingReader(out) as r:
        assert sum(1 for i in range(len(r)) if r.sample(i).sessions is not None) >= 7


def test_several_collections_one_recording_in_time_order(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.mtrec"
    code, err = _import(capsys, str(SECURE), "-o", str(out))
    assert code == 0, err
    assert "2 collections, imported oldest first" in err
    assert "2018_03_05_13_24_55, 2018_03_05_13_29_55" in err
    with RecordingReader(out) as r:
        times = [r.time_at(i) for i in range(len(r))]
        starts = r.segment_starts
        marks = r.bookmarks
    assert times == sorted(times)
    assert len(starts) == 2 and starts[1] == 30                 # 30 loop pages, then the second collection
    gap = next(m for m in marks if m.note and m.note.startswith("not recorded:"))
    assert gap.index == starts[1]
    assert "between pt-stalk collections 2018_03_05_13_24_55 and 2018_03_05_13_29_55" in gap.note
    assert times[starts[1]] - times[starts[1] - 1] > 200       # five minutes apart, not glued together
    # the second collection has no TS line: the first one's UTC offset is kept for it
    assert "UTC offset of the collection before used" in err


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_during_a_long_import_leaves_nothing(sig: signal.Signals, tmp_path: Path) -> None:
    d = _collection(tmp_path)
    page = ("*************************** 1. row ***************************\n     Id: 7\n   User: app\n"
            "   Host: h\n     db: shop\nCommand: Query\n   Time: 3\n  State: updating\n   Info: UPDATE t SET v=1\n")
    with open(d / f"{PREFIX}-processlist", "a") as f:
        for k in range(60_000):
            f.write(f"TS {1795749800 + k}.0 2026-11-27 03:23:{k % 60:02d}\n" + page * 5)
    out = tmp_path / "out.mtrec"
    tmp = tmp_path / ".out.mtrec.importing"
    proc = subprocess.Popen([sys.executable, "-m", "mysqltop", "import", str(d), "-o", str(out)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL))   # even under nohup
    try:
        deadline = time.monotonic() + 120
        while not tmp.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert tmp.exists(), "the import never started writing"
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 1, err
    assert f"import stopped by {sig.name}: nothing written" in err and "Traceback" not in err
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("size", [64, 200, 1 << 20])
def test_blocks_hold_the_lines_the_line_reader_gives(tmp_path: Path, size: int,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import mysqltop.sources.collection_files as files

    monkeypatch.setattr(files, "MAX_LINE", 300)
    f = tmp_path / "x-processlist"
    parts = ["TS 1795749790.5 2026-11-27 03:23:10", "short", "", "y" * 299, "z" * 300, "w" * 301,
             "v" * 1000 + "é", "é" * 200, "last line without end"]
    f.write_bytes("\n".join(parts).encode())
    by_line = [ln.rstrip("\n") for ln in files.lines(f)]
    joined = "".join(files.blocks(f, size=size))
    assert joined.split("\n") == by_line
    assert by_line[5] == "w" * 300 and by_line[6] == "v" * 300       # cut at MAX_LINE bytes


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user takes root")
def test_a_hard_link_to_another_users_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = _collection(tmp_path)
    status = d / f"{PREFIX}-innodbstatus2"
    os.chown(status, 65534, 65534)                   # another user's file …
    os.link(status, tmp_path / "elsewhere")          # … with a second name
    out = tmp_path / "out.mtrec"
    code, err = _import(capsys, str(d), "-o", str(out))
    assert code == 1 and err.count("\n") == 1, err
    assert "a hard link (it has 2 names) to a file of uid 65534" in err and "--follow-hardlinks" in err
    assert "--partial" in err and _leftovers(tmp_path) == []
    code, err = _import(capsys, str(d), "-o", str(out), "--partial")
    assert code == 0, err
    assert f"{PREFIX}-innodbstatus2: a hard link" in err and "left out" in err
    with RecordingReader(out) as r:
        assert sum(1 for i in range(len(r)) if r.sample(i).innodb_status) == 1
    out.unlink()
    code, err = _import(capsys, str(d), "-o", str(out), "--follow-hardlinks")     # asked for: read
    assert code == 0 and "hard link" not in err, err
    # the collection's owner's own file (the directory's owner, no one else may write it): read
    out.unlink()
    os.chown(status, os.geteuid(), os.getegid())
    code, err = _import(capsys, str(d), "-o", str(out))
    assert code == 0 and "hard link" not in err, err
    with RecordingReader(out) as r:
        assert sum(1 for i in range(len(r)) if r.sample(i).innodb_status) == 2


@pytest.mark.skipif(os.geteuid() != 0, reason="a collection of another user's, imported by root")
def test_root_refuses_a_hard_link_to_its_own_file_in_someone_elses_collection(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Where fs.protected_hardlinks is 0, the owner of a collection can link in /etc/shadow; root
    importing it owns that file too, so ownership by the importing user proves nothing."""
    d = _collection(tmp_path)
    for f in [d, *d.iterdir()]:
        os.chown(f, 65534, 65534)                    # a collection another user made
    shadow = tmp_path / "shadow"
    shadow.write_text(SECRET + "\n")
    os.chmod(shadow, 0o600)                          # root's file only root can read
    status = d / f"{PREFIX}-innodbstatus2"
    status.unlink()
    os.link(shadow, status)                          # as that user could, without protected_hardlinks
    out = tmp_path / "out.mtrec"
    code, err = _import(capsys, str(d), "-o", str(out))
    assert code == 1 and err.count("\n") == 1, err
    assert "a hard link (it has 2 names) to a file of uid 0, not the collection's owner (uid 65534)" in err
    code, err = _import(capsys, str(d), "-o", str(out), "--partial")
    assert code == 0 and "left out" in err, err
    assert SECRET not in _everything(out) and "s3cr3t" not in err
